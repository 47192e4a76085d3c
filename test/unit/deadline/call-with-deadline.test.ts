// callWithDeadline: a call gets the smaller of its cap and what is left of the pass, and a call that misses it
// fails with an error naming the dependency, even when the call ignores its abort signal.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  callWithDeadline,
  DependencyTimeoutError,
  findDependencyTimeout,
  lastDependencyTimeout,
  runWithDeadline,
} from '#shared/deadline/index.ts';

const never = () => new Promise<never>(() => undefined);

describe('callWithDeadline', () => {
  test('a call that answers in time resolves with its value', async () => {
    assert.equal(await callWithDeadline('DynamoDB', 'Get', 1_000, () => Promise.resolve(42)), 42);
  });

  test('a call that never answers fails after its cap with an error naming the dependency and operation', async () => {
    const started = Date.now();
    await assert.rejects(callWithDeadline('DynamoDB', 'Get', 50, never), (err: unknown) => {
      assert.ok(err instanceof DependencyTimeoutError);
      assert.equal(err.dependency, 'DynamoDB');
      assert.equal(err.reason, 'DependencyTimeout');
      assert.equal(err.message, 'DynamoDB did not answer Get within 50 ms');
      return true;
    });
    assert.ok(Date.now() - started < 1_000);
  });

  test('the pass deadline shortens the cap and the call sees its signal abort', async () => {
    let aborted = false;
    const call = (signal: AbortSignal) =>
      new Promise<never>(() => signal.addEventListener('abort', () => (aborted = true)));
    await assert.rejects(
      runWithDeadline(Date.now() + 60, () => callWithDeadline('Kubernetes', 'GET /api', 30_000, call)),
      (err: unknown) => err instanceof DependencyTimeoutError && err.timeoutMs <= 60,
    );
    assert.equal(aborted, true);
  });

  test('a deadline already passed fails at once, and the scope remembers the timeout', async () => {
    await runWithDeadline(Date.now() - 1, async () => {
      await assert.rejects(callWithDeadline('EventBridge', 'PutEvents', 1_000, never), /within 0 ms/);
      assert.equal(lastDependencyTimeout()?.dependency, 'EventBridge');
    });
  });

  test('findDependencyTimeout finds the timeout in a cause chain', () => {
    const timeout = new DependencyTimeoutError('DynamoDB', 'Get', 5);
    const wrapped = new Error('failed to get checkpoint', { cause: new Error('middle', { cause: timeout }) });
    assert.equal(findDependencyTimeout(wrapped), timeout);
    assert.equal(findDependencyTimeout(new Error('other')), undefined);
  });
});
