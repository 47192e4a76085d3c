// 429s from API priority and fairness on a real kube-apiserver (a one-seat, Reject priority level): the client
// sends a refused request again after its Retry-After, so a burst succeeds; inside a pass deadline too short for
// the wait it fails at once with an error naming the object and saying the API server throttled it.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { runWithDeadline } from '#shared/deadline/index.ts';
import { applyObject, getObject, KubeThrottledError, type RequestRecord } from '#shared/kube/index.ts';
import { startManagementCluster, type TestCluster } from '#test/support/harness/clusters.ts';
import {
  createThrottledIdentity,
  tinyServerConcurrencyArgs,
  type ThrottledIdentity,
} from '#test/support/harness/throttled-identity.ts';

const burst = 30;
const ref = { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'throttled' };

describe('requests the API server throttles (429)', () => {
  let mgmt: TestCluster;
  let identity: ThrottledIdentity;
  before(async () => {
    mgmt = await startManagementCluster({
      name: 'throttle-kube',
      crds: 'none',
      extraApiServerArgs: [...tinyServerConcurrencyArgs],
    });
    await applyObject(
      mgmt.kube,
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: ref.namespace, name: ref.name }, data: { v: '1' } },
      { fieldManager: 'test-user' },
    );
    identity = await createThrottledIdentity(mgmt);
    await identity.throttle();
  });
  after(async () => {
    identity?.kube.close();
    await mgmt?.stop();
  });

  test('a burst meets 429s and every request succeeds after Retry-After', async () => {
    const from = identity.records.length;
    // NOTE: a burst meets 429s only where its requests overlap on the one seat; on an idle machine a GET can finish
    // before the next arrives, so bursts go on (up to 10) until one has met a 429. Every request must succeed.
    let rounds = 0;
    let throttled: RequestRecord[] = [];
    while (throttled.length === 0 && rounds < 10) {
      rounds++;
      const read = await Promise.all(Array.from({ length: burst }, () => getObject(identity.kube, ref)));
      assert.equal(read.filter((o) => o.metadata.name === ref.name).length, burst);
      throttled = identity.records.slice(from).filter((r) => r.statusCode === 429);
    }
    assert.ok(throttled.length > 0, `${rounds} bursts of ${burst} met no 429`);
    assert.ok(
      throttled.every((r) => r.retryAfter !== undefined && Number(r.retryAfter) >= 1),
      `each 429 said when to come back (${throttled.map((r) => r.retryAfter).join(', ')})`,
    );
  });

  test('a retry that would pass the pass deadline is not waited for: the error names the object and the 429', async () => {
    const deadlineMs = 700;
    // NOTE: as above, bursts go on (up to 10) until one meets a 429; each has its own deadline.
    let startedAt = Date.now();
    let failures: unknown[] = [];
    for (let round = 0; failures.length === 0 && round < 10; round++) {
      startedAt = Date.now();
      const outcomes = await runWithDeadline(startedAt + deadlineMs, () =>
        Promise.allSettled(Array.from({ length: burst }, () => getObject(identity.kube, ref))),
      );
      failures = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason as unknown] : []));
    }
    assert.ok(failures.length > 0, 'some request was throttled');
    for (const err of failures) {
      assert.ok(err instanceof KubeThrottledError, String(err));
      assert.match(
        err.message,
        /^failed to get ConfigMap default\/throttled: the API server throttled the request \(429 1 time\(s\), Retry-After \d+ s\); gave up as waiting [\d.]+ s would pass the deadline/,
      );
      assert.equal(err.reason, 'TooManyRequests');
    }
    assert.ok(Date.now() - startedAt < deadlineMs, 'no request slept past the deadline');
  });
});
