// The pure lifecycle-hook decisions of a topology pass: which hook the desired-state computation asks for next, with
// which request, what a blocking answer holds, and how the pending-hooks marks move (upstream's lifecycle_hooks.go,
// callAfterHooks and tracking.go).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Cluster } from '#shared/api/core/v1beta2/cluster.ts';
import type { ClusterClass } from '#shared/api/core/v1beta2/cluster-class.ts';
import { computeAfterHooksDesiredState } from '#shared/topology/desired/compute-after-hooks.ts';
import { computeDesiredState, computeUnpatchedDesiredState } from '#shared/topology/desired/compute-desired-state.ts';
import {
  computeAggregateRetryAfter,
  computeAnnotationBlock,
  computeBlockingHooksMessage,
  computePendingHooks,
  computePendingHooksValue,
  type HookAnswer,
  type LifecycleHook,
} from '#shared/topology/desired/lifecycle-hooks.ts';
import { computeOutcome, computeTopologyReconciledCondition } from '#shared/topology/outcome.ts';
import type { CurrentState, MachineDeploymentState, Unstructured } from '#shared/topology/types.ts';
import {
  blueprintFor,
  ClusterBuilder,
  ClusterClassBuilder,
  deepFreeze,
  emptyCurrent,
  sequentialSuffix,
} from '#test/support/builders/topology.ts';

const cc = new ClusterClassBuilder().build();
const base = new ClusterBuilder().machineDeployments([{ class: 'default-worker', name: 'md-0' }]).build();
const stable = (version: string) => ({
  version,
  replicas: 3,
  upToDateReplicas: 3,
  readyReplicas: 3,
  availableReplicas: 3,
});
const specOf = (o: Unstructured) => o['spec'] as Record<string, unknown>;

/** The current state: the control plane at `cp` (spec) reporting `status`, md-0 at `md`. */
function currentWith(cp: string, status: Record<string, unknown> | undefined, md: string): CurrentState {
  const first = computeDesiredState(
    { cluster: base, blueprint: blueprintFor(cc), current: emptyCurrent(base) },
    { randomSuffix: sequentialSuffix() },
  );
  const d = first.machineDeployments['md-0']!;
  const machineDeployments: Record<string, MachineDeploymentState> = {
    'md-0': {
      object: {
        ...d.object,
        spec: {
          ...d.object.spec,
          template: { ...d.object.spec.template, spec: { ...d.object.spec.template.spec, version: md } },
        },
      },
      bootstrapTemplate: d.bootstrapTemplate,
      infrastructureMachineTemplate: d.infrastructureMachineTemplate,
    },
  };
  const cpObject = {
    ...first.controlPlane.object,
    spec: { ...specOf(first.controlPlane.object), version: cp },
    ...(status ? { status } : {}),
  };
  return { ...emptyCurrent(base), controlPlane: { object: cpObject, contract: 'v1beta2' }, machineDeployments };
}

function clusterAt(version: string, extra: (c: Cluster) => void = () => {}): Cluster {
  const c = structuredClone(base);
  c.spec!.topology!.version = version;
  c.spec!.infrastructureRef = { apiGroup: 'infrastructure.cluster.x-k8s.io', kind: 'DockerCluster', name: 'c1' };
  c.spec!.controlPlaneRef = { apiGroup: 'controlplane.cluster.x-k8s.io', kind: 'KubeadmControlPlane', name: 'c1' };
  extra(c);
  return c;
}

const go: HookAnswer = { retryAfterSeconds: 0, message: '' };
const wait: HookAnswer = { retryAfterSeconds: 30, message: 'wait' };

function decide(
  cluster: Cluster,
  cc2: ClusterClass,
  current: CurrentState,
  pending: string[],
  answers: Partial<Record<LifecycleHook, HookAnswer>>,
) {
  const input = deepFreeze({ cluster, blueprint: blueprintFor(cc2), current, hooks: { pending, answers } });
  const desired = computeUnpatchedDesiredState(input, { randomSuffix: sequentialSuffix() });
  // NOTE: as a pass: the After* hooks are decided once every other hook is answered (and the patches computed).
  return desired.hooks?.call ? desired : computeAfterHooksDesiredState(deepFreeze(desired), cluster, answers);
}

describe('lifecycle hooks in the desired state', () => {
  const cases: {
    name: string;
    cluster: Cluster;
    current: CurrentState;
    pending: string[];
    answers: Partial<Record<LifecycleHook, HookAnswer>>;
    want: {
      call?: { hook: string; request: Record<string, unknown> };
      cp: string;
      md: string;
      pending: string[];
      blocking?: string[];
    };
  }[] = [
    {
      name: 'an upgrade starts by asking BeforeClusterUpgrade with both one-step plans',
      cluster: clusterAt('v1.31.0'),
      current: currentWith('v1.30.0', stable('v1.30.0'), 'v1.30.0'),
      pending: [],
      answers: {},
      want: {
        call: {
          hook: 'BeforeClusterUpgrade',
          request: {
            fromKubernetesVersion: 'v1.30.0',
            toKubernetesVersion: 'v1.31.0',
            controlPlaneUpgrades: [{ version: 'v1.31.0' }],
            workersUpgrades: [{ version: 'v1.31.0' }],
          },
        },
        cp: 'v1.30.0',
        md: 'v1.30.0',
        pending: [],
      },
    },
    {
      name: 'a blocking BeforeClusterUpgrade keeps every version and marks nothing',
      cluster: clusterAt('v1.31.0'),
      current: currentWith('v1.30.0', stable('v1.30.0'), 'v1.30.0'),
      pending: [],
      answers: { BeforeClusterUpgrade: wait },
      want: { cp: 'v1.30.0', md: 'v1.30.0', pending: [], blocking: ['BeforeClusterUpgrade'] },
    },
    {
      name: 'BeforeClusterUpgrade released: AfterClusterUpgrade is marked and BeforeControlPlaneUpgrade asked',
      cluster: clusterAt('v1.31.0'),
      current: currentWith('v1.30.0', stable('v1.30.0'), 'v1.30.0'),
      pending: [],
      answers: { BeforeClusterUpgrade: go },
      want: {
        call: {
          hook: 'BeforeControlPlaneUpgrade',
          request: {
            fromKubernetesVersion: 'v1.30.0',
            toKubernetesVersion: 'v1.31.0',
            controlPlaneUpgrades: [{ version: 'v1.31.0' }],
            workersUpgrades: [{ version: 'v1.31.0' }],
          },
        },
        cp: 'v1.30.0',
        md: 'v1.30.0',
        pending: ['AfterClusterUpgrade'],
      },
    },
    {
      name: 'BeforeControlPlaneUpgrade released: the control plane picks the version, the step hooks are marked',
      cluster: clusterAt('v1.31.0'),
      current: currentWith('v1.30.0', stable('v1.30.0'), 'v1.30.0'),
      pending: ['AfterClusterUpgrade'],
      answers: { BeforeControlPlaneUpgrade: go },
      want: {
        cp: 'v1.31.0',
        md: 'v1.30.0',
        pending: ['AfterClusterUpgrade', 'AfterControlPlaneUpgrade', 'AfterWorkersUpgrade', 'BeforeWorkersUpgrade'],
      },
    },
    {
      name: 'no worker behind the new version: only AfterControlPlaneUpgrade is marked for the step',
      cluster: clusterAt('v1.31.0'),
      current: currentWith('v1.30.0', stable('v1.30.0'), 'v1.31.0'),
      pending: ['AfterClusterUpgrade'],
      answers: { BeforeControlPlaneUpgrade: go },
      want: { cp: 'v1.31.0', md: 'v1.31.0', pending: ['AfterClusterUpgrade', 'AfterControlPlaneUpgrade'] },
    },
    {
      name: 'no hook is asked while the control plane upgrades',
      cluster: clusterAt('v1.31.0'),
      current: currentWith('v1.31.0', stable('v1.30.0'), 'v1.30.0'),
      pending: ['AfterClusterUpgrade', 'AfterControlPlaneUpgrade', 'AfterWorkersUpgrade', 'BeforeWorkersUpgrade'],
      answers: {},
      want: {
        cp: 'v1.31.0',
        md: 'v1.30.0',
        pending: ['AfterClusterUpgrade', 'AfterControlPlaneUpgrade', 'AfterWorkersUpgrade', 'BeforeWorkersUpgrade'],
      },
    },
    {
      name: 'a blocking AfterControlPlaneUpgrade holds the workers',
      cluster: clusterAt('v1.31.0'),
      current: currentWith('v1.31.0', stable('v1.31.0'), 'v1.30.0'),
      pending: ['AfterClusterUpgrade', 'AfterControlPlaneUpgrade', 'AfterWorkersUpgrade', 'BeforeWorkersUpgrade'],
      answers: { AfterControlPlaneUpgrade: wait },
      want: {
        cp: 'v1.31.0',
        md: 'v1.30.0',
        pending: ['AfterClusterUpgrade', 'AfterControlPlaneUpgrade', 'AfterWorkersUpgrade', 'BeforeWorkersUpgrade'],
        blocking: ['AfterControlPlaneUpgrade'],
      },
    },
    {
      name: 'AfterControlPlaneUpgrade released: BeforeWorkersUpgrade is asked from the lowest worker version',
      cluster: clusterAt('v1.31.0'),
      current: currentWith('v1.31.0', stable('v1.31.0'), 'v1.30.0'),
      pending: ['AfterClusterUpgrade', 'AfterControlPlaneUpgrade', 'AfterWorkersUpgrade', 'BeforeWorkersUpgrade'],
      answers: { AfterControlPlaneUpgrade: go },
      want: {
        call: {
          hook: 'BeforeWorkersUpgrade',
          request: {
            fromKubernetesVersion: 'v1.30.0',
            toKubernetesVersion: 'v1.31.0',
            workersUpgrades: [{ version: 'v1.31.0' }],
          },
        },
        cp: 'v1.31.0',
        md: 'v1.30.0',
        pending: ['AfterClusterUpgrade', 'AfterWorkersUpgrade', 'BeforeWorkersUpgrade'],
      },
    },
    {
      name: 'BeforeWorkersUpgrade released: the workers pick the version',
      cluster: clusterAt('v1.31.0'),
      current: currentWith('v1.31.0', stable('v1.31.0'), 'v1.30.0'),
      pending: ['AfterClusterUpgrade', 'AfterWorkersUpgrade', 'BeforeWorkersUpgrade'],
      answers: { BeforeWorkersUpgrade: go },
      want: { cp: 'v1.31.0', md: 'v1.31.0', pending: ['AfterClusterUpgrade', 'AfterWorkersUpgrade'] },
    },
    {
      name: 'workers at the version: AfterWorkersUpgrade is asked',
      cluster: clusterAt('v1.31.0'),
      current: currentWith('v1.31.0', stable('v1.31.0'), 'v1.31.0'),
      pending: ['AfterClusterUpgrade', 'AfterWorkersUpgrade'],
      answers: {},
      want: {
        call: { hook: 'AfterWorkersUpgrade', request: { kubernetesVersion: 'v1.31.0' } },
        cp: 'v1.31.0',
        md: 'v1.31.0',
        pending: ['AfterClusterUpgrade', 'AfterWorkersUpgrade'],
      },
    },
    {
      name: 'AfterWorkersUpgrade released: AfterClusterUpgrade is asked in the same computation',
      cluster: clusterAt('v1.31.0'),
      current: currentWith('v1.31.0', stable('v1.31.0'), 'v1.31.0'),
      pending: ['AfterClusterUpgrade', 'AfterWorkersUpgrade'],
      answers: { AfterWorkersUpgrade: go },
      want: {
        call: { hook: 'AfterClusterUpgrade', request: { kubernetesVersion: 'v1.31.0' } },
        cp: 'v1.31.0',
        md: 'v1.31.0',
        pending: ['AfterClusterUpgrade'],
      },
    },
    {
      name: 'a blocking AfterClusterUpgrade stays pending',
      cluster: clusterAt('v1.31.0'),
      current: currentWith('v1.31.0', stable('v1.31.0'), 'v1.31.0'),
      pending: ['AfterClusterUpgrade'],
      answers: { AfterClusterUpgrade: wait },
      want: { cp: 'v1.31.0', md: 'v1.31.0', pending: ['AfterClusterUpgrade'], blocking: ['AfterClusterUpgrade'] },
    },
    {
      name: 'AfterClusterUpgrade released: nothing is pending',
      cluster: clusterAt('v1.31.0'),
      current: currentWith('v1.31.0', stable('v1.31.0'), 'v1.31.0'),
      pending: ['AfterClusterUpgrade'],
      answers: { AfterClusterUpgrade: go },
      want: { cp: 'v1.31.0', md: 'v1.31.0', pending: [] },
    },
    {
      name: 'a before-upgrade annotation blocks like BeforeClusterUpgrade, without a call',
      cluster: clusterAt('v1.31.0', (c) => {
        c.metadata.annotations = { 'before-upgrade.hook.cluster.cluster.x-k8s.io/x': '' };
      }),
      current: currentWith('v1.30.0', stable('v1.30.0'), 'v1.30.0'),
      pending: [],
      answers: {},
      want: { cp: 'v1.30.0', md: 'v1.30.0', pending: [], blocking: ['BeforeClusterUpgrade'] },
    },
    {
      name: 'AfterControlPlaneInitialized is asked once the Cluster says ControlPlaneInitialized',
      cluster: clusterAt('v1.30.0', (c) => {
        c.status = {
          conditions: [
            {
              type: 'ControlPlaneInitialized',
              status: 'True',
              reason: 'Initialized',
              message: '',
              lastTransitionTime: '2026-01-01T00:00:00Z',
            },
          ],
        } as Cluster['status'];
      }),
      current: currentWith('v1.30.0', stable('v1.30.0'), 'v1.30.0'),
      pending: ['AfterControlPlaneInitialized'],
      answers: {},
      want: {
        call: { hook: 'AfterControlPlaneInitialized', request: {} },
        cp: 'v1.30.0',
        md: 'v1.30.0',
        pending: ['AfterControlPlaneInitialized'],
      },
    },
    {
      name: 'AfterControlPlaneInitialized waits for the condition',
      cluster: clusterAt('v1.30.0'),
      current: currentWith('v1.30.0', stable('v1.30.0'), 'v1.30.0'),
      pending: ['AfterControlPlaneInitialized'],
      answers: {},
      want: { cp: 'v1.30.0', md: 'v1.30.0', pending: ['AfterControlPlaneInitialized'] },
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const desired = decide(c.cluster, cc, c.current, c.pending, c.answers);
      assert.deepEqual(desired.hooks?.call, c.want.call);
      if (!c.want.call) {
        assert.equal(specOf(desired.controlPlane.object)['version'], c.want.cp);
        assert.equal(desired.machineDeployments['md-0']!.object.spec.template.spec.version, c.want.md);
      }
      assert.deepEqual(desired.hooks?.pending, c.want.pending);
      assert.deepEqual(
        (desired.hooks?.tracked ?? []).filter((t) => t.answer.retryAfterSeconds > 0).map((t) => t.hook),
        c.want.blocking ?? [],
      );
    });
  }

  test('a topology being created marks AfterControlPlaneInitialized', () => {
    const desired = decide(base, cc, emptyCurrent(base), [], {});
    assert.deepEqual(desired.hooks?.pending, ['AfterControlPlaneInitialized']);
    assert.equal(desired.hooks?.call, undefined);
  });

  test('without hook input (plan, the oracle) nothing about hooks is computed', () => {
    const desired = computeDesiredState(
      {
        cluster: clusterAt('v1.31.0'),
        blueprint: blueprintFor(cc),
        current: currentWith('v1.30.0', stable('v1.30.0'), 'v1.30.0'),
      },
      { randomSuffix: sequentialSuffix() },
    );
    assert.equal(desired.hooks, undefined);
    assert.equal(specOf(desired.controlPlane.object)['version'], 'v1.31.0');
  });
});

describe('the upgrade-step annotation on the desired Cluster (upstream computeCluster)', () => {
  const step = 'topology.internal.cluster.x-k8s.io/upgrade-step';
  const stepOf = (c: Cluster) => c.metadata.annotations?.[step];
  const upgrading = currentWith('v1.30.0', stable('v1.30.0'), 'v1.30.0');
  const cases: {
    name: string;
    cluster: Cluster;
    current: CurrentState;
    pending?: string[];
    want: string | undefined;
  }[] = [
    {
      name: 'is the control-plane version once the upgrade starts (AfterClusterUpgrade marked)',
      cluster: clusterAt('v1.31.0'),
      current: upgrading,
      pending: [],
      want: 'v1.31.0',
    },
    {
      name: 'is absent while BeforeClusterUpgrade has not let the upgrade start',
      cluster: clusterAt('v1.31.0'),
      current: upgrading,
      want: undefined,
    },
    {
      name: 'is dropped once AfterClusterUpgrade is called',
      cluster: clusterAt('v1.31.0', (c) => {
        c.metadata.annotations = { [step]: 'v1.31.0', 'user.example.com/keep': 'yes' };
      }),
      current: currentWith('v1.31.0', stable('v1.31.0'), 'v1.31.0'),
      pending: ['AfterClusterUpgrade'],
      want: undefined,
    },
    {
      name: 'is absent on a Cluster that is not upgrading',
      cluster: clusterAt('v1.30.0'),
      current: currentWith('v1.30.0', stable('v1.30.0'), 'v1.30.0'),
      pending: [],
      want: undefined,
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const answers = c.pending
        ? { BeforeClusterUpgrade: go, BeforeControlPlaneUpgrade: go, AfterClusterUpgrade: go }
        : { BeforeClusterUpgrade: wait };
      const desired = decide(c.cluster, cc, c.current, c.pending ?? [], answers);
      assert.equal(stepOf(desired.cluster), c.want);
      if (c.cluster.metadata.annotations?.['user.example.com/keep'])
        assert.equal(desired.cluster.metadata.annotations?.['user.example.com/keep'], 'yes');
    });
  }

  test('without hooks (lifecycle hooks off, as upstream without RuntimeSDK) follows the upgrade plans', () => {
    const compute = (cluster: Cluster, current: CurrentState) =>
      computeDesiredState({ cluster, blueprint: blueprintFor(cc), current }, { randomSuffix: sequentialSuffix() });
    assert.equal(stepOf(compute(clusterAt('v1.31.0'), upgrading).cluster), 'v1.31.0');
    assert.equal(
      stepOf(compute(clusterAt('v1.31.0'), currentWith('v1.31.0', stable('v1.31.0'), 'v1.31.0')).cluster),
      undefined,
    );
  });
});

describe('the pending-hooks annotation', () => {
  test('reads a comma-separated list, ignoring empty names and duplicates', () => {
    assert.deepEqual(computePendingHooks('B,,A,B'), ['A', 'B']);
    assert.deepEqual(computePendingHooks(undefined), []);
  });
  test('writes the sorted list, or nothing when empty', () => {
    assert.equal(
      computePendingHooksValue(['AfterWorkersUpgrade', 'AfterClusterUpgrade']),
      'AfterClusterUpgrade,AfterWorkersUpgrade',
    );
    assert.equal(computePendingHooksValue([]), undefined);
  });
});

describe('blocking hooks on the Cluster', () => {
  const tracked = [
    { hook: 'AfterControlPlaneInitialized', answer: go },
    { hook: 'BeforeClusterUpgrade', answer: { retryAfterSeconds: 40, message: 'backup' } },
    { hook: 'BeforeControlPlaneUpgrade', answer: { retryAfterSeconds: 20, message: '' } },
  ];
  test('the message names every blocking hook, as upstream AggregateMessage', () => {
    assert.equal(
      computeBlockingHooksMessage('upgrade', tracked),
      'Following hooks are blocking upgrade: BeforeClusterUpgrade: backup; BeforeControlPlaneUpgrade',
    );
    assert.equal(computeBlockingHooksMessage('upgrade', [tracked[0]!]), '');
  });
  test('the next pass is due after the lowest non-zero retryAfterSeconds', () => {
    assert.equal(computeAggregateRetryAfter(tracked), 20);
    assert.equal(computeAggregateRetryAfter([]), 0);
  });
  test('before-upgrade annotations are listed in the message', () => {
    const c = clusterAt('v1.31.0', (x) => {
      x.metadata.annotations = {
        'before-upgrade.hook.cluster.cluster.x-k8s.io/b': '',
        'before-upgrade.hook.cluster.cluster.x-k8s.io/a': '',
      };
    });
    assert.deepEqual(computeAnnotationBlock(c), {
      retryAfterSeconds: 1200,
      message:
        'annotations before-upgrade.hook.cluster.cluster.x-k8s.io/a, before-upgrade.hook.cluster.cluster.x-k8s.io/b are set',
    });
    assert.equal(computeAnnotationBlock(clusterAt('v1.31.0')), undefined);
  });
  test('a blocking BeforeClusterDelete shows on Deleting and sets the next pass', () => {
    const state = { kind: 'Deleted' as const, hooks: [{ hook: 'BeforeClusterDelete', answer: wait }] };
    assert.equal(
      computeTopologyReconciledCondition(state).condition.message,
      'Cluster is deleting. Following hooks are blocking delete: BeforeClusterDelete: wait',
    );
    assert.deepEqual(computeOutcome(state, []), { result: 'Requeue', requeueAfterMs: 30_000, changed: [] });
    assert.equal(computeTopologyReconciledCondition({ kind: 'Deleted' }).condition.message, 'Cluster is deleting');
  });
  test('a pending AfterClusterUpgrade keeps the Cluster upgrading, with the blocking hook first', () => {
    const idle = { upgrading: [], pendingUpgrade: [], deferredUpgrade: [], pendingCreate: [] };
    const state = {
      kind: 'Reconciled' as const,
      version: 'v1.31.0',
      upgrade: {
        controlPlane: {
          isPendingUpgrade: false,
          isProvisioning: false,
          isUpgrading: false,
          isScaling: false,
          isStartingUpgrade: false,
        },
        machineDeployments: idle,
        machinePools: idle,
      },
      hooks: { tracked: [{ hook: 'AfterClusterUpgrade', answer: wait }], afterClusterUpgradePending: true },
    };
    const pair = computeTopologyReconciledCondition(state);
    assert.deepEqual(
      [pair.condition.reason, pair.condition.message],
      [
        'ClusterUpgrading',
        'Cluster is upgrading to v1.31.0\n  * Following hooks are blocking upgrade: AfterClusterUpgrade: wait',
      ],
    );
    assert.deepEqual(computeOutcome(state, []), { result: 'Requeue', requeueAfterMs: 30_000, changed: [] });
  });
});
