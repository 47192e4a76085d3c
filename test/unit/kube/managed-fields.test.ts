import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { computeManagedFieldsMitigation, hasApplyEntry, type ManagedFieldsEntry } from '#shared/kube/managed-fields.ts';

const manager = 'capi-topology';
const apiVersion = 'cluster.x-k8s.io/v1beta2';
const entry = (name: string, operation = 'Apply', extra: Partial<ManagedFieldsEntry> = {}): ManagedFieldsEntry =>
  Object.freeze({ manager: name, operation, apiVersion, fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': {} }, ...extra });
const seed: ManagedFieldsEntry = {
  manager,
  operation: 'Apply',
  apiVersion,
  fieldsType: 'FieldsV1',
  fieldsV1: { 'f:metadata': { 'f:name': {} } },
};
const ours = entry(manager);
const other = entry('manager', 'Update');
const beforeFirstApply = entry('before-first-apply', 'Update');
const meta = (managedFields?: readonly ManagedFieldsEntry[]) =>
  Object.freeze(managedFields === undefined ? {} : { managedFields: Object.freeze([...managedFields]) });

describe('hasApplyEntry', () => {
  const cases: [string, object, boolean][] = [
    ['finds the manager’s apply entry of the main resource', meta([other, ours]), true],
    ['is false when the managed fields were purged (the server then omits them)', meta(), false],
    ['is false when only other managers have entries', meta([other, beforeFirstApply]), false],
    ['does not count an Update entry of the same manager', meta([entry(manager, 'Update')]), false],
    [
      'does not count an apply entry of a subresource (status)',
      meta([entry(manager, 'Apply', { subresource: 'status' })]),
      false,
    ],
  ];
  for (const [name, metadata, expected] of cases)
    test(name, () => assert.equal(hasApplyEntry(metadata, manager), expected));
});

// NOTE: the cases of upstream v1.14.2's MitigateManagedFieldsIssue (internal/util/ssa/managedfieldsmitigation.go).
describe('computeManagedFieldsMitigation', () => {
  const cases: [string, object, ManagedFieldsEntry[] | undefined][] = [
    ['case 0: writes nothing when the manager has its entry', meta([ours]), undefined],
    ['writes nothing when other managers have entries and none is before-first-apply', meta([other]), undefined],
    ['case 1: seeds the manager when there are no managed fields', meta(), [seed]],
    ['case 1: an empty list is no managed fields', meta([]), [seed]],
    ['case 2a: replaces a lone before-first-apply entry with the seed', meta([beforeFirstApply]), [seed]],
    [
      'case 2b: drops before-first-apply, keeps the others and seeds the manager',
      meta([beforeFirstApply, other]),
      [other, seed],
    ],
    [
      'case 2c: drops before-first-apply and keeps the manager’s own entry',
      meta([beforeFirstApply, ours, other]),
      [ours, other],
    ],
  ];
  for (const [name, metadata, expected] of cases)
    test(name, () => assert.deepEqual(computeManagedFieldsMitigation(metadata, manager, apiVersion), expected));
});
