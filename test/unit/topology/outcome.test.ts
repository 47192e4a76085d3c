import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  computeOutcome,
  computeUpgradeWait,
  managedFieldsRequeueMs,
  upgradeRequeueMs,
  upgradeSafetyNetMs,
  type PassState,
  type UpgradeWait,
} from '#shared/topology/outcome.ts';
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

const cpUpgrading: UpgradeSummary = { ...idle, controlPlane: { ...idle.controlPlane, isUpgrading: true } };
const mdUpgrading: UpgradeSummary = { ...idle, machineDeployments: { ...idleWorkers, upgrading: ['md-0'] } };
const mdPending: UpgradeSummary = {
  ...cpUpgrading,
  machineDeployments: { ...idleWorkers, pendingUpgrade: ['md-0'] },
};
const safetyNet = 'Requeue (safety net)';
const short = 'Requeue (short)';
type Expected = 'Success' | typeof safetyNet | typeof short;

describe('computeOutcome', () => {
  const cases: [string, UpgradeSummary, number | undefined, Expected][] = [
    ['succeeds when nothing upgrades or waits', idle, undefined, 'Success'],
    [
      'requeues while the control plane upgrades (TopologyReconciled says ClusterUpgrading until a later pass)',
      cpUpgrading,
      undefined,
      safetyNet,
    ],
    [
      'requeues while the control plane starts its upgrade in this pass, though no worker waits for it',
      { ...idle, controlPlane: { ...idle.controlPlane, isStartingUpgrade: true } },
      undefined,
      safetyNet,
    ],
    ['requeues while a MachineDeployment upgrades, though none is pending any more', mdUpgrading, undefined, safetyNet],
    [
      'requeues while a MachinePool upgrades',
      { ...idle, machinePools: { ...idleWorkers, upgrading: ['mp-0'] } },
      undefined,
      safetyNet,
    ],
    [
      'requeues while the control plane upgrade is pending',
      { ...idle, controlPlane: { ...idle.controlPlane, isPendingUpgrade: true } },
      undefined,
      safetyNet,
    ],
    ['requeues while a MachineDeployment waits for the control plane to upgrade', mdPending, undefined, safetyNet],
    [
      "requeues while a MachineDeployment's creation waits for the control plane",
      { ...cpUpgrading, machineDeployments: { ...idleWorkers, pendingCreate: ['md-1'] } },
      undefined,
      safetyNet,
    ],
    [
      'succeeds when the only pending MachineDeployment upgrade is deferred',
      { ...idle, machineDeployments: { ...idleWorkers, pendingUpgrade: ['md-0'], deferredUpgrade: ['md-0'] } },
      undefined,
      'Success',
    ],
    [
      'requeues soon while a MachineSet still holds an unused template and no worker rolls out (its release is not routed)',
      idle,
      2,
      short,
    ],
    ['requeues soon while a MachineSet holds a template and only the control plane upgrades', mdPending, 1, short],
    [
      "requeues as the safety net while a MachineSet holds a template and a MachineDeployment rolls out (the rollout's end is routed)",
      mdUpgrading,
      1,
      safetyNet,
    ],
  ];
  for (const [name, upgrade, heldTemplates, expected] of cases) {
    test(name, () => {
      const outcome = computeOutcome(reconciled(upgrade, heldTemplates), ['x']);
      assert.deepEqual(outcome.changed, ['x']);
      assert.equal(outcome.result, expected === 'Success' ? 'Success' : 'Requeue');
      const ms = expected === safetyNet ? upgradeSafetyNetMs : expected === short ? upgradeRequeueMs : undefined;
      assert.equal(outcome.requeueAfterMs, ms);
      // A wait for the control plane or the workers is woken by their status changes; nothing else is.
      assert.equal(outcome.wakeOnOwnedChange, expected === 'Success' ? undefined : true);
    });
  }
  test('waits on routed status changes for 5 minutes and on an unrouted release for 30 seconds', () => {
    // NOTE: the values the cost profile's wake-ups follow (docs/incoming/requeue.md); upstream sets no timer at all.
    assert.equal(computeOutcome(reconciled(cpUpgrading), []).requeueAfterMs, 5 * 60_000);
    assert.equal(computeOutcome(reconciled(idle, 1), []).requeueAfterMs, 30_000);
  });
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
  test("a blocking hook's retryAfterSeconds stays the due time, not the safety net", () => {
    const state = {
      ...reconciled(cpUpgrading),
      hooks: {
        tracked: [{ hook: 'AfterControlPlaneUpgrade', answer: { retryAfterSeconds: 20, message: 'wait' } }],
        afterClusterUpgradePending: true,
      },
    } as PassState;
    assert.deepEqual(computeOutcome(state, []), { result: 'Requeue', requeueAfterMs: 20_000, changed: [] });
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
});

describe('computeUpgradeWait', () => {
  const cases: [string, UpgradeSummary, number | undefined, UpgradeWait][] = [
    ['waits on nothing when nothing upgrades', idle, undefined, { routed: [], unrouted: [] }],
    [
      'waits on the control plane and the MachineDeployment behind it, both routed',
      mdPending,
      undefined,
      { routed: ['ControlPlaneUpgrading', 'MachineDeploymentsPendingUpgrade'], unrouted: [] },
    ],
    [
      'does not wait on a MachineDeployment whose upgrade is only deferred',
      { ...idle, machineDeployments: { ...idleWorkers, pendingUpgrade: ['md-0'], deferredUpgrade: ['md-0'] } },
      undefined,
      { routed: [], unrouted: [] },
    ],
    [
      'counts MachinePools as the MachineDeployments',
      {
        ...idle,
        machinePools: { upgrading: ['mp-0'], pendingUpgrade: ['mp-1'], deferredUpgrade: [], pendingCreate: ['mp-2'] },
      },
      undefined,
      { routed: ['MachinePoolsUpgrading', 'MachinePoolsPendingUpgrade', 'MachinePoolsPendingCreate'], unrouted: [] },
    ],
    ['a held template alone is unrouted', idle, 1, { routed: [], unrouted: ['TemplatesHeld'] }],
    [
      "a held template while a worker rolls out ends with the rollout's routed end",
      mdUpgrading,
      1,
      { routed: ['MachineDeploymentsUpgrading', 'TemplatesHeld'], unrouted: [] },
    ],
  ];
  for (const [name, upgrade, heldTemplates, expected] of cases)
    test(name, () => {
      const state = reconciled(upgrade, heldTemplates);
      assert.deepEqual(computeUpgradeWait(state as Extract<PassState, { kind: 'Reconciled' }>), expected);
    });
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
  test('requeues soon, not after the safety net, when it seeded while an upgrade waits on routed changes', () =>
    assert.deepEqual(
      computeOutcome({ kind: 'Reconciled', version: 'v1.37.0', upgrade: cpUpgrading, mitigatedManagedFields: 1 }, []),
      { result: 'Requeue', requeueAfterMs: upgradeRequeueMs, changed: [], wakeOnOwnedChange: true },
    ));
  test('succeeds when nothing was seeded', () =>
    assert.equal(
      computeOutcome({ kind: 'Reconciled', version: 'v1.37.0', upgrade: idle, mitigatedManagedFields: 0 }, []).result,
      'Success',
    ));
});
