// Regressions injected into one side's raw snapshots (one, or a step's polls through the scenario observer), fed through the differential's own normalisation, comparison
// and known differences (test/diff): each must come back as at least one unknown difference. The untouched pairs
// (a converged topology; a control plane refused at creation) come back with known differences only, so a
// regression's unknown is its own.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { KubeObject } from '#shared/kube/index.ts';
import {
  buildRawSnapshot,
  freezeRaw,
  randomSuffix,
  type MutableRawSnapshot,
} from '#test/support/builders/diff-snapshot.ts';
import { knownDifferences } from '#test/diff/known-differences.ts';
import { computeNormalizedSnapshot } from '#test/diff/normalize.ts';
import { createScenarioObserver } from '#test/diff/observe.ts';
import { computeStepDifferences, type ClassifiedDifference } from '#test/diff/report.ts';

const converged = { scenario: 'd01-base-variables', step: 'change a variable' };
const refused = { scenario: 'd08-maxsurge0-scale', step: 'scale md-0 to 2' };

type Case = {
  readonly name: string;
  /** The scenario and step the pair is compared in. */
  readonly at: { scenario: string; step: string };
  readonly refusedControlPlane?: boolean;
  /** Changes capi-serverless's side (or, with `side: 'upstream'`, upstream's). */
  readonly inject: (raw: MutableRawSnapshot) => void;
  readonly side?: 'upstream' | 'capi-serverless';
};

function classify(at: Case['at'], refusedControlPlane: boolean, inject?: Case['inject'], side?: Case['side']) {
  const raws = {
    upstream: buildRawSnapshot('upstream', { namespace: at.scenario, refusedControlPlane }),
    'capi-serverless': buildRawSnapshot('capi-serverless', { namespace: at.scenario, refusedControlPlane }),
  };
  inject?.(raws[side ?? 'capi-serverless']);
  return computeStepDifferences(
    at.scenario,
    at.step,
    computeNormalizedSnapshot(freezeRaw(raws.upstream)),
    computeNormalizedSnapshot(freezeRaw(raws['capi-serverless'])),
    knownDifferences,
  ).differences;
}

const unknown = (ds: readonly ClassifiedDifference[]) => ds.filter((d) => !d.rule);
const obj = (raw: MutableRawSnapshot, role: string): KubeObject & { metadata: Record<string, unknown> } => {
  const o = raw.objects[role];
  assert.ok(o, `no ${role}`);
  return o as KubeObject & { metadata: Record<string, unknown> };
};
const spec = (o: KubeObject) => o['spec'] as Record<string, unknown>;

describe('the differential without a regression', () => {
  test('a converged topology differs only by R1 (the MachineDeployment topology finalizer)', () => {
    const ds = classify(converged, false);
    assert.deepEqual(
      ds.map((d) => [d.rule, d.object, d.path]),
      [['R1', 'MachineDeployment/md-0', 'metadata.finalizers[1]']],
    );
  });

  test('a control plane refused at creation differs only by R2 (both sides own the InfrastructureCluster by the shim)', () => {
    const ds = classify(refused, true);
    assert.deepEqual(unknown(ds), []);
    assert.deepEqual([...new Set(ds.map((d) => d.rule))].sort(), ['R2a', 'R2b']);
  });
});

const cases: readonly Case[] = [
  {
    name: 'a MachineDeployment that lost every finalizer, the core one too',
    at: converged,
    inject: (raw) => {
      delete obj(raw, 'MachineDeployment/md-0').metadata['finalizers'];
    },
  },
  {
    name: 'a MachineDeployment whose core finalizer was replaced by another',
    at: converged,
    inject: (raw) => {
      obj(raw, 'MachineDeployment/md-0').metadata['finalizers'] = ['example.com/other'];
    },
  },
  {
    name: 'the topology finalizer on a bootstrap template (R1 is the MachineDeployment only)',
    at: converged,
    side: 'upstream',
    inject: (raw) => {
      obj(raw, 'MachineDeployment/md-0/BootstrapTemplate').metadata['finalizers'] = [
        'machinedeployment.topology.cluster.x-k8s.io',
      ];
    },
  },
  {
    name: 'a control-plane MachineHealthCheck missing while the control plane exists (in a maxsurge0 scenario)',
    at: refused,
    inject: (raw) => {
      const fresh = buildRawSnapshot('capi-serverless', { namespace: refused.scenario });
      Object.assign(raw, { cluster: fresh.cluster, objects: fresh.objects });
      delete raw.objects['MachineHealthCheck/ControlPlane'];
    },
  },
  {
    name: 'a control-plane MachineHealthCheck missing in a converged scenario',
    at: converged,
    inject: (raw) => {
      delete raw.objects['MachineHealthCheck/ControlPlane'];
    },
  },
  {
    name: 'a wrong controlPlaneEndpoint while the control plane is refused',
    at: refused,
    refusedControlPlane: true,
    inject: (raw) => {
      spec(obj(raw, 'InfrastructureCluster'))['controlPlaneEndpoint'] = { host: '10.0.0.7', port: 6443 };
    },
  },
  {
    name: 'a controlPlaneEndpoint missing in a converged scenario',
    at: converged,
    inject: (raw) => {
      delete spec(obj(raw, 'InfrastructureCluster'))['controlPlaneEndpoint'];
    },
  },
  {
    name: 'the InfrastructureCluster owned by another Cluster while the control plane is refused',
    at: refused,
    refusedControlPlane: true,
    inject: (raw) => {
      obj(raw, 'InfrastructureCluster').metadata['ownerReferences'] = [
        { apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Cluster', name: 'other', uid: 'x' },
      ];
    },
  },
  {
    name: 'a second owner of the InfrastructureCluster while the control plane is refused',
    at: refused,
    refusedControlPlane: true,
    inject: (raw) => {
      const refs = obj(raw, 'InfrastructureCluster').metadata['ownerReferences'] as unknown[];
      refs.push({ apiVersion: 'v1', kind: 'Secret', name: 'c-shim', uid: 'y' });
    },
  },
  {
    name: 'the InfrastructureCluster owned as controller while the control plane is refused',
    at: refused,
    refusedControlPlane: true,
    inject: (raw) => {
      const refs = obj(raw, 'InfrastructureCluster').metadata['ownerReferences'] as Record<string, unknown>[];
      refs[0]!['controller'] = true;
    },
  },
  {
    name: "the listener annotation naming another scenario's Cluster",
    at: refused,
    refusedControlPlane: true,
    inject: (raw) => {
      const annotations = obj(raw, 'InfrastructureCluster').metadata['annotations'] as Record<string, string>;
      annotations['inmemorycluster.infrastructure.cluster.x-k8s.io/listener'] = 'd01-base-variables/c';
    },
  },
  {
    name: 'the InfrastructureCluster owned by the Cluster while the control plane is refused (no shim, as before)',
    at: refused,
    refusedControlPlane: true,
    inject: (raw) => {
      obj(raw, 'InfrastructureCluster').metadata['ownerReferences'] = [
        { apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Cluster', name: 'c', uid: 'capi-serverless-c-uid' },
      ];
    },
  },
  {
    name: 'the InfrastructureCluster provisioned while the control plane is refused (finalizer)',
    at: refused,
    refusedControlPlane: true,
    inject: (raw) => {
      obj(raw, 'InfrastructureCluster').metadata['finalizers'] = ['dockercluster.infrastructure.cluster.x-k8s.io'];
    },
  },
  {
    name: 'no shim Secret while the control plane is refused',
    at: refused,
    refusedControlPlane: true,
    inject: (raw) => {
      delete raw.objects['ClusterShim'];
    },
  },
  {
    name: 'the shim Secret left over in a converged scenario',
    at: converged,
    inject: (raw) => {
      raw.objects['ClusterShim'] = JSON.parse(
        JSON.stringify(
          buildRawSnapshot('capi-serverless', { namespace: converged.scenario, refusedControlPlane: true }).objects[
            'ClusterShim'
          ],
        ),
      ) as KubeObject;
    },
  },
  {
    name: 'the shim Secret owned by nothing while the control plane is refused',
    at: refused,
    refusedControlPlane: true,
    inject: (raw) => {
      obj(raw, 'ClusterShim').metadata['ownerReferences'] = [];
    },
  },
  {
    name: 'the shim owner reference in a converged scenario',
    at: converged,
    inject: (raw) => {
      obj(raw, 'InfrastructureCluster').metadata['ownerReferences'] = [
        { apiVersion: 'v1', kind: 'Secret', name: 'c-shim', uid: 'y' },
      ];
    },
  },
  {
    name: 'a leaked control-plane MachineHealthCheck on capi-serverless’s side',
    at: refused,
    refusedControlPlane: true,
    inject: (raw) => {
      const copy = JSON.parse(
        JSON.stringify(
          buildRawSnapshot('upstream', { namespace: refused.scenario, refusedControlPlane: true }).leftovers[0],
        ),
      ) as KubeObject;
      raw.leftovers.push(copy);
    },
  },
  {
    name: 'an upstream leaked control-plane MachineHealthCheck whose capi-topology field set owns one field more (R2b)',
    at: refused,
    refusedControlPlane: true,
    side: 'upstream',
    inject: (raw) => {
      const fields = (
        raw.leftovers[0]!.metadata as { managedFields: { fieldsV1: Record<string, Record<string, unknown>> }[] }
      ).managedFields[0]!.fieldsV1;
      fields['f:spec']!['f:remediation'] = {};
    },
  },
  {
    name: 'an upstream leaked control-plane MachineHealthCheck capi-topology does not own (R2b)',
    at: refused,
    refusedControlPlane: true,
    side: 'upstream',
    inject: (raw) => {
      delete (raw.leftovers[0]!.metadata as { managedFields?: unknown }).managedFields;
    },
  },
  {
    name: "R4d's Cluster field set (no controlPlaneRef) once the control plane exists (R4d needs it refused)",
    at: converged,
    inject: (raw) => {
      raw.cluster!.metadata = {
        ...raw.cluster!.metadata,
        managedFields: [
          {
            manager: 'capi-topology',
            operation: 'Apply',
            fieldsType: 'FieldsV1',
            fieldsV1: {
              'f:metadata': {
                'f:labels': { 'f:cluster.x-k8s.io/cluster-name': {}, 'f:topology.cluster.x-k8s.io/owned': {} },
              },
              'f:spec': { 'f:infrastructureRef': { 'f:apiGroup': {}, 'f:kind': {}, 'f:name': {} } },
            },
          },
        ],
      } as KubeObject['metadata'];
    },
  },
  {
    name: 'capi-serverless owning a controlPlaneRef while the control plane is refused (R4d is the infrastructureRef only)',
    at: refused,
    refusedControlPlane: true,
    inject: (raw) => {
      const fields = {
        'f:metadata': {
          'f:labels': { 'f:cluster.x-k8s.io/cluster-name': {}, 'f:topology.cluster.x-k8s.io/owned': {} },
        },
        'f:spec': { 'f:infrastructureRef': { 'f:apiGroup': {}, 'f:kind': {}, 'f:name': {} } },
      } as { 'f:spec': Record<string, unknown> };
      fields['f:spec']['f:controlPlaneRef'] = { 'f:apiGroup': {}, 'f:kind': {}, 'f:name': {} };
      raw.cluster!.metadata = {
        ...raw.cluster!.metadata,
        managedFields: [{ manager: 'capi-topology', operation: 'Apply', fieldsType: 'FieldsV1', fieldsV1: fields }],
      } as KubeObject['metadata'];
    },
  },
  {
    name: 'a wrong label value on a MachineDeployment',
    at: converged,
    inject: (raw) => {
      (obj(raw, 'MachineDeployment/md-0').metadata['labels'] as Record<string, string>)[
        'topology.cluster.x-k8s.io/deployment-name'
      ] = 'md-1';
    },
  },
  {
    name: 'a dropped annotation on the control plane',
    at: converged,
    inject: (raw) => {
      obj(raw, 'ControlPlane').metadata['annotations'] = {};
    },
  },
  {
    name: "a missing MachineDeployment's MachineHealthCheck",
    at: converged,
    inject: (raw) => {
      delete raw.objects['MachineHealthCheck/MachineDeployment/md-0'];
    },
  },
  {
    name: 'an extra MachineDeployment',
    at: converged,
    inject: (raw) => {
      const md = JSON.parse(JSON.stringify(obj(raw, 'MachineDeployment/md-0'))) as KubeObject;
      raw.objects['MachineDeployment/md-9'] = { ...md, metadata: { ...md.metadata, name: 'c-md-9-bcdfg' } };
    },
  },
  {
    name: 'an old template left over',
    at: converged,
    inject: (raw) => {
      const t = JSON.parse(JSON.stringify(obj(raw, 'MachineDeployment/md-0/InfrastructureTemplate'))) as KubeObject;
      raw.leftovers.push({ ...t, metadata: { ...t.metadata, name: 'c-md-0-zzzzz' } });
    },
  },
  {
    name: 'the control plane at another version',
    at: converged,
    inject: (raw) => {
      spec(obj(raw, 'ControlPlane'))['version'] = 'v1.37.0';
    },
  },
  {
    name: 'a field capi-topology no longer owns (the control plane version, left to whoever wrote it last)',
    at: converged,
    inject: (raw) => {
      const entry = (obj(raw, 'ControlPlane').metadata['managedFields'] as { fieldsV1: { 'f:spec': object } }[])[0]!;
      delete (entry.fieldsV1['f:spec'] as Record<string, unknown>)['f:version'];
    },
  },
  {
    name: 'a field capi-topology owns that upstream does not (an annotation it should not apply)',
    at: converged,
    inject: (raw) => {
      const entry = (
        obj(raw, 'ControlPlane').metadata['managedFields'] as { fieldsV1: { 'f:metadata': object } }[]
      )[0]!;
      (entry.fieldsV1['f:metadata'] as Record<string, unknown>)['f:annotations'] = { 'f:example.com/x': {} };
    },
  },
  {
    name: "capi-topology owning the Cluster's upgrade-step annotation outside the deferred upgrade (R4b's value, another scenario)",
    at: converged,
    inject: (raw) => {
      raw.cluster!.metadata = {
        ...raw.cluster!.metadata,
        managedFields: [
          {
            manager: 'capi-topology',
            operation: 'Apply',
            fieldsType: 'FieldsV1',
            fieldsV1: {
              'f:metadata': {
                'f:annotations': { 'f:topology.internal.cluster.x-k8s.io/upgrade-step': {} },
                'f:labels': { 'f:cluster.x-k8s.io/cluster-name': {}, 'f:topology.cluster.x-k8s.io/owned': {} },
              },
              'f:spec': {
                'f:controlPlaneRef': { 'f:apiGroup': {}, 'f:kind': {}, 'f:name': {} },
                'f:infrastructureRef': { 'f:apiGroup': {}, 'f:kind': {}, 'f:name': {} },
              },
            },
          },
        ],
      };
    },
  },
  {
    name: "capi-topology owning the upgrade-step annotation in the hold family after the hold is removed (R4c's value, the next step)",
    at: { scenario: 'd74-family-hold-concurrency', step: 'remove the hold-upgrade-sequence annotation' },
    inject: (raw) => {
      raw.cluster!.metadata = {
        ...raw.cluster!.metadata,
        managedFields: [
          {
            manager: 'capi-topology',
            operation: 'Apply',
            fieldsType: 'FieldsV1',
            fieldsV1: {
              'f:metadata': {
                'f:annotations': { 'f:topology.internal.cluster.x-k8s.io/upgrade-step': {} },
                'f:labels': { 'f:cluster.x-k8s.io/cluster-name': {}, 'f:topology.cluster.x-k8s.io/owned': {} },
              },
              'f:spec': {
                'f:controlPlaneRef': { 'f:apiGroup': {}, 'f:kind': {}, 'f:name': {} },
                'f:infrastructureRef': { 'f:apiGroup': {}, 'f:kind': {}, 'f:name': {} },
              },
            },
          },
        ],
      };
    },
  },
  {
    name: 'another TopologyReconciled reason',
    at: converged,
    inject: (raw) => {
      const status = raw.cluster!['status'] as { conditions: Record<string, unknown>[] };
      status.conditions[0]!['reason'] = 'ClusterUpgrading';
    },
  },
];

describe('an injected regression comes back unknown', () => {
  for (const c of cases)
    test(c.name, () => {
      const ds = classify(c.at, c.refusedControlPlane ?? false, c.inject, c.side);
      assert.ok(
        unknown(ds).length > 0,
        `every difference was accepted:\n${ds.map((d) => `${d.rule} ${d.object} ${d.path}`).join('\n')}`,
      );
    });
});

type Poll = Parameters<typeof buildRawSnapshot>[1] & { topologyReconciled?: Record<string, string> };

/** Two steps on each side, each step a sequence of polls through the side's scenario observer; the second compared. */
function classifyPolls(steps: { upstream: Poll[][]; capiServerless: Poll[][] }, at = converged) {
  const run = (side: 'upstream' | 'capi-serverless', polls: Poll[][]) => {
    const observer = createScenarioObserver();
    let last = {};
    for (const step of polls) {
      observer.startStep();
      for (const poll of step) {
        const raw = buildRawSnapshot(side, { ...poll, namespace: at.scenario });
        if (poll.topologyReconciled)
          Object.assign((raw.cluster!['status'] as { conditions: object[] }).conditions[0]!, poll.topologyReconciled);
        last = observer.observe(freezeRaw(raw));
      }
    }
    return { ...last, Trajectories: observer.trajectories() };
  };
  return computeStepDifferences(
    at.scenario,
    at.step,
    run('upstream', steps.upstream),
    run('capi-serverless', steps.capiServerless),
    knownDifferences,
  ).differences;
}

const upgrading = { status: 'False', reason: 'ClusterUpgrading', message: 'Control plane upgrading to v1.37.0' };

describe('over the polls of a step', () => {
  test('the same rotation on both sides, the same upgrade order: only R1', () => {
    const steps = [
      [{ namespace: '' }],
      [
        { namespace: '', mdInfraRotation: 1 },
        {
          namespace: '',
          mdInfraRotation: 1,
          version: 'v1.37.0',
          workerVersion: 'v1.36.0',
          topologyReconciled: upgrading,
        },
        { namespace: '', mdInfraRotation: 1, version: 'v1.37.0' },
      ],
    ];
    const ds = classifyPolls({ upstream: steps, capiServerless: steps });
    assert.deepEqual(unknown(ds), []);
  });

  test('templates seen as leftovers before their owners reference them (one side only) are no rotation', () => {
    const early = (raw: MutableRawSnapshot) => {
      for (const role of ['ControlPlane/InfrastructureTemplate', 'MachineDeployment/md-0/InfrastructureTemplate']) {
        raw.leftovers.push(raw.objects[role]!);
        delete raw.objects[role];
      }
    };
    const observe = (side: 'upstream' | 'capi-serverless', first?: (raw: MutableRawSnapshot) => void) => {
      const observer = createScenarioObserver();
      observer.startStep();
      const raw = buildRawSnapshot(side, { namespace: converged.scenario });
      first?.(raw);
      observer.observe(freezeRaw(raw));
      return observer.observe(freezeRaw(buildRawSnapshot(side, { namespace: converged.scenario })));
    };
    const ds = computeStepDifferences(
      converged.scenario,
      converged.step,
      observe('upstream'),
      observe('capi-serverless', early),
      knownDifferences,
    ).differences;
    assert.deepEqual(unknown(ds), []);
  });

  test("control-plane health checks seen before the control plane (one side only) do not count as the control plane's names", () => {
    // NOTE: d07 of 2026-11-28: capi-serverless created (and, refused, deleted) a control-plane MachineHealthCheck on
    // each retry before the KubeadmControlPlane; once the control plane was admitted a poll saw its health check
    // first, and the control plane got `c-<4>` against upstream's `c-<1>`.
    const observe = (side: 'upstream' | 'capi-serverless', transient: number) => {
      const observer = createScenarioObserver();
      observer.startStep();
      const settled = buildRawSnapshot(side, { namespace: converged.scenario });
      for (let i = 0; i <= transient; i++) {
        const raw = buildRawSnapshot(side, { namespace: converged.scenario });
        const mhc = raw.objects['MachineHealthCheck/ControlPlane']!;
        // the last one carries the control plane's name: the poll before the control plane was created
        if (i < transient) mhc.metadata.name = `c-${randomSuffix(side, 40 + i)}`;
        raw.objects = {
          InfrastructureCluster: raw.objects['InfrastructureCluster']!,
          'MachineHealthCheck/ControlPlane': mhc,
        };
        observer.observe(freezeRaw(raw));
      }
      return observer.observe(freezeRaw(settled));
    };
    const ds = computeStepDifferences(
      converged.scenario,
      converged.step,
      observe('upstream', 0),
      observe('capi-serverless', 3),
      knownDifferences,
    ).differences;
    assert.deepEqual(unknown(ds), []);
  });

  test('a needless template rotation on one side comes back unknown', () => {
    const ds = classifyPolls({
      upstream: [[{ namespace: '' }], [{ namespace: '' }]],
      capiServerless: [[{ namespace: '' }], [{ namespace: '', mdInfraRotation: 1 }]],
    });
    assert.ok(
      unknown(ds).some(
        (d) => d.object === 'MachineDeployment/md-0/InfrastructureTemplate' && d.path === 'metadata.name',
      ),
      JSON.stringify(ds),
    );
  });

  test('a rotation done twice on one side (a new name, then another) comes back unknown', () => {
    const ds = classifyPolls({
      upstream: [[{ namespace: '' }], [{ namespace: '', mdInfraRotation: 1 }]],
      capiServerless: [
        [{ namespace: '' }],
        [
          { namespace: '', mdInfraRotation: 1 },
          { namespace: '', mdInfraRotation: 2 },
        ],
      ],
    });
    assert.ok(unknown(ds).length > 0);
  });

  test('workers upgraded before the control plane comes back unknown', () => {
    const ds = classifyPolls({
      upstream: [
        [{ namespace: '' }],
        [
          { namespace: '', version: 'v1.37.0', workerVersion: 'v1.36.0' },
          { namespace: '', version: 'v1.37.0' },
        ],
      ],
      capiServerless: [
        [{ namespace: '' }],
        [
          { namespace: '', version: 'v1.36.0', workerVersion: 'v1.37.0' },
          { namespace: '', version: 'v1.37.0' },
        ],
      ],
    });
    assert.ok(
      unknown(ds).some((d) => d.object === 'Trajectories' && d.path.startsWith('versions')),
      JSON.stringify(ds),
    );
  });

  test('a TopologyReconciled state only one side went through comes back unknown', () => {
    const ds = classifyPolls({
      upstream: [[{ namespace: '' }], [{ namespace: '' }]],
      capiServerless: [
        [{ namespace: '' }],
        [
          { namespace: '', topologyReconciled: { status: 'False', reason: 'ReconcileFailed', message: 'conflict' } },
          { namespace: '' },
        ],
      ],
    });
    assert.ok(
      unknown(ds).some((d) => d.object === 'Trajectories' && d.path.startsWith('topologyReconciled')),
      JSON.stringify(ds),
    );
  });
});

describe("R5: upstream's topology controller does not watch the class's templates (d69)", () => {
  const inPlaceEdit = { scenario: 'd69-family-inplace-template', step: 'edit the worker bootstrap template in place' };
  const nextStep = {
    scenario: 'd69-family-inplace-template',
    step: 'annotate the Cluster (the next reconcile after the in-place edit)',
  };
  const base = { namespace: '' };
  const rotatedOnce = { namespace: '', mdBootstrapRotation: 1 };

  test('capi-serverless rotating md-0’s bootstrap template at the in-place edit, upstream not yet: only R1 and R5', () => {
    const ds = classifyPolls(
      { upstream: [[base], [base]], capiServerless: [[base], [base, rotatedOnce]] },
      inPlaceEdit,
    );
    assert.deepEqual(unknown(ds), []);
    assert.deepEqual([...new Set(ds.map((d) => d.rule))].sort(), ['R1', 'R5b', 'R5c']);
  });

  test('the same rotation on capi-serverless’s side only, one step later, comes back unknown', () => {
    const ds = classifyPolls({ upstream: [[base], [base]], capiServerless: [[base], [base, rotatedOnce]] }, nextStep);
    assert.ok(unknown(ds).length > 0);
  });

  test('the same rotation in another scenario comes back unknown', () => {
    const ds = classifyPolls({ upstream: [[base], [base]], capiServerless: [[base], [base, rotatedOnce]] });
    assert.ok(unknown(ds).length > 0);
  });

  test('the bootstrap template rotated twice at the in-place edit comes back unknown', () => {
    const ds = classifyPolls(
      {
        upstream: [[base], [base]],
        capiServerless: [[base], [base, rotatedOnce, { namespace: '', mdBootstrapRotation: 2 }]],
      },
      inPlaceEdit,
    );
    assert.ok(unknown(ds).length > 0);
  });

  test('upstream rotating and capi-serverless not (the other direction) comes back unknown', () => {
    const ds = classifyPolls(
      { upstream: [[base], [base, rotatedOnce]], capiServerless: [[base], [base]] },
      inPlaceEdit,
    );
    assert.ok(unknown(ds).length > 0);
  });

  test('another preKubeadmCommands value in the edited template comes back unknown', () => {
    const ds = classify(inPlaceEdit, false, (raw) => {
      const template = spec(obj(raw, 'MachineDeployment/md-0/BootstrapTemplate'))['template'] as { spec: object };
      template.spec = { preKubeadmCommands: ['echo something-else'] };
    });
    assert.ok(unknown(ds).some((d) => d.path === 'spec.template.spec.preKubeadmCommands'));
  });

  test('the edit’s own preKubeadmCommands value is R5d at the in-place edit, unknown one step later', () => {
    const inject: Case['inject'] = (raw) => {
      const template = spec(obj(raw, 'MachineDeployment/md-0/BootstrapTemplate'))['template'] as { spec: object };
      template.spec = { preKubeadmCommands: ['echo in-place'] };
    };
    assert.deepEqual(unknown(classify(inPlaceEdit, false, inject)), []);
    assert.ok(unknown(classify(nextStep, false, inject)).length > 0);
  });

  test('the revision annotation on another object at the in-place edit comes back unknown', () => {
    const ds = classify(inPlaceEdit, false, (raw) => {
      const o = obj(raw, 'ControlPlane');
      o.metadata['annotations'] = { 'machinedeployment.clusters.x-k8s.io/revision': '2' };
    });
    assert.ok(unknown(ds).length > 0);
  });
});

describe('documented timing differences of a trajectory', () => {
  const notReconciled = {
    status: 'False',
    reason: 'ReconcileFailed',
    message: 'ClusterClass is not successfully reconciled: ClusterClass.status.observedGeneration must be 2, but is 1',
  };

  test('a transient ClusterClass-not-reconciled state on one side is accepted', () => {
    const ds = classifyPolls({
      upstream: [[{ namespace: '' }], [{ namespace: '', topologyReconciled: notReconciled }, { namespace: '' }]],
      capiServerless: [[{ namespace: '' }], [{ namespace: '' }]],
    });
    assert.deepEqual(unknown(ds), []);
  });

  test('the same state as the step’s last one comes back unknown', () => {
    const ds = classifyPolls({
      upstream: [[{ namespace: '' }], [{ namespace: '', topologyReconciled: notReconciled }]],
      capiServerless: [[{ namespace: '' }], [{ namespace: '' }]],
    });
    assert.ok(unknown(ds).length > 0);
  });

  test('a transient failure of another cause comes back unknown', () => {
    const ds = classifyPolls({
      upstream: [[{ namespace: '' }], [{ namespace: '' }]],
      capiServerless: [
        [{ namespace: '' }],
        [
          {
            namespace: '',
            topologyReconciled: { status: 'False', reason: 'ReconcileFailed', message: 'spec.replicas: Invalid value' },
          },
          { namespace: '' },
        ],
      ],
    });
    assert.ok(unknown(ds).length > 0);
  });
});

describe('a trajectory rule (T1: md-1 or md-2 alone upgrading, by which finishes first, in d74 "remove the hold")', () => {
  const removeHold = { scenario: 'd74-family-hold-concurrency', step: 'remove the hold-upgrade-sequence annotation' };
  const state = (reason: string, message: string) => ({
    status: reason === 'ReconcileSucceeded' ? 'True' : 'False',
    reason,
    message,
  });
  const deferred = state(
    'MachineDeploymentsUpgradeDeferred',
    'Cluster is upgrading to v1.37.0\n  * MachineDeployments c-md-1-<1>, c-md-2-<1> upgrade to version v1.37.0 deferred using defer-upgrade or hold-upgrade-sequence annotations',
  );
  const both = state(
    'ClusterUpgrading',
    'Cluster is upgrading to v1.37.0\n  * MachineDeployments c-md-1-<1>, c-md-2-<1> upgrading to version v1.37.0',
  );
  const md2 = state(
    'ClusterUpgrading',
    'Cluster is upgrading to v1.37.0\n  * MachineDeployment c-md-2-<1> upgrading to version v1.37.0',
  );
  const md1 = state(
    'ClusterUpgrading',
    'Cluster is upgrading to v1.37.0\n  * MachineDeployment c-md-1-<1> upgrading to version v1.37.0',
  );
  const md0 = state(
    'ClusterUpgrading',
    'Cluster is upgrading to v1.37.0\n  * MachineDeployment c-md-0-<1> upgrading to version v1.37.0',
  );
  const done = state('ReconcileSucceeded', '');
  const polls = (states: readonly Record<string, string>[]): Poll[][] => [
    [{ namespace: '', topologyReconciled: deferred }],
    states.map((topologyReconciled) => ({ namespace: '', topologyReconciled })),
  ];
  const trajectoryRules = (ds: readonly ClassifiedDifference[]) =>
    ds.filter((d) => d.object === 'Trajectories').map((d) => d.rule ?? 'unknown');

  test('upstream missing the md-2 state the other side went through is T1 (the 22:53 run)', () => {
    const ds = classifyPolls({ upstream: polls([both, done]), capiServerless: polls([both, md2, done]) }, removeHold);
    assert.deepEqual(unknown(ds), []);
    assert.deepEqual([...new Set(trajectoryRules(ds))], ['T1']);
  });

  test('md-2 finishing first on one side and md-1 on the other is T1 (the 01:17 run)', () => {
    const ds = classifyPolls(
      { upstream: polls([both, md2, done]), capiServerless: polls([both, md1, done]) },
      removeHold,
    );
    assert.deepEqual(unknown(ds), []);
  });

  test('capi-serverless missing it (the other way round) is T1 too', () => {
    const ds = classifyPolls({ upstream: polls([both, md2, done]), capiServerless: polls([both, done]) }, removeHold);
    assert.deepEqual(unknown(ds), []);
  });

  const regressions: [string, Poll[][], Poll[][], { scenario: string; step: string }][] = [
    [
      'a side that ends on the md-2 state (never True) comes back unknown',
      polls([both, done]),
      polls([both, md2]),
      removeHold,
    ],
    [
      'another transient state (md-0, upgraded in the step before, upgrading again) comes back unknown',
      polls([both, done]),
      polls([both, md0, done]),
      removeHold,
    ],
    [
      'a transient failure beside the md-2 state comes back unknown',
      polls([both, done]),
      polls([both, md2, state('ReconcileFailed', 'error reconciling the Cluster topology: boom'), done]),
      removeHold,
    ],
    [
      'a side that skips md-1 and md-2 upgrading together comes back unknown',
      polls([both, done]),
      polls([md2, done]),
      removeHold,
    ],
    [
      'the md-2 state in the upgrade step (md-1 holds) comes back unknown',
      polls([both, done]),
      polls([both, md2, done]),
      { scenario: removeHold.scenario, step: 'upgrade to v1.37.0 (md-1 holds the sequence)' },
    ],
    [
      'the md-2 state in another scenario comes back unknown',
      polls([both, done]),
      polls([both, md2, done]),
      { scenario: 'd73-family-defer-upgrade', step: removeHold.step },
    ],
  ];
  for (const [name, upstream, capiServerless, at] of regressions)
    test(name, () => {
      const ds = classifyPolls({ upstream, capiServerless }, at);
      assert.ok(
        unknown(ds).some((d) => d.object === 'Trajectories'),
        ds.map((d) => `${d.rule} ${d.object} ${d.path}`).join('\n'),
      );
    });
});
