// Whether the forwarder's heartbeat is fresh, from the Lease and the time alone.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { computeForwarderHealth, type HeartbeatLease } from '#shared/health/index.ts';

const renewed = Date.parse('2026-11-27T12:00:00Z');
const lease = (spec: HeartbeatLease['spec']): HeartbeatLease =>
  Object.freeze({ spec: Object.freeze({ ...spec }) }) as HeartbeatLease;
const fresh = lease({ holderIdentity: 'fw-0', renewTime: '2026-11-27T12:00:00.000000Z', leaseDurationSeconds: 180 });

describe('computeForwarderHealth', () => {
  const cases: [string, HeartbeatLease | undefined, number, RegExp | undefined][] = [
    ['finds nothing wrong with a Lease renewed within its duration', fresh, renewed + 180_000, undefined],
    [
      'calls a Lease renewed longer ago than its duration stale',
      fresh,
      renewed + 181_000,
      /stale: last renewed 181 s ago by fw-0/,
    ],
    ['reports a missing Lease', undefined, renewed, /does not exist/],
    ['reports a Lease without renewTime', lease({ leaseDurationSeconds: 180 }), renewed, /no renewTime/],
    [
      'reports a Lease without duration',
      lease({ renewTime: '2026-11-27T12:00:00Z' }),
      renewed,
      /no renewTime or duration/,
    ],
  ];
  for (const [name, input, now, expected] of cases)
    test(name, () => {
      const findings = computeForwarderHealth(input, now);
      if (expected === undefined) assert.deepEqual(findings, []);
      else {
        assert.equal(findings.length, 1);
        assert.match(findings[0]?.message ?? '', expected);
      }
    });
});
