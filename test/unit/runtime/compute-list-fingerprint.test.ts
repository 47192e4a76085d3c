import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { computeListFingerprint, type ListedObject } from '#shared/runtime/compute-list-fingerprint.ts';

const c1: ListedObject = Object.freeze({ namespace: 'default', name: 'c1', uid: 'u1', generation: 3 });
const c2: ListedObject = Object.freeze({ namespace: 'default', name: 'c2', uid: 'u2', generation: 1 });
const base = computeListFingerprint([c1, c2]);

describe('computeListFingerprint', () => {
  const cases: [string, readonly ListedObject[], boolean][] = [
    ['does not depend on the order of the LIST', [c2, c1], true],
    ['changes when a generation moves', [{ ...c1, generation: 4 }, c2], false],
    ['changes when an object is re-created under the same name (new uid)', [{ ...c1, uid: 'u9' }, c2], false],
    ['changes when an object is added', [c1, c2, { ...c2, name: 'c3', uid: 'u3' }], false],
    ['changes when an object is gone', [c1], false],
    ['tells an empty LIST from a one-object LIST', [], false],
  ];
  for (const [name, items, same] of cases) test(name, () => assert.equal(computeListFingerprint(items) === base, same));
});
