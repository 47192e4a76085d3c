import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Cluster } from '#shared/api/core/v1beta2/cluster.ts';
import type { ClusterClass } from '#shared/api/core/v1beta2/cluster-class.ts';
import { computeDesiredState, DesiredStateError } from '#shared/topology/desired/compute-desired-state.ts';
import type { CurrentState, MachineDeploymentState, Unstructured } from '#shared/topology/types.ts';
import {
  blueprintFor,
  ClusterBuilder,
  ClusterClassBuilder,
  deepFreeze,
  emptyCurrent,
  sequentialSuffix,
} from '#test/support/builders/topology.ts';

function compute(cluster: Cluster, cc: ClusterClass, current?: Partial<CurrentState>) {
  const input = deepFreeze({ cluster, blueprint: blueprintFor(cc), current: { ...emptyCurrent(cluster), ...current } });
  return computeDesiredState(input, { randomSuffix: sequentialSuffix() });
}

const spec = (o: Unstructured) => o['spec'] as Record<string, unknown> & { machineTemplate?: Record<string, unknown> };

describe('computeDesiredState: a new Cluster', () => {
  const cluster = new ClusterBuilder().build();
  const cc = new ClusterClassBuilder().build();
  const desired = compute(cluster, cc);

  test('stamps the InfrastructureCluster from spec.template with a <cluster>- name, cluster labels and cloned-from annotations', () => {
    const ic = desired.infrastructureCluster;
    assert.equal(ic.kind, 'DockerCluster');
    assert.equal(ic.apiVersion, 'infrastructure.cluster.x-k8s.io/v1beta2');
    assert.match(ic.metadata.name ?? '', /^c1-[b-z2-9]{5}$/);
    assert.deepEqual(ic.metadata.labels, {
      'cluster.x-k8s.io/cluster-name': 'c1',
      'topology.cluster.x-k8s.io/owned': '',
    });
    assert.deepEqual(ic.metadata.annotations, {
      'cluster.x-k8s.io/cloned-from-name': 'quick-start-cluster',
      'cluster.x-k8s.io/cloned-from-groupkind': 'DockerClusterTemplate.infrastructure.cluster.x-k8s.io',
    });
    assert.deepEqual(spec(ic), { loadBalancer: { imageTag: 'v1' } });
    // NOTE: no owner yet: the pass adds the cluster shim's reference when it has the shim, the core Cluster controller
    // the Cluster's once the Cluster references both objects (upstream's desired state, likewise).
    assert.equal(ic.metadata.ownerReferences, undefined);
  });

  test('sets the control plane version, replicas, machine template reference (v1beta2 contract) and labels from template and topology', () => {
    const cp = desired.controlPlane.object;
    assert.equal(cp.kind, 'KubeadmControlPlane');
    assert.equal(spec(cp)['version'], 'v1.30.0');
    assert.equal(spec(cp)['replicas'], 3);
    const cpMachine = desired.controlPlane.infrastructureMachineTemplate!;
    assert.deepEqual((spec(cp).machineTemplate?.['spec'] as Record<string, unknown>)['infrastructureRef'], {
      apiGroup: 'infrastructure.cluster.x-k8s.io',
      kind: 'DockerMachineTemplate',
      name: cpMachine.metadata.name,
    });
    assert.equal(spec(cp).machineTemplate?.['infrastructureRef'], undefined, 'no v1beta1 field');
    assert.equal(cp.metadata.labels?.['from-template'], 'cp', 'labels from spec.template.metadata are kept');
    assert.equal(cpMachine.kind, 'DockerMachineTemplate');
    assert.equal(cpMachine.metadata.annotations?.['cluster.x-k8s.io/cloned-from-name'], 'quick-start-control-plane');
  });

  test('points the Cluster at the InfrastructureCluster and ControlPlane (apiGroup/kind/name) and labels it', () => {
    assert.deepEqual(desired.cluster.spec?.infrastructureRef, {
      apiGroup: 'infrastructure.cluster.x-k8s.io',
      kind: 'DockerCluster',
      name: desired.infrastructureCluster.metadata.name,
    });
    assert.equal(desired.cluster.spec?.controlPlaneRef?.kind, 'KubeadmControlPlane');
    assert.equal(desired.cluster.metadata.labels?.['topology.cluster.x-k8s.io/owned'], '');
  });

  test('creates one MachineDeployment per topology with selector, labels, version and cloned templates', () => {
    const md = desired.machineDeployments['md-0']!;
    assert.match(md.object.metadata.name ?? '', /^c1-md-0-[b-z2-9]{5}$/);
    assert.equal(md.object.spec.replicas, 2);
    assert.deepEqual(md.object.spec.selector.matchLabels, {
      'cluster.x-k8s.io/cluster-name': 'c1',
      'topology.cluster.x-k8s.io/owned': '',
      'topology.cluster.x-k8s.io/deployment-name': 'md-0',
    });
    assert.deepEqual(md.object.spec.template.metadata?.labels, md.object.metadata.labels);
    assert.equal(md.object.spec.template.spec.version, 'v1.30.0');
    assert.equal(md.object.spec.template.spec.infrastructureRef.name, md.infrastructureMachineTemplate.metadata.name);
    assert.equal(md.object.spec.template.spec.bootstrap.configRef?.kind, 'KubeadmConfigTemplate');
    assert.equal(md.bootstrapTemplate.metadata.labels?.['topology.cluster.x-k8s.io/deployment-name'], 'md-0');
    assert.match(md.bootstrapTemplate.metadata.name ?? '', /^c1-md-0-/);
  });

  test('adds no MachineHealthCheck when neither class nor topology defines one', () => {
    assert.equal(desired.controlPlane.machineHealthCheck, undefined);
    assert.equal(desired.machineDeployments['md-0']!.machineHealthCheck, undefined);
  });

  test('reports a stable control plane and nothing pending', () => {
    assert.deepEqual(desired.upgrade.machineDeployments.pendingCreate, []);
    assert.equal(desired.upgrade.controlPlane.isPendingUpgrade, false);
  });
});

describe('computeDesiredState: class values, topology overrides and metadata', () => {
  const cc = new ClusterClassBuilder()
    .with((c) => {
      c.spec.controlPlane.metadata = { labels: { tier: 'class', a: 'class' }, annotations: { note: 'class' } };
      c.spec.controlPlane.deletion = { nodeDrainTimeoutSeconds: 60 };
      c.spec.controlPlane.readinessGates = [{ conditionType: 'ClassGate' }];
      const md = c.spec.workers!.machineDeployments![0]!;
      md.metadata = { labels: { pool: 'class', keep: 'yes' } };
      md.minReadySeconds = 5;
      md.deletion = { nodeDrainTimeoutSeconds: 120, order: 'Oldest' };
      md.failureDomain = 'fd-class';
      md.rollout = { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 } } };
      md.taints = [{ key: 'class-taint', effect: 'NoSchedule', propagation: 'Always' }];
    })
    .build();
  const cluster = new ClusterBuilder()
    .with((c) => {
      c.spec!.topology!.controlPlane = {
        metadata: { labels: { tier: 'topology' } },
        deletion: { nodeDrainTimeoutSeconds: 540 },
        taints: [{ key: 'cp-taint', effect: 'NoExecute', propagation: 'OnInitialization' }],
      };
    })
    .machineDeployments([
      {
        class: 'default-worker',
        name: 'md-a',
        metadata: { labels: { pool: 'topology' } },
        minReadySeconds: 7,
        failureDomain: 'fd-1',
      },
    ])
    .build();
  const desired = compute(cluster, cc);

  test('topology labels win over class labels; class-only labels stay', () => {
    assert.equal(desired.controlPlane.object.metadata.labels?.['tier'], 'topology');
    assert.equal(desired.controlPlane.object.metadata.labels?.['a'], 'class');
    const md = desired.machineDeployments['md-a']!.object;
    assert.equal(md.metadata.labels?.['pool'], 'topology');
    assert.equal(md.metadata.labels?.['keep'], 'yes');
  });

  test('labels and annotations also land on the control plane machine template metadata', () => {
    const mt = spec(desired.controlPlane.object).machineTemplate?.['metadata'] as {
      labels: Record<string, string>;
      annotations: Record<string, string>;
    };
    assert.equal(mt.labels['tier'], 'topology');
    assert.equal(mt.annotations['note'], 'class');
  });

  test('topology timeouts override the class; class values apply when the topology is silent', () => {
    const machineSpec = spec(desired.controlPlane.object).machineTemplate?.['spec'] as Record<string, unknown>;
    assert.deepEqual(machineSpec['deletion'], { nodeDrainTimeoutSeconds: 540 });
    const md = desired.machineDeployments['md-a']!.object;
    assert.equal(md.spec.template.spec.minReadySeconds, 7);
    assert.deepEqual(md.spec.template.spec.deletion, { nodeDrainTimeoutSeconds: 120 });
    assert.deepEqual(md.spec.deletion, { order: 'Oldest' });
    assert.equal(md.spec.template.spec.failureDomain, 'fd-1');
    assert.deepEqual(md.spec.rollout, { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 } } });
  });

  test('readiness gates and taints go to the ControlPlane machine template and the MachineDeployment (v1beta2 paths)', () => {
    const machineSpec = spec(desired.controlPlane.object).machineTemplate?.['spec'] as Record<string, unknown>;
    assert.deepEqual(machineSpec['readinessGates'], [{ conditionType: 'ClassGate' }]);
    assert.deepEqual(machineSpec['taints'], [
      { key: 'cp-taint', effect: 'NoExecute', propagation: 'OnInitialization' },
    ]);
    const md = desired.machineDeployments['md-a']!.object;
    assert.deepEqual(md.spec.template.spec.taints, [
      { key: 'class-taint', effect: 'NoSchedule', propagation: 'Always' },
    ]);
  });

  test('replicas are left out when the topology does not set them', () => {
    assert.equal(desired.machineDeployments['md-a']!.object.spec.replicas, undefined);
    assert.equal(spec(desired.controlPlane.object)['replicas'], undefined);
  });
});

describe('computeDesiredState: existing objects keep their names', () => {
  test('reuses the names referenced by the Cluster and the current MachineDeployment', () => {
    const cc = new ClusterClassBuilder().build();
    const first = compute(new ClusterBuilder().build(), cc);
    const cluster = new ClusterBuilder()
      .with((c) => {
        c.spec!.infrastructureRef = {
          apiGroup: 'infrastructure.cluster.x-k8s.io',
          kind: 'DockerCluster',
          name: 'c1-existing',
        };
        c.spec!.controlPlaneRef = {
          apiGroup: 'controlplane.cluster.x-k8s.io',
          kind: 'KubeadmControlPlane',
          name: 'c1-cp',
        };
      })
      .build();
    const md = first.machineDeployments['md-0']!;
    const current: Partial<CurrentState> = {
      machineDeployments: {
        'md-0': {
          object: { ...md.object, metadata: { ...md.object.metadata, name: 'c1-md-0-keep1' } },
          bootstrapTemplate: md.bootstrapTemplate,
          infrastructureMachineTemplate: md.infrastructureMachineTemplate,
        },
      },
    };
    const desired = compute(cluster, cc, current);
    assert.equal(desired.infrastructureCluster.metadata.name, 'c1-existing');
    assert.equal(desired.controlPlane.object.metadata.name, 'c1-cp');
    assert.equal(desired.machineDeployments['md-0']!.object.metadata.name, 'c1-md-0-keep1');
    assert.equal(
      desired.machineDeployments['md-0']!.infrastructureMachineTemplate.metadata.name,
      md.infrastructureMachineTemplate.metadata.name,
    );
  });

  test('uses the ClusterClass naming template', () => {
    const cc = new ClusterClassBuilder()
      .with((c) => {
        c.spec.infrastructure.naming = { template: '{{ .cluster.name }}-infra' };
        c.spec.controlPlane.naming = { template: '{{ .cluster.name }}-cp' };
        c.spec.workers!.machineDeployments![0]!.naming = {
          template: 'md-{{ .machineDeployment.topologyName }}-{{ .cluster.name }}',
        };
      })
      .build();
    const desired = compute(new ClusterBuilder().build(), cc);
    assert.equal(desired.infrastructureCluster.metadata.name, 'c1-infra', 'spec.infrastructure.naming is honoured');
    assert.equal(desired.controlPlane.object.metadata.name, 'c1-cp');
    assert.equal(desired.machineDeployments['md-0']!.object.metadata.name, 'md-md-0-c1');
  });

  test('a naming template with an unknown key fails with the template named', () => {
    const cc = new ClusterClassBuilder()
      .with((c) => (c.spec.controlPlane.naming = { template: '{{ .nope }}' }))
      .build();
    assert.throws(
      () => compute(new ClusterBuilder().build(), cc),
      /failed to compute ControlPlane: failed to generate name for ControlPlane: naming template "\{\{ \.nope \}\}"/,
    );
  });

  test("a failure after the upgrade plan carries the plan (upstream's ComputeUpgradePlanSucceeded), one before it none", () => {
    const failure = (cc: ClusterClass): DesiredStateError => {
      try {
        compute(new ClusterBuilder().build(), cc);
      } catch (err) {
        assert.ok(err instanceof DesiredStateError, String(err));
        return err;
      }
      assert.fail('the computation did not fail');
    };
    const afterPlan = failure(
      new ClusterClassBuilder().with((c) => (c.spec.controlPlane.naming = { template: '{{ .nope }}' })).build(),
    );
    assert.deepEqual(afterPlan.upgradePlans, { controlPlane: [], machineDeployments: [], machinePools: [] });
    const beforePlan = failure(
      new ClusterClassBuilder().with((c) => (c.spec.infrastructure.naming = { template: '{{ .nope }}' })).build(),
    );
    assert.match(beforePlan.message, /failed to compute InfrastructureCluster/);
    assert.equal(beforePlan.upgradePlans, undefined);
  });
});

function currentWith(
  cluster: Cluster,
  cc: ClusterClass,
  cp: { specVersion: string; status?: Record<string, unknown> },
  mds: Record<string, { version: string; upgrading?: boolean }> = {},
): Partial<CurrentState> {
  const first = compute(cluster, cc);
  const cpObject = {
    ...first.controlPlane.object,
    spec: { ...spec(first.controlPlane.object), version: cp.specVersion },
    ...(cp.status ? { status: cp.status } : {}),
  };
  const machineDeployments: Record<string, MachineDeploymentState> = {};
  for (const [name, md] of Object.entries(mds)) {
    const d = first.machineDeployments[name]!;
    machineDeployments[name] = {
      object: {
        ...d.object,
        spec: {
          ...d.object.spec,
          template: { ...d.object.spec.template, spec: { ...d.object.spec.template.spec, version: md.version } },
        },
      },
      bootstrapTemplate: d.bootstrapTemplate,
      infrastructureMachineTemplate: d.infrastructureMachineTemplate,
      ...(md.upgrading ? { upgrading: true } : {}),
    };
  }
  return {
    controlPlane: {
      object: cpObject,
      contract: 'v1beta2',
      infrastructureMachineTemplate: first.controlPlane.infrastructureMachineTemplate,
    },
    machineDeployments,
  };
}

const stableStatus = (version: string) => ({
  version,
  replicas: 3,
  upToDateReplicas: 3,
  readyReplicas: 3,
  availableReplicas: 3,
});

describe('computeDesiredState: upgrades roll out control plane first', () => {
  const cc = new ClusterClassBuilder().build();
  const upgraded = new ClusterBuilder()
    .with((c) => (c.spec!.topology!.version = 'v1.31.0'))
    .machineDeployments([
      { class: 'default-worker', name: 'md-0' },
      { class: 'default-worker', name: 'md-1' },
    ])
    .build();
  const base = new ClusterBuilder()
    .machineDeployments([
      { class: 'default-worker', name: 'md-0' },
      { class: 'default-worker', name: 'md-1' },
    ])
    .build();
  const mdVersion = (d: ReturnType<typeof compute>, n: string) =>
    d.machineDeployments[n]!.object.spec.template.spec.version;
  const cpVersion = (d: ReturnType<typeof compute>) => spec(d.controlPlane.object)['version'];

  const cases: {
    name: string;
    cp: { specVersion: string; status?: Record<string, unknown> };
    mds: Record<string, { version: string; upgrading?: boolean }>;
    annotations?: Record<string, string>;
    mdAnnotations?: Record<string, Record<string, string>>;
    want: { cp: string; md0: string; md1: string; pendingUpgrade?: string[]; deferred?: string[] };
  }[] = [
    {
      name: 'a stable control plane starts upgrading; workers wait',
      cp: { specVersion: 'v1.30.0', status: stableStatus('v1.30.0') },
      mds: { 'md-0': { version: 'v1.30.0' }, 'md-1': { version: 'v1.30.0' } },
      want: { cp: 'v1.31.0', md0: 'v1.30.0', md1: 'v1.30.0', pendingUpgrade: ['c1-md-0-', 'c1-md-1-'] },
    },
    {
      name: 'a control plane still provisioning keeps its version',
      cp: { specVersion: 'v1.30.0' },
      mds: { 'md-0': { version: 'v1.30.0' }, 'md-1': { version: 'v1.30.0' } },
      want: { cp: 'v1.30.0', md0: 'v1.30.0', md1: 'v1.30.0' },
    },
    {
      name: 'a control plane whose status lags its spec is upgrading; workers wait',
      cp: { specVersion: 'v1.31.0', status: stableStatus('v1.30.0') },
      mds: { 'md-0': { version: 'v1.30.0' }, 'md-1': { version: 'v1.30.0' } },
      want: { cp: 'v1.31.0', md0: 'v1.30.0', md1: 'v1.30.0' },
    },
    {
      name: 'a control plane that reports the new version lets one worker upgrade (concurrency 1)',
      cp: { specVersion: 'v1.31.0', status: stableStatus('v1.31.0') },
      mds: { 'md-0': { version: 'v1.30.0' }, 'md-1': { version: 'v1.30.0' } },
      want: { cp: 'v1.31.0', md0: 'v1.31.0', md1: 'v1.30.0' },
    },
    {
      name: 'the upgrade-concurrency annotation lets two workers upgrade at once',
      cp: { specVersion: 'v1.31.0', status: stableStatus('v1.31.0') },
      mds: { 'md-0': { version: 'v1.30.0' }, 'md-1': { version: 'v1.30.0' } },
      annotations: { 'topology.cluster.x-k8s.io/upgrade-concurrency': '2' },
      want: { cp: 'v1.31.0', md0: 'v1.31.0', md1: 'v1.31.0' },
    },
    {
      name: 'a worker still rolling out blocks the next one',
      cp: { specVersion: 'v1.31.0', status: stableStatus('v1.31.0') },
      mds: { 'md-0': { version: 'v1.31.0', upgrading: true }, 'md-1': { version: 'v1.30.0' } },
      want: { cp: 'v1.31.0', md0: 'v1.31.0', md1: 'v1.30.0' },
    },
    {
      name: 'the defer-upgrade annotation holds one worker only',
      cp: { specVersion: 'v1.31.0', status: stableStatus('v1.31.0') },
      mds: { 'md-0': { version: 'v1.30.0' }, 'md-1': { version: 'v1.30.0' } },
      mdAnnotations: { 'md-0': { 'topology.cluster.x-k8s.io/defer-upgrade': '' } },
      want: { cp: 'v1.31.0', md0: 'v1.30.0', md1: 'v1.31.0', deferred: ['c1-md-0-'] },
    },
    {
      name: 'hold-upgrade-sequence holds that worker and every later one',
      cp: { specVersion: 'v1.31.0', status: stableStatus('v1.31.0') },
      mds: { 'md-0': { version: 'v1.30.0' }, 'md-1': { version: 'v1.30.0' } },
      mdAnnotations: { 'md-0': { 'topology.cluster.x-k8s.io/hold-upgrade-sequence': '' } },
      annotations: { 'topology.cluster.x-k8s.io/upgrade-concurrency': '5' },
      want: { cp: 'v1.31.0', md0: 'v1.30.0', md1: 'v1.30.0', deferred: ['c1-md-0-', 'c1-md-1-'] },
    },
    {
      name: 'a scaling control plane does not start the upgrade',
      cp: { specVersion: 'v1.30.0', status: { ...stableStatus('v1.30.0'), readyReplicas: 2 } },
      mds: { 'md-0': { version: 'v1.30.0' }, 'md-1': { version: 'v1.30.0' } },
      want: { cp: 'v1.30.0', md0: 'v1.30.0', md1: 'v1.30.0' },
    },
    {
      name: 'workers still upgrading from a previous rollout hold the control plane upgrade',
      cp: { specVersion: 'v1.30.0', status: stableStatus('v1.30.0') },
      mds: { 'md-0': { version: 'v1.30.0', upgrading: true }, 'md-1': { version: 'v1.30.0' } },
      want: { cp: 'v1.30.0', md0: 'v1.30.0', md1: 'v1.30.0' },
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const cluster = structuredClone(upgraded);
      cluster.spec!.topology!.controlPlane = { replicas: 3 };
      if (c.annotations) cluster.metadata.annotations = c.annotations;
      for (const [name, annotations] of Object.entries(c.mdAnnotations ?? {})) {
        cluster.spec!.topology!.workers!.machineDeployments!.find((m) => m.name === name)!.metadata = { annotations };
      }
      const desired = compute(cluster, cc, currentWith(base, cc, c.cp, c.mds));
      assert.equal(cpVersion(desired), c.want.cp);
      assert.equal(mdVersion(desired, 'md-0'), c.want.md0);
      assert.equal(mdVersion(desired, 'md-1'), c.want.md1);
      if (c.want.pendingUpgrade)
        assert.deepEqual(
          desired.upgrade.machineDeployments.pendingUpgrade.map((n) => n.slice(0, 8)),
          c.want.pendingUpgrade,
        );
      if (c.want.deferred)
        assert.deepEqual(
          desired.upgrade.machineDeployments.deferredUpgrade.map((n) => n.slice(0, 8)),
          c.want.deferred,
        );
      for (const md of Object.values(desired.machineDeployments)) {
        assert.equal(
          md.object.metadata.annotations?.['topology.cluster.x-k8s.io/defer-upgrade'],
          undefined,
          'upgrade annotations are not propagated',
        );
        assert.equal(md.object.metadata.annotations?.['topology.cluster.x-k8s.io/hold-upgrade-sequence'], undefined);
      }
    });
  }

  test('a MachineDeployment created while the control plane upgrades is created at the new version and reported pendingCreate', () => {
    const cluster = structuredClone(upgraded);
    const desired = compute(
      cluster,
      cc,
      currentWith(
        base,
        cc,
        { specVersion: 'v1.31.0', status: stableStatus('v1.30.0') },
        { 'md-0': { version: 'v1.30.0' } },
      ),
    );
    assert.equal(mdVersion(desired, 'md-1'), 'v1.31.0');
    assert.deepEqual(desired.upgrade.machineDeployments.pendingCreate, ['md-1']);
  });
});

describe('computeDesiredState: MachineHealthChecks', () => {
  const checks = { unhealthyNodeConditions: [{ type: 'Ready', status: 'False', timeoutSeconds: 300 }] };
  const check = { checks };
  const cases: { name: string; cls?: object; topo?: object; want: 'none' | 'class' | 'topology' }[] = [
    { name: 'a class check is enabled by default', cls: check, want: 'class' },
    { name: 'enabled: false turns a class check off', cls: check, topo: { enabled: false }, want: 'none' },
    {
      name: 'topology checks replace the class checks',
      cls: check,
      topo: { remediation: { triggerIf: { unhealthyLessThanOrEqualTo: '40%' } } },
      want: 'topology',
    },
    { name: 'enabled: true without any check defined creates nothing', topo: { enabled: true }, want: 'none' },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const cc = new ClusterClassBuilder()
        .with((x) => c.cls && (x.spec.workers!.machineDeployments![0]!.healthCheck = c.cls))
        .build();
      const cluster = new ClusterBuilder()
        .machineDeployments([{ class: 'default-worker', name: 'md-0', ...(c.topo ? { healthCheck: c.topo } : {}) }])
        .build();
      const mhc = compute(cluster, cc).machineDeployments['md-0']!.machineHealthCheck;
      if (c.want === 'none') return assert.equal(mhc, undefined);
      assert.ok(mhc);
      assert.deepEqual(mhc.spec.selector, {
        matchLabels: { 'topology.cluster.x-k8s.io/owned': '', 'topology.cluster.x-k8s.io/deployment-name': 'md-0' },
      });
      assert.equal(mhc.apiVersion, 'cluster.x-k8s.io/v1beta2');
      assert.equal(mhc.spec.checks?.nodeStartupTimeoutSeconds, 600, 'defaulted as upstream webhook does');
      if (c.want === 'class') {
        assert.deepEqual(mhc.spec.checks?.unhealthyNodeConditions, checks.unhealthyNodeConditions);
        assert.equal(mhc.spec.remediation, undefined);
      } else assert.deepEqual(mhc.spec.remediation, { triggerIf: { unhealthyLessThanOrEqualTo: '40%' } });
    });
  }

  test('the control plane check selects control plane machines and is named after the control plane', () => {
    const cc = new ClusterClassBuilder().with((x) => (x.spec.controlPlane.healthCheck = check)).build();
    const desired = compute(new ClusterBuilder().build(), cc);
    const mhc = desired.controlPlane.machineHealthCheck!;
    assert.equal(mhc.metadata.name, desired.controlPlane.object.metadata.name);
    assert.deepEqual(mhc.spec.selector.matchLabels, {
      'topology.cluster.x-k8s.io/owned': '',
      'cluster.x-k8s.io/control-plane': '',
    });
  });
});

describe('computeDesiredState: managed control planes', () => {
  test('a control plane without machine infrastructure and without replicas gets neither field', () => {
    const cc = new ClusterClassBuilder().with((x) => delete x.spec.controlPlane.machineInfrastructure).build();
    const cluster = new ClusterBuilder().with((c) => (c.spec!.topology!.controlPlane = {})).build();
    const desired = compute(cluster, cc);
    assert.equal(desired.controlPlane.infrastructureMachineTemplate, undefined);
    assert.equal(spec(desired.controlPlane.object).machineTemplate, undefined);
    assert.equal(spec(desired.controlPlane.object)['replicas'], undefined);
    assert.equal(spec(desired.controlPlane.object)['version'], 'v1.30.0');
  });

  test('an unknown MachineDeployment class names the topology and the class', () => {
    const cluster = new ClusterBuilder().machineDeployments([{ class: 'nope', name: 'md-x' }]).build();
    assert.throws(
      () => compute(cluster, new ClusterClassBuilder().build()),
      /MachineDeployment class nope not found in ClusterClass default\/quick-start/,
    );
  });
});

describe('computeDesiredState: the ControlPlane is written in the shape of its provider contract', () => {
  const cc = new ClusterClassBuilder()
    .with((c) => {
      c.spec.controlPlane.deletion = { nodeDrainTimeoutSeconds: 90, nodeDeletionTimeoutSeconds: 0 };
      c.spec.controlPlane.readinessGates = [{ conditionType: 'Gate', polarity: 'Negative' }];
    })
    .build();
  const cluster = new ClusterBuilder().build();
  const computeWith = (contract: 'v1beta1' | 'v1beta2') =>
    computeDesiredState(
      deepFreeze({
        cluster,
        blueprint: { ...blueprintFor(cc), controlPlaneContract: contract },
        current: emptyCurrent(cluster),
      }),
      { randomSuffix: sequentialSuffix() },
    );

  test('v1beta2: machineTemplate.spec.infrastructureRef (apiGroup/kind/name), deletion.*Seconds, spec.readinessGates', () => {
    const desired = computeWith('v1beta2');
    const mt = spec(desired.controlPlane.object).machineTemplate!;
    assert.deepEqual(Object.keys(mt).sort(), ['metadata', 'spec']);
    const machineSpec = mt['spec'] as Record<string, unknown>;
    assert.deepEqual(machineSpec['infrastructureRef'], {
      apiGroup: 'infrastructure.cluster.x-k8s.io',
      kind: 'DockerMachineTemplate',
      name: desired.controlPlane.infrastructureMachineTemplate!.metadata.name,
    });
    assert.deepEqual(machineSpec['deletion'], { nodeDrainTimeoutSeconds: 90, nodeDeletionTimeoutSeconds: 0 });
    assert.deepEqual(machineSpec['readinessGates'], [{ conditionType: 'Gate', polarity: 'Negative' }]);
    assert.equal(desired.controlPlane.contract, 'v1beta2');
  });

  test('v1beta1: machineTemplate.infrastructureRef with apiVersion and namespace, durations, machineTemplate.readinessGates', () => {
    const desired = computeWith('v1beta1');
    const mt = spec(desired.controlPlane.object).machineTemplate!;
    assert.equal(mt['spec'], undefined, 'no v1beta2 field');
    assert.deepEqual(mt['infrastructureRef'], {
      apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta2',
      kind: 'DockerMachineTemplate',
      name: desired.controlPlane.infrastructureMachineTemplate!.metadata.name,
      namespace: 'default',
    });
    assert.equal(mt['nodeDrainTimeout'], '1m30s');
    assert.equal(mt['nodeDeletionTimeout'], '0s');
    assert.deepEqual(mt['readinessGates'], [{ conditionType: 'Gate', polarity: 'Negative' }]);
  });

  test('a ControlPlane template without spec.template is accepted (upstream v1.14 KubeadmControlPlaneTemplate)', () => {
    const blueprint = blueprintFor(cc);
    const bare = { ...blueprint.controlPlaneTemplate, spec: {} };
    const desired = computeDesiredState(
      deepFreeze({ cluster, blueprint: { ...blueprint, controlPlaneTemplate: bare }, current: emptyCurrent(cluster) }),
      { randomSuffix: sequentialSuffix() },
    );
    assert.equal(desired.controlPlane.object.kind, 'KubeadmControlPlane');
    assert.equal(spec(desired.controlPlane.object)['version'], 'v1.30.0');
  });
});

describe('computeDesiredState: patches never take over what the topology writes into the ControlPlane', () => {
  test('a ControlPlane patch keeps the v1beta2 machineTemplate.spec (infrastructureRef, deletion, readinessGates)', () => {
    const cc = new ClusterClassBuilder()
      .with((c) => {
        c.spec.controlPlane.deletion = { nodeDrainTimeoutSeconds: 30 };
        c.spec.controlPlane.readinessGates = [{ conditionType: 'Gate' }];
      })
      .patches([
        {
          name: 'cp',
          definitions: [
            {
              selector: {
                apiVersion: 'controlplane.cluster.x-k8s.io/v1beta2',
                kind: 'KubeadmControlPlaneTemplate',
                matchResources: { controlPlane: true },
              },
              jsonPatches: [
                { op: 'add', path: '/spec/template/spec/rolloutStrategy', value: { type: 'RollingUpdate' } },
              ],
            },
          ],
        },
      ])
      .build();
    const desired = compute(new ClusterBuilder().build(), cc);
    const cp = spec(desired.controlPlane.object);
    assert.deepEqual(cp['rolloutStrategy'], { type: 'RollingUpdate' }, 'the patch applied');
    const machineSpec = cp.machineTemplate?.['spec'] as Record<string, unknown>;
    assert.deepEqual(machineSpec['infrastructureRef'], {
      apiGroup: 'infrastructure.cluster.x-k8s.io',
      kind: 'DockerMachineTemplate',
      name: desired.controlPlane.infrastructureMachineTemplate!.metadata.name,
    });
    assert.deepEqual(machineSpec['deletion'], { nodeDrainTimeoutSeconds: 30 });
    assert.deepEqual(machineSpec['readinessGates'], [{ conditionType: 'Gate' }]);
  });
});
