import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ResourceToApply } from '#shared/addons/desired/resources-to-apply.ts';
import { computeResourceOutcome } from '#shared/addons/desired/resource-outcome.ts';
import { ResourceParseError } from '#shared/addons/desired/resource-data.ts';
import { deepFreeze } from '#test/support/fixtures/addons.ts';

const ref = { name: 'cni', kind: 'ConfigMap' } as const;

describe('computeResourceOutcome', () => {
  const cases: { name: string; decision: ResourceToApply; error?: string; want: unknown }[] = [
    {
      name: 'turns a successful apply into Applied with the hash',
      decision: { ref, action: 'apply', reason: 'NotApplied', hash: 'h', objects: [] },
      want: { ref, outcome: 'Applied', hash: 'h' },
    },
    {
      name: 'turns a failed apply into ApplyFailed keeping the hash and the message',
      decision: { ref, action: 'apply', reason: 'Changed', hash: 'h', objects: [] },
      error: 'denied',
      want: { ref, outcome: 'ApplyFailed', hash: 'h', message: 'denied' },
    },
    {
      name: 'turns a skip into Skipped',
      decision: { ref, action: 'skip', reason: 'Unchanged', hash: 'h' },
      want: { ref, outcome: 'Skipped' },
    },
    { name: 'turns notFound into NotFound', decision: { ref, action: 'notFound' }, want: { ref, outcome: 'NotFound' } },
    {
      name: 'turns invalid data into Invalid with the parse message',
      decision: {
        ref,
        action: 'invalid',
        error: new ResourceParseError({ kind: 'ConfigMap', namespace: 'ns', name: 'cni' }, 'bad', { key: 'k' }),
      },
      want: { ref, outcome: 'Invalid', message: 'failed to parse ConfigMap ns/cni key "k": bad' },
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      assert.deepEqual(
        computeResourceOutcome(deepFreeze(c.decision), c.error === undefined ? {} : { error: c.error }),
        c.want,
      );
    });
  }
});
