// The webhooks handler served over HTTPS on loopback (its own CA), registered with a real kube-apiserver through
// the manifests in infra/webhooks/manifests/: bad objects are refused with the field path and reason, a Cluster
// created without optional variables comes back defaulted.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Cluster } from '#shared/api/core/v1beta2/cluster.ts';
import type { ClusterClass } from '#shared/api/core/v1beta2/cluster-class.ts';
import {
  applyObject,
  createObject,
  deleteObject,
  getObject,
  KubeForbiddenError,
  KubeInvalidError,
  updateStatus,
  type KubeObject,
} from '#shared/kube/index.ts';
import { createWebhookReader } from '#shared/webhooks/current/webhook-reader.ts';
import { createWebhooksHandler } from '#shared/webhooks/create-webhooks-handler.ts';
import { ClusterBuilder, ClusterClassBuilder } from '#test/support/builders/topology.ts';
import { genericCrd, startManagementCluster, type TestCluster } from '#test/support/harness/clusters.ts';
import { startWebhookServer, type WebhookServer } from '#test/support/harness/webhook-server.ts';
import { loadWebhookConfigurations } from '../../../infra/webhooks/webhook-manifests.ts';

const fieldManager = 'webhooks-test';
const pathToken = 'integration-test-path-token';

let mgmt: TestCluster;
let server: WebhookServer;

const asKube = (o: unknown) => o as KubeObject;

function quickStart(name = 'quick-start'): ClusterClass {
  return new ClusterClassBuilder(name)
    .variables([
      { name: 'cpu', required: true, schema: { openAPIV3Schema: { type: 'integer', minimum: 1, default: 2 } } },
      {
        name: 'image',
        required: false,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: { repository: { type: 'string', default: 'registry.k8s.io' }, tag: { type: 'string' } },
          },
        },
      },
    ])
    .build();
}

function cluster(name: string, fn: (c: Cluster) => void = () => undefined): Cluster {
  return new ClusterBuilder(name)
    .with((c) => {
      delete c.metadata.uid;
      fn(c);
    })
    .build();
}

async function refused(
  action: Promise<unknown>,
  errorClass: typeof KubeInvalidError | typeof KubeForbiddenError,
  ...fragments: string[]
): Promise<void> {
  await assert.rejects(action, (err: unknown) => {
    assert.ok(err instanceof errorClass, `expected ${errorClass.name}, got ${String(err)}`);
    for (const fragment of fragments)
      assert.ok(err.message.includes(fragment), `"${fragment}" missing in: ${err.message}`);
    return true;
  });
}

/** The API server picks webhook configurations up asynchronously; wait until a refusal comes from ours. */
async function waitForWebhooks(): Promise<void> {
  const probe = asKube({
    apiVersion: 'addons.cluster.x-k8s.io/v1beta2',
    kind: 'ClusterResourceSet',
    metadata: { namespace: 'default', name: 'probe' },
    spec: { clusterSelector: {}, resources: [{ kind: 'ConfigMap', name: 'probe' }] },
  });
  const deadline = Date.now() + 20_000;
  for (;;) {
    try {
      await createObject(mgmt.kube, probe, { fieldManager, dryRun: true });
    } catch (err) {
      if (err instanceof KubeInvalidError && err.message.includes('selector must not be empty')) return;
    }
    if (Date.now() > deadline) throw new Error('webhooks were not called within 20s');
    await new Promise((r) => setTimeout(r, 200));
  }
}

before(async () => {
  mgmt = await startManagementCluster({
    name: 'webhooks',
    extraCrds: [genericCrd('controlplane.cluster.x-k8s.io', 'v1beta2', 'KubeadmControlPlane')],
  });
  const webhookClient = await mgmt.newClient();
  server = await startWebhookServer(
    createWebhooksHandler({ pathToken, getDeps: async () => ({ reader: createWebhookReader(webhookClient.kube) }) }),
  );
  for (const object of loadWebhookConfigurations({ baseUrl: `${server.url}/${pathToken}`, caBundle: server.caBundle }))
    await applyObject(mgmt.kube, object, { fieldManager });
  await waitForWebhooks();
});

after(async () => {
  await server?.stop();
  await mgmt?.stop();
});

describe('ClusterClass admission', () => {
  test('refuses one kind serving as infrastructure cluster and control plane (seed 003)', async () => {
    const cc = new ClusterClassBuilder('managed')
      .with((c) => {
        const ref = {
          apiVersion: 'controlplane.cluster.x-k8s.io/v1beta2',
          kind: 'AWSManagedControlPlaneTemplate',
          name: 'eks',
        };
        c.spec.infrastructure.templateRef = { ...ref };
        c.spec.controlPlane.templateRef = { ...ref };
      })
      .build();
    await refused(
      applyObject(mgmt.kube, asKube(cc), { fieldManager }),
      KubeInvalidError,
      'admission webhook "validation.clusterclass.cluster.x-k8s.io" denied the request',
      'ClusterClass.cluster.x-k8s.io "managed" is invalid',
      'spec.controlPlane.templateRef: Forbidden',
      'cannot serve as both the infrastructure cluster and the control plane',
    );
  });

  test('admits a v1beta2 ClusterClass as written (template references carry no namespace)', async () => {
    const created = await applyObject(mgmt.kube, asKube(quickStart()), { fieldManager });
    const spec = created['spec'] as ClusterClass['spec'];
    assert.deepEqual(spec.infrastructure.templateRef, quickStart().spec.infrastructure.templateRef);
    assert.equal(created.apiVersion, 'cluster.x-k8s.io/v1beta2');
  });
});

describe('Cluster admission', () => {
  test('a Cluster created without optional variables comes back defaulted', async () => {
    const c1 = cluster('c1', (c) => {
      c.spec!.topology!.version = '1.29.0';
      c.spec!.topology!.variables = [{ name: 'image', value: { tag: 'v1' } }];
    });
    await applyObject(mgmt.kube, asKube(c1), { fieldManager });
    const stored = (await getObject(mgmt.kube, {
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      kind: 'Cluster',
      namespace: 'default',
      name: 'c1',
    })) as unknown as Cluster;
    assert.equal(stored.spec?.topology?.version, 'v1.29.0');
    assert.deepEqual(stored.spec?.topology?.variables, [
      { name: 'image', value: { repository: 'registry.k8s.io', tag: 'v1' } },
      { name: 'cpu', value: 2 },
    ]);
  });

  const cases: [string, () => Cluster, string[]][] = [
    [
      'refuses a variable value the class schema rejects',
      () => cluster('bad-value', (c) => (c.spec!.topology!.variables = [{ name: 'cpu', value: 0 }])),
      ['spec.topology.variables[cpu].value', 'Invalid value: "0"', 'greater than or equal to 1'],
    ],
    [
      'refuses a variable the class does not define',
      () => cluster('undefined-var', (c) => (c.spec!.topology!.variables = [{ name: 'gpu', value: 1 }])),
      ['spec.topology.variables[gpu]', 'variable is not defined'],
    ],
    [
      'refuses a MachineDeployment class the ClusterClass does not have',
      () =>
        cluster(
          'bad-md-class',
          (c) => (c.spec!.topology!.workers!.machineDeployments = [{ class: 'gpu', name: 'md-0' }]),
        ),
      ['spec.topology.workers.machineDeployments[0].class', 'MachineDeploymentClass with name "gpu" does not exist'],
    ],
    [
      'refuses an invalid topology version',
      () => cluster('bad-version', (c) => (c.spec!.topology!.version = 'v1.30')),
      ['spec.topology.version: Invalid value: "v1.30": version must be a valid semantic version'],
    ],
  ];
  for (const [name, build, fragments] of cases) {
    test(name, async () => {
      await refused(applyObject(mgmt.kube, asKube(build()), { fieldManager }), KubeInvalidError, ...fragments);
    });
  }

  test('admits a Cluster created before its class, as upstream, and refuses its updates while the class is missing', async () => {
    const early = cluster('no-class-yet', (c) => (c.spec!.topology!.classRef = { name: 'missing' }));
    await applyObject(mgmt.kube, asKube(early), { fieldManager });
    await refused(
      applyObject(mgmt.kube, asKube({ ...early, spec: { ...early.spec, paused: true } }), {
        fieldManager,
      }),
      KubeInvalidError,
      'spec.topology.classRef: Invalid value: "missing"',
      'ClusterClass default/missing does not exist',
    );
  });

  test('refuses MachineDeployment topologies with the same name', async () => {
    const c = cluster('dup-md', (c) => {
      c.spec!.topology!.workers!.machineDeployments = [
        { class: 'default-worker', name: 'md-0' },
        { class: 'default-worker', name: 'md-0' },
      ];
    });
    await refused(
      createObject(mgmt.kube, asKube(c), { fieldManager }),
      KubeInvalidError,
      'spec.topology.workers.machineDeployments[1].name',
      'name must be unique',
    );
  });

  test('refuses a value against a catastrophic-backtracking variable pattern quickly, with the OpenAPI message', async () => {
    const cc = new ClusterClassBuilder('patterned')
      .variables([
        { name: 'label', required: true, schema: { openAPIV3Schema: { type: 'string', pattern: '^(a+)+$' } } },
      ])
      .build();
    await applyObject(mgmt.kube, asKube(cc), { fieldManager });
    const value = `${'a'.repeat(40)}!`;
    const c = cluster('redos', (c) => {
      c.spec!.topology!.classRef = { name: 'patterned' };
      c.spec!.topology!.variables = [{ name: 'label', value }];
    });
    // NOTE: the API server gives the webhook 10 s; a backtracking match (JavaScript's RegExp needed minutes) would
    // answer with a timeout, not with the pattern's message, so the message proves the match ended in time.
    await refused(
      createObject(mgmt.kube, asKube(c), { fieldManager }),
      KubeInvalidError,
      // NOTE: the defaulting webhook validates the values it defaults, as upstream's does, so it refuses first.
      'admission webhook "default.cluster.cluster.x-k8s.io" denied the request',
      `spec.topology.variables[label].value: Invalid value: "\\"${value}\\"": should match '^(a+)+$'`,
    );
  });

  test("refuses a value whose CEL rule runs past the per-call cost limit quickly, with upstream's message", async () => {
    // NOTE: maxItems 1000 keeps the rule under the static cost estimate (1,500 would not pass it, as upstream), so the
    // ClusterClass is admitted and the value of 1,000 ids is refused by the runtime per-call limit.
    const rule = 'self.ids.all(x, self.ids.exists(y, y == x))';
    const cc = new ClusterClassBuilder('costly')
      .variables([
        {
          name: 'ids',
          required: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: { ids: { type: 'array', maxItems: 1000, items: { type: 'integer' } } },
              'x-kubernetes-validations': [{ rule }],
            },
          },
        },
      ])
      .build();
    await applyObject(mgmt.kube, asKube(cc), { fieldManager });
    const c = cluster('costly', (c) => {
      c.spec!.topology!.classRef = { name: 'costly' };
      c.spec!.topology!.variables = [{ name: 'ids', value: { ids: Array.from({ length: 1000 }, (_, i) => i) } }];
    });
    // NOTE: the API server gives the webhook 10 s; a rule that ran on past the limit would answer with a timeout, not
    // with the cost limit's message, so the message proves the evaluation stopped in time.
    await refused(
      createObject(mgmt.kube, asKube(c), { fieldManager }),
      KubeInvalidError,
      'admission webhook "default.cluster.cluster.x-k8s.io" denied the request',
      `'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: ${rule}`,
    );
  });

  const versionCases: [string, string, string][] = [
    ['refuses a version downgrade', 'v1.28.5', 'version cannot be decreased from "1.29.0" to "1.28.5"'],
    ['refuses skipping a minor version', 'v1.31.0', 'version cannot be increased from "1.29.0" to "1.31.0"'],
  ];
  for (const [name, version, reason] of versionCases) {
    test(name, async () => {
      const c1 = cluster('c1', (c) => (c.spec!.topology!.version = version));
      await refused(
        applyObject(mgmt.kube, asKube(c1), { fieldManager }),
        KubeInvalidError,
        'Cluster.cluster.x-k8s.io "c1" is invalid',
        `spec.topology.version: Invalid value: "${version}": ${reason}`,
      );
    });
  }

  test('refuses a class change to a class with another infrastructure kind', async () => {
    const other = quickStart('other');
    other.spec.infrastructure.templateRef.kind = 'AWSClusterTemplate';
    other.spec.infrastructure.templateRef.apiVersion = 'infrastructure.cluster.x-k8s.io/v1beta2';
    await applyObject(mgmt.kube, asKube(other), { fieldManager });
    const c1 = cluster('c1', (c) => {
      c.spec!.topology!.version = 'v1.29.0';
      c.spec!.topology!.classRef = { name: 'other' };
    });
    await refused(
      applyObject(mgmt.kube, asKube(c1), { fieldManager }),
      KubeInvalidError,
      'spec.infrastructure.templateRef.kind: Forbidden: apiVersion.kind cannot be changed from "DockerClusterTemplate" to "AWSClusterTemplate"',
    );
  });
});

describe('ClusterRollout admission', () => {
  const rolloutOf = (name: string, change: object, selector: object = { matchLabels: { fleet: 'r' } }) =>
    asKube({
      apiVersion: 'management.cluster.x-k8s.io/v1alpha1',
      kind: 'ClusterRollout',
      metadata: { namespace: 'default', name },
      spec: { clusterSelector: selector, change, waves: [{ clusters: 1 }, { clusters: 'rest' }] },
    });

  before(async () => {
    const aws = quickStart('r-aws');
    aws.spec.infrastructure.templateRef.kind = 'AWSClusterTemplate';
    for (const cc of [quickStart('r-base'), quickStart('r-v2'), aws])
      await applyObject(mgmt.kube, asKube(cc), { fieldManager });
    for (const name of ['r1', 'r2']) {
      const c = cluster(name, (c) => {
        c.metadata.labels = { fleet: 'r' };
        c.spec!.topology!.classRef = { name: 'r-base' };
        c.spec!.topology!.version = name === 'r2' ? 'v1.29.3' : 'v1.29.0';
      });
      await applyObject(mgmt.kube, asKube(c), { fieldManager });
    }
  });

  test('admits a rebase every selected Cluster may make', async () => {
    await createObject(mgmt.kube, rolloutOf('to-v2', { classRef: { name: 'r-v2' } }), { fieldManager, dryRun: true });
  });

  test("refuses a rebase to a class of another infrastructure kind, naming each Cluster with upstream's message", async () => {
    await refused(
      createObject(mgmt.kube, rolloutOf('to-aws', { classRef: { name: 'r-aws' } }), { fieldManager }),
      KubeInvalidError,
      'ClusterRollout.management.cluster.x-k8s.io "to-aws" is invalid: spec.change.classRef: Invalid value: "default/r-aws": cannot rebase 2 selected Cluster(s): r1 (spec.infrastructure.templateRef.kind: Forbidden: apiVersion.kind cannot be changed from "DockerClusterTemplate" to "AWSClusterTemplate"',
      ', r2 (',
    );
  });

  test('refuses a rebase to a class that does not exist', async () => {
    await refused(
      createObject(mgmt.kube, rolloutOf('to-missing', { classRef: { name: 'r-missing' } }), { fieldManager }),
      KubeInvalidError,
      'spec.change.classRef: Invalid value: "default/r-missing": ClusterClass not found',
    );
  });

  test('refuses a version that would downgrade a selected Cluster', async () => {
    await refused(
      createObject(mgmt.kube, rolloutOf('down', { version: 'v1.29.1' }), { fieldManager }),
      KubeInvalidError,
      'spec.change.version: Invalid value: "v1.29.1": would downgrade 1 selected Cluster(s): r2 (v1.29.3)',
    );
  });

  test('refuses an empty selector', async () => {
    await refused(
      createObject(mgmt.kube, rolloutOf('all', { version: 'v1.30.0' }, {}), { fieldManager }),
      KubeInvalidError,
      'spec.clusterSelector',
    );
  });
});

describe('topology version changes checked against the live objects (upstream validateTopologyVersionUpdate)', () => {
  const cpRef = { apiGroup: 'controlplane.cluster.x-k8s.io', kind: 'KubeadmControlPlane', name: 'upg-cp' };
  const withVersion = (version: string, ref = true) =>
    asKube(
      cluster('upg', (c) => {
        c.spec!.topology!.version = version;
        if (ref) c.spec!.controlPlaneRef = cpRef;
      }),
    );
  const controlPlane = (version: string) =>
    asKube({
      apiVersion: 'controlplane.cluster.x-k8s.io/v1beta2',
      kind: 'KubeadmControlPlane',
      metadata: { namespace: 'default', name: 'upg-cp' },
      spec: { version },
    });
  const setStatusVersion = async (version: string) => {
    const cp = await getObject(mgmt.kube, { ...controlPlane(''), name: 'upg-cp', namespace: 'default' });
    await updateStatus(mgmt.kube, { ...cp, status: { version } }, { fieldManager });
  };

  before(async () => {
    await applyObject(mgmt.kube, asKube(quickStart()), { fieldManager });
  });

  test('refuses an upgrade while the Cluster has no control plane (d09: its control plane was refused at creation)', async () => {
    await applyObject(mgmt.kube, withVersion('v1.29.0', false), { fieldManager });
    await refused(
      applyObject(mgmt.kube, withVersion('v1.30.0', false), { fieldManager }),
      KubeInvalidError,
      'spec.topology.version: Invalid value: "v1.30.0": version cannot be changed: failed to check if control plane is upgrading: failed to get control plane object: cannot get object - object reference not set',
    );
    await deleteObject(mgmt.kube, {
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      kind: 'Cluster',
      namespace: 'default',
      name: 'upg',
    });
  });

  test('refuses an upgrade until the control plane is at the old version and done upgrading, then allows it', async () => {
    await applyObject(mgmt.kube, withVersion('v1.29.0'), { fieldManager });
    await refused(
      applyObject(mgmt.kube, withVersion('v1.30.0'), { fieldManager }),
      KubeInvalidError,
      'version cannot be changed: failed to check if control plane is upgrading: failed to get control plane object: failed to retrieve KubeadmControlPlane default/upg-cp',
    );
    await createObject(mgmt.kube, controlPlane('v1.28.0'), { fieldManager });
    await setStatusVersion('v1.28.0');
    await refused(
      applyObject(mgmt.kube, withVersion('v1.30.0'), { fieldManager }),
      KubeInvalidError,
      'Cluster.cluster.x-k8s.io "upg" is invalid',
      'spec.topology.version: Invalid value: "v1.30.0": version cannot be changed: Cluster.spec.topology.version 1.29.0 was not propagated to control plane yet (control plane version 1.28.0)',
    );
    await applyObject(mgmt.kube, controlPlane('v1.29.0'), { fieldManager });
    await refused(
      applyObject(mgmt.kube, withVersion('v1.30.0'), { fieldManager }),
      KubeInvalidError,
      'version cannot be changed: control plane is still completing a previous upgrade',
    );
    await setStatusVersion('v1.29.0');
    const upgraded = await applyObject(mgmt.kube, withVersion('v1.30.0'), { fieldManager });
    assert.equal((upgraded['spec'] as Cluster['spec'])?.topology?.version, 'v1.30.0');
    await deleteObject(mgmt.kube, {
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      kind: 'Cluster',
      namespace: 'default',
      name: 'upg',
    });
  });
});

describe('ClusterClass updates checked against the Clusters using it', () => {
  const updates: [string, (cc: ClusterClass) => void, string[]][] = [
    [
      'refuses removing a MachineDeployment class a Cluster uses',
      (cc) => (cc.spec.workers!.machineDeployments = []),
      [
        'spec.workers.machineDeployments: Forbidden',
        'MachineDeploymentClass "default-worker" cannot be deleted because it is used by Cluster "c1"',
      ],
    ],
    [
      'refuses changing the infrastructure template kind',
      (cc) => (cc.spec.infrastructure.templateRef.kind = 'OtherClusterTemplate'),
      [
        'spec.infrastructure.templateRef.kind: Forbidden',
        'cannot be changed from "DockerClusterTemplate" to "OtherClusterTemplate"',
      ],
    ],
    [
      'refuses a schema change an existing value no longer passes',
      (cc) => (cc.spec!.variables![1]!.schema.openAPIV3Schema.properties!['tag'] = { type: 'string', maxLength: 1 }),
      [
        'spec.variables[1].schema: Forbidden',
        'variable "image" schema change is incompatible with Cluster "c1"',
        'spec.topology.variables[image].value.tag',
      ],
    ],
    [
      'refuses removing a variable a Cluster uses',
      (cc) => (cc.spec!.variables = cc.spec!.variables!.filter((v) => v.name !== 'image')),
      ['spec.variables: Forbidden', 'variable "image" cannot be removed because it is used by Cluster(s) "c1"'],
    ],
  ];
  for (const [name, edit, fragments] of updates) {
    test(name, async () => {
      const cc = quickStart();
      edit(cc);
      await refused(applyObject(mgmt.kube, asKube(cc), { fieldManager }), KubeInvalidError, ...fragments);
    });
  }

  test('allows changing the bootstrap template kind', async () => {
    const cc = quickStart();
    cc.spec.workers!.machineDeployments![0]!.bootstrap.templateRef.kind = 'OtherConfigTemplate';
    await applyObject(mgmt.kube, asKube(cc), { fieldManager, dryRun: true });
  });

  test('refuses deleting a ClusterClass a Cluster uses', async () => {
    await refused(
      deleteObject(mgmt.kube, {
        apiVersion: 'cluster.x-k8s.io/v1beta2',
        kind: 'ClusterClass',
        namespace: 'default',
        name: 'quick-start',
      }),
      KubeForbiddenError,
      'ClusterClass cannot be deleted because it is used by 1 Cluster(s)',
    );
  });
});

describe('ClusterResourceSet admission', () => {
  const crs = (name: string, clusterSelector: unknown, version = 'v1beta2') =>
    asKube({
      apiVersion: `addons.cluster.x-k8s.io/${version}`,
      kind: 'ClusterResourceSet',
      metadata: { namespace: 'default', name },
      spec: { clusterSelector, resources: [{ kind: 'ConfigMap', name: 'calico' }] },
    });

  test('refuses an empty selector', async () => {
    await refused(
      applyObject(mgmt.kube, crs('empty', {}), { fieldManager }),
      KubeInvalidError,
      'ClusterResourceSet.addons.cluster.x-k8s.io "empty" is invalid: spec.clusterSelector: Invalid value',
      'selector must not be empty',
    );
  });

  test('refuses an empty selector sent as v1beta1 (reviewed in v1beta2 through the edge conversion)', async () => {
    await refused(
      applyObject(mgmt.kube, crs('empty-v1beta1', {}, 'v1beta1'), { fieldManager }),
      KubeInvalidError,
      'spec.clusterSelector: Invalid value',
      'selector must not be empty',
    );
  });

  test('defaults the strategy and keeps the selector immutable', async () => {
    const created = await applyObject(mgmt.kube, crs('calico', { matchLabels: { cni: 'calico' } }), { fieldManager });
    assert.equal((created['spec'] as { strategy?: string }).strategy, 'ApplyOnce');
    await refused(
      applyObject(mgmt.kube, crs('calico', { matchLabels: { cni: 'cilium' } }), { fieldManager }),
      KubeInvalidError,
      'spec.clusterSelector: Invalid value',
      'field is immutable',
    );
  });
});

describe('ClusterResourceSetBinding admission', () => {
  test('keeps spec.clusterName immutable once set, as upstream', async () => {
    const binding = (clusterName: string, crsName = 'calico') =>
      asKube({
        apiVersion: 'addons.cluster.x-k8s.io/v1beta2',
        kind: 'ClusterResourceSetBinding',
        metadata: { namespace: 'default', name: 'c1' },
        spec: { clusterName, bindings: [{ clusterResourceSetName: crsName }] },
      });
    await applyObject(mgmt.kube, binding('c1'), { fieldManager });
    await refused(
      applyObject(mgmt.kube, binding('c2'), { fieldManager }),
      KubeInvalidError,
      'ClusterResourceSetBinding.addons.cluster.x-k8s.io "c1" is invalid: spec.clusterName: Invalid value: "c2": field is immutable',
    );
    const updated = await applyObject(mgmt.kube, binding('c1', 'cilium'), { fieldManager });
    assert.equal((updated['spec'] as { clusterName?: string }).clusterName, 'c1', 'other changes are allowed');
  });
});

describe('provider admission', () => {
  const core = (namespace: string, name: string) =>
    asKube({
      apiVersion: 'operator.cluster.x-k8s.io/v1alpha2',
      kind: 'CoreProvider',
      metadata: { namespace, name },
      spec: {},
    });

  before(async () => {
    for (const name of ['capi-system', 'other-system'])
      await applyObject(mgmt.kube, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }, { fieldManager });
  });

  // The Cluster API Operator admits these and reports them in the PreflightCheckPassed condition (preflight phase).
  test('admits a CoreProvider not named cluster-api and a second CoreProvider', async () => {
    await applyObject(mgmt.kube, core('capi-system', 'core'), { fieldManager });
    await applyObject(mgmt.kube, core('capi-system', 'cluster-api'), { fieldManager });
    await applyObject(mgmt.kube, core('other-system', 'cluster-api'), { fieldManager });
  });

  test("defaults the config Secret and additional manifests namespaces to the provider's", async () => {
    const written = await applyObject(
      mgmt.kube,
      asKube({
        apiVersion: 'operator.cluster.x-k8s.io/v1alpha2',
        kind: 'InfrastructureProvider',
        metadata: { namespace: 'other-system', name: 'docker' },
        spec: { configSecret: { name: 'vars' }, additionalManifests: { name: 'extra', namespace: '' } },
      }),
      { fieldManager },
    );
    const spec = written['spec'] as {
      configSecret: { namespace?: string };
      additionalManifests: { namespace?: string };
    };
    assert.equal(spec.configSecret.namespace, 'other-system');
    assert.equal(spec.additionalManifests.namespace, 'other-system');
  });
});

describe('ExtensionConfig admission (upstream v1.14 rules, RuntimeSDK gate on)', () => {
  const extensionConfig = (name: string, spec: Record<string, unknown>) =>
    asKube({ apiVersion: 'runtime.cluster.x-k8s.io/v1beta2', kind: 'ExtensionConfig', metadata: { name }, spec });

  const cases: [string, KubeObject, string[]][] = [
    [
      'refuses an http URL',
      extensionConfig('http-ext', { clientConfig: { url: 'http://ext.example' }, namespaceSelector: {} }),
      [
        'admission webhook "validation.extensionconfig.runtime.cluster.x-k8s.io" denied the request',
        'ExtensionConfig.runtime.cluster.x-k8s.io "http-ext" is invalid',
        `spec.clientConfig.url: Invalid value: "http://ext.example": 'https' is the only allowed URL scheme`,
      ],
    ],
    [
      'refuses a name that is no DNS-1123 label',
      extensionConfig('ext.example', { clientConfig: { url: 'https://ext.example' } }),
      ['metadata.name: Invalid value: "ext.example": ExtensionConfig name should be a valid DNS1123 label name'],
    ],
    [
      'refuses a service name that is no DNS-1035 label and a relative path',
      extensionConfig('svc-ext', {
        clientConfig: { service: { name: '1-ext', namespace: 'ext-system', path: 'hooks' } },
      }),
      [
        'spec.clientConfig.service.name: Invalid value: "1-ext": a DNS-1035 label must consist of',
        'spec.clientConfig.service.path: Invalid value: "hooks": must start with "/" to be a valid URL path',
      ],
    ],
    [
      'refuses a namespaceSelector that is no selector',
      extensionConfig('sel-ext', {
        clientConfig: { url: 'https://ext.example' },
        namespaceSelector: { matchExpressions: [{ key: 'env', operator: 'Is', values: ['a'] }] },
      }),
      ['spec.namespaceSelector: Invalid value:', '"Is" is not a valid label selector operator'],
    ],
  ];
  for (const [name, object, fragments] of cases) {
    test(name, async () => {
      await refused(createObject(mgmt.kube, object, { fieldManager }), KubeInvalidError, ...fragments);
    });
  }

  test('admits a valid ExtensionConfig, defaulted (namespaceSelector {}, service port 443)', async () => {
    const written = await createObject(
      mgmt.kube,
      extensionConfig('good-ext', {
        clientConfig: { service: { name: 'ext', namespace: 'ext-system', path: '/hooks' } },
      }),
      { fieldManager },
    );
    const spec = written['spec'] as { clientConfig: { service: { port?: number } }; namespaceSelector?: unknown };
    assert.equal(spec.clientConfig.service.port, 443);
    assert.deepEqual(spec.namespaceSelector, {});
  });
});

describe('ClusterClass external patches (upstream v1.14 rules)', () => {
  const withPatch = (name: string, patch: Record<string, unknown>) =>
    asKube(
      new ClusterClassBuilder(name)
        .with((c) => (c.spec.patches = [patch as unknown as NonNullable<ClusterClass['spec']['patches']>[number]]))
        .build(),
    );

  test('refuses an external patch with neither generatePatchesExtension nor validateTopologyExtension', async () => {
    await refused(
      createObject(
        mgmt.kube,
        withPatch('ext-vars-only', { name: 'ext', external: { discoverVariablesExtension: 'discover-variables.ext' } }),
        { fieldManager },
      ),
      KubeInvalidError,
      'ClusterClass.cluster.x-k8s.io "ext-vars-only" is invalid',
      'spec.patches[0].external: Invalid value: {"discoverVariablesExtension":"discover-variables.ext"}: one of validateTopologyExtension and generatePatchesExtension must be defined',
    );
  });

  test('admits an external patch whose extension no ExtensionConfig registers yet (checked when reconciled)', async () => {
    await createObject(
      mgmt.kube,
      withPatch('ext-missing', { name: 'ext', external: { generatePatchesExtension: 'generate-patches.missing' } }),
      { fieldManager },
    );
  });
});
