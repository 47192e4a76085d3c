import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { computeOutcome, managedFieldsRequeueMs, upgradeRequeueMs, type PassState } from '#shared/topology/outcome.ts';
import type { UpgradeSummary, WorkerUpgradeSummary } from '#shared/topology/types.ts';

const idleWorkers: WorkerUpgradeSummary = Object.freeze({
  upgrading: [],
  pendingUpgrade: [],
  deferredUpgrade: [],
  pendingCreate: [],
});
const idle: UpgradeSummary = Object.freeze({
  controlPlane: Object.freeze({
    isPendingUpgrade: false,
    isProvisioning: false,
    isUpgrading: false,
    isScaling: false,
    isStartingUpgrade: false,
  }),
  machineDeployments: idleWorkers,
  machinePools: idleWorkers,
});
const reconciled = (upgrade: UpgradeSummary, heldTemplates?: number): PassState => ({
  kind: 'Reconciled',
  version: 'v1.37.0',
  upgrade,
  ...(heldTemplates === undefined ? {} : { heldTemplates }),
});

describe('computeOutcome', () => {
  const cases: [string, UpgradeSummary, 'Success' | 'Requeue'][] = [
    ['succeeds when nothing upgrades or waits', idle, 'Success'],
    [
      'requeues while the control plane upgrades (TopologyReconciled says ClusterUpgrading until a later pass)',
      { ...idle, controlPlane: { ...idle.controlPlane, isUpgrading: true } },
      'Requeue',
    ],
    [
      'requeues while a MachineDeployment upgrades, though none is pending any more',
      { ...idle, machineDeployments: { ...idleWorkers, upgrading: ['md-0'] } },
      'Requeue',
    ],
    [
      'requeues while a MachinePool upgrades',
      { ...idle, machinePools: { ...idleWorkers, upgrading: ['mp-0'] } },
      'Requeue',
    ],
    [
      'requeues while the control plane upgrade is pending',
      { ...idle, controlPlane: { ...idle.controlPlane, isPendingUpgrade: true } },
      'Requeue',
    ],
    [
      'succeeds when the only pending MachineDeployment upgrade is deferred',
      { ...idle, machineDeployments: { ...idleWorkers, pendingUpgrade: ['md-0'], deferredUpgrade: ['md-0'] } },
      'Success',
    ],
  ];
  test('requeues while a MachineSet still holds an unused template of the topology (a later pass deletes it)', () => {
    const outcome = computeOutcome(reconciled(idle, 2), []);
    assert.deepEqual(outcome, {
      result: 'Requeue',
      requeueAfterMs: upgradeRequeueMs,
      changed: [],
      wakeOnOwnedChange: true,
    });
    assert.equal(computeOutcome(reconciled(idle, 0), []).result, 'Success');
  });
  test("succeeds without a requeue while the cluster shim waits for the core controller's adoption, and names the control plane whose change runs the next pass", () => {
    const cp = 'KubeadmControlPlane default/c-x2bz9';
    // NOTE: as upstream's pass, which returns no requeue there: its watch of the control plane brings the adoption.
    assert.deepEqual(computeOutcome({ ...reconciled(idle), awaitedAdoption: cp } as PassState, []), {
      result: 'Success',
      changed: [],
      wakeOnChangeOf: [cp],
    });
    assert.deepEqual(computeOutcome({ ...reconciled(idle, 2), awaitedAdoption: cp } as PassState, []), {
      result: 'Requeue',
      requeueAfterMs: upgradeRequeueMs,
      changed: [],
      wakeOnOwnedChange: true,
      wakeOnChangeOf: [cp],
    });
    assert.deepEqual(computeOutcome(reconciled(idle), []), { result: 'Success', changed: [] });
  });
  for (const [name, upgrade, result] of cases) {
    test(name, () => {
      const outcome = computeOutcome(reconciled(upgrade), ['x']);
      assert.equal(outcome.result, result);
      assert.deepEqual(outcome.changed, ['x']);
      if (result === 'Requeue') assert.equal(outcome.requeueAfterMs, upgradeRequeueMs);
      // A wait for the control plane or the workers is woken by their status changes; nothing else is.
      assert.equal(outcome.wakeOnOwnedChange, result === 'Requeue' ? true : undefined);
    });
  }
});

describe('computeOutcome after seeding dropped managed fields', () => {
  test('requeues a second later, as upstream does after its mitigation', () =>
    assert.deepEqual(
      computeOutcome({ kind: 'Reconciled', version: 'v1.37.0', upgrade: idle, mitigatedManagedFields: 2 }, []),
      {
        result: 'Requeue',
        requeueAfterMs: managedFieldsRequeueMs,
        changed: [],
      },
    ));
  test('succeeds when nothing was seeded', () =>
    assert.equal(
      computeOutcome({ kind: 'Reconciled', version: 'v1.37.0', upgrade: idle, mitigatedManagedFields: 0 }, []).result,
      'Success',
    ));
});
