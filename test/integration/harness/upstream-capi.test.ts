// Upstream Cluster API's managers (built from the published Go modules) in the harness, in the default
// 'beside-capi-serverless' mode: conversion between v1beta1 and v1beta2 through the core manager, a plain Cluster with
// an in-memory DevCluster provisioned by upstream's controllers, and the handoff (upstream's webhooks accept topology
// objects, its topology and ClusterResourceSet controllers do not act).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { after, before, describe, test } from 'node:test';
import {
  applyObject,
  createObject,
  deleteObject,
  findObject,
  getObject,
  listObjects,
  patchObject,
  type KubeObject,
} from '#shared/kube/index.ts';
import { startManagementCluster, type TestCluster } from '#test/support/harness/clusters.ts';
import {
  startUpstreamCapi,
  startUpstreamManagementCluster,
  type UpstreamCapi,
} from '#test/support/harness/upstream-capi.ts';
import { resolveUpstreamManifests } from '#test/support/harness/upstream-crds.ts';

const ns = 'default';
const fieldManager = 'test';

async function eventually<T>(what: string, fn: () => Promise<T | undefined>, capi: UpstreamCapi, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value !== undefined) return value;
    if (Date.now() > deadline) assert.fail(`${what} not reached in ${timeoutMs} ms\n${capi.logs().slice(-20_000)}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

function managers(obj: KubeObject): string[] {
  return ((obj.metadata as { managedFields?: { manager: string }[] }).managedFields ?? []).map((m) => m.manager);
}

/** A minimal in-memory ClusterClass (as upstream's e2e `clusterclass-in-memory`) and a Cluster using it. */
function topologyObjects(): KubeObject[] {
  return [
    {
      apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta2',
      kind: 'DevClusterTemplate',
      metadata: { namespace: ns, name: 'in-memory' },
      spec: { template: { spec: { backend: { inMemory: {} } } } },
    },
    {
      apiVersion: 'controlplane.cluster.x-k8s.io/v1beta2',
      kind: 'KubeadmControlPlaneTemplate',
      metadata: { namespace: ns, name: 'in-memory' },
    },
    {
      apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta2',
      kind: 'DevMachineTemplate',
      metadata: { namespace: ns, name: 'in-memory' },
      spec: { template: { spec: { backend: { inMemory: {} } } } },
    },
    {
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      kind: 'ClusterClass',
      metadata: { namespace: ns, name: 'in-memory' },
      spec: {
        infrastructure: {
          templateRef: {
            apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta2',
            kind: 'DevClusterTemplate',
            name: 'in-memory',
          },
        },
        controlPlane: {
          templateRef: {
            apiVersion: 'controlplane.cluster.x-k8s.io/v1beta2',
            kind: 'KubeadmControlPlaneTemplate',
            name: 'in-memory',
          },
          machineInfrastructure: {
            templateRef: {
              apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta2',
              kind: 'DevMachineTemplate',
              name: 'in-memory',
            },
          },
        },
      },
    },
    {
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      kind: 'Cluster',
      metadata: { namespace: ns, name: 'managed' },
      spec: {
        clusterNetwork: { pods: { cidrBlocks: ['192.168.0.0/16'] } },
        topology: { classRef: { name: 'in-memory' }, version: 'v1.34.0', controlPlane: { replicas: 1 } },
      },
    },
  ];
}

describe('upstream Cluster API managers in the harness', () => {
  let mgmt: TestCluster;
  let capi: UpstreamCapi;
  before(async () => {
    const started = await startUpstreamManagementCluster({ name: 'upstream-capi' });
    mgmt = started;
    capi = started.upstream;
  });
  after(async () => {
    await mgmt?.stop();
  });

  test('a v1beta1 Cluster is converted by the core manager (read back as v1beta2 and v1beta1)', async () => {
    await applyObject(
      mgmt.kube,
      {
        apiVersion: 'cluster.x-k8s.io/v1beta1',
        kind: 'Cluster',
        metadata: { namespace: ns, name: 'converted' },
        spec: {
          clusterNetwork: { pods: { cidrBlocks: ['192.168.0.0/16'] } },
          infrastructureRef: {
            apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
            kind: 'DevCluster',
            name: 'converted',
          },
        },
      },
      { fieldManager },
    );
    const v1beta2 = await getObject(mgmt.kube, {
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      kind: 'Cluster',
      namespace: ns,
      name: 'converted',
    });
    assert.deepEqual((v1beta2['spec'] as { infrastructureRef: unknown }).infrastructureRef, {
      apiGroup: 'infrastructure.cluster.x-k8s.io',
      kind: 'DevCluster',
      name: 'converted',
    });
    const v1beta1 = await getObject(mgmt.kube, {
      apiVersion: 'cluster.x-k8s.io/v1beta1',
      kind: 'Cluster',
      namespace: ns,
      name: 'converted',
    });
    assert.equal(v1beta1.apiVersion, 'cluster.x-k8s.io/v1beta1');
    // Upstream's v1beta2 → v1beta1 conversion derives the reference's apiVersion from the referenced CRD's contract
    // labels: the DevCluster CRD's newest contract version, v1beta2, not the one written.
    const ref = (v1beta1['spec'] as { infrastructureRef: { apiVersion: string; kind: string; name: string } })
      .infrastructureRef;
    assert.deepEqual(
      { kind: ref.kind, name: ref.name, group: ref.apiVersion.split('/')[0] },
      { kind: 'DevCluster', name: 'converted', group: 'infrastructure.cluster.x-k8s.io' },
    );
  });

  test('a plain Cluster with an in-memory DevCluster gets its infrastructure provisioned', async () => {
    await applyObject(
      mgmt.kube,
      {
        apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta2',
        kind: 'DevCluster',
        // NOTE: upstream v1.14.2's in-memory DevCluster backend writes an annotation without creating the map first
        // (devcluster_controller → inmemory ReconcileNormal panics "assignment to entry in nil map" on a DevCluster
        // without annotations); topology-created DevClusters always carry some, so give this one an annotation.
        metadata: { namespace: ns, name: 'plain', annotations: { 'capi-serverless.test/plain': 'true' } },
        spec: { backend: { inMemory: {} } },
      },
      { fieldManager },
    );
    await applyObject(
      mgmt.kube,
      {
        apiVersion: 'cluster.x-k8s.io/v1beta2',
        kind: 'Cluster',
        metadata: { namespace: ns, name: 'plain', labels: { 'crs-target': 'yes' } },
        spec: {
          clusterNetwork: { pods: { cidrBlocks: ['192.168.0.0/16'] } },
          infrastructureRef: { apiGroup: 'infrastructure.cluster.x-k8s.io', kind: 'DevCluster', name: 'plain' },
        },
      },
      { fieldManager },
    );
    const cluster = await eventually(
      'Cluster plain infrastructureProvisioned',
      async () => {
        const c = await getObject(mgmt.kube, {
          apiVersion: 'cluster.x-k8s.io/v1beta2',
          kind: 'Cluster',
          namespace: ns,
          name: 'plain',
        });
        const status = c['status'] as { initialization?: { infrastructureProvisioned?: boolean } } | undefined;
        return status?.initialization?.infrastructureProvisioned ? c : undefined;
      },
      capi,
    );
    const endpoint = (cluster['spec'] as { controlPlaneEndpoint?: { host?: string } }).controlPlaneEndpoint;
    assert.ok(endpoint?.host, 'the control plane endpoint is copied from the DevCluster');
    const dev = await getObject(mgmt.kube, {
      apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta2',
      kind: 'DevCluster',
      namespace: ns,
      name: 'plain',
    });
    assert.ok(
      (dev.metadata.ownerReferences ?? []).some((o) => o.kind === 'Cluster' && o.name === 'plain'),
      'the core Cluster controller owns the DevCluster',
    );
  });

  test("upstream's webhooks accept topology objects and its topology controllers do not act", async () => {
    for (const obj of topologyObjects()) await applyObject(mgmt.kube, obj, { fieldManager });
    // Upstream's topology controller would create the DevCluster and KubeadmControlPlane within a second or two and
    // set TopologyReconciled; give it well over that.
    await new Promise((r) => setTimeout(r, 8000));
    const cluster = await getObject(mgmt.kube, {
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      kind: 'Cluster',
      namespace: ns,
      name: 'managed',
    });
    assert.equal((cluster['spec'] as { infrastructureRef?: unknown }).infrastructureRef, undefined);
    const conditions = ((cluster['status'] as { conditions?: { type: string }[] } | undefined)?.conditions ?? []).map(
      (c) => c.type,
    );
    assert.ok(!conditions.includes('TopologyReconciled'), `no TopologyReconciled from upstream: ${conditions.join()}`);
    const kcps = await listObjects(mgmt.kube, {
      apiVersion: 'controlplane.cluster.x-k8s.io/v1beta2',
      kind: 'KubeadmControlPlane',
      namespace: ns,
    });
    assert.deepEqual(kcps.items, [], 'upstream created no KubeadmControlPlane');
    const clusterClass = await getObject(mgmt.kube, {
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      kind: 'ClusterClass',
      namespace: ns,
      name: 'in-memory',
    });
    assert.deepEqual(managers(clusterClass), [fieldManager], 'nobody but the test wrote the ClusterClass');
  });

  test("a ClusterClass no Cluster uses can be deleted: upstream's validator (its index needs the gate) sees no ClusterClass request", async () => {
    const unused: KubeObject = {
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      kind: 'ClusterClass',
      metadata: { namespace: ns, name: 'unused' },
      spec: topologyObjects().find((o) => o.kind === 'ClusterClass')?.['spec'],
    };
    await applyObject(mgmt.kube, unused, { fieldManager });
    // NOTE: before the handoff kept upstream's validator away from DELETE too, this was refused with "could not
    // retrieve Clusters using ClusterClass: Index with name field:spec.topology.classRef does not exist".
    await deleteObject(mgmt.kube, {
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      kind: 'ClusterClass',
      namespace: ns,
      name: 'unused',
    });
    const gone = await findObject(mgmt.kube, {
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      kind: 'ClusterClass',
      namespace: ns,
      name: 'unused',
    });
    assert.equal(gone, undefined);
  });

  test("upstream's ExtensionConfig validator (RuntimeSDK gate off) refuses ExtensionConfigs unless the handoff's matchCondition keeps it out", async () => {
    const extensionConfig = (name: string): KubeObject => ({
      apiVersion: 'runtime.cluster.x-k8s.io/v1beta2',
      kind: 'ExtensionConfig',
      metadata: { name },
      spec: { clientConfig: { url: 'https://127.0.0.1:9443' } },
    });
    await applyObject(mgmt.kube, extensionConfig('handoff'), { fieldManager });
    const ref = {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      name: 'capi-validating-webhook-configuration',
    };
    const config = await getObject(mgmt.kube, ref);
    const webhooks = config['webhooks'] as { name: string; matchConditions?: unknown }[];
    const name = 'validation.extensionconfig.runtime.cluster.x-k8s.io';
    assert.deepEqual(webhooks.find((w) => w.name === name)?.matchConditions, [
      { name: 'capi-serverless-owns-extensionconfig', expression: "request.operation == 'DELETE'" },
    ]);
    const without = webhooks.map((w) => {
      if (w.name !== name) return w;
      const { matchConditions: _dropped, ...rest } = w;
      return rest;
    });
    await patchObject(mgmt.kube, ref, { webhooks: without }, { fieldManager });
    try {
      // The API server picks up a changed webhook configuration through an informer, a few
      // milliseconds to a second later: retry the dry run until upstream's validator answers.
      const deadline = Date.now() + 15_000;
      let refusal: unknown;
      while (refusal === undefined && Date.now() < deadline) {
        try {
          await createObject(mgmt.kube, extensionConfig('no-handoff'), { fieldManager, dryRun: true });
          await new Promise((resolve) => setTimeout(resolve, 200));
        } catch (error) {
          refusal = error;
        }
      }
      assert.ok(refusal !== undefined, 'the dry run was admitted for 15 s without the matchCondition');
      assert.match(String(refusal), /can be set only if the RuntimeSDK feature flag is enabled/);
    } finally {
      await patchObject(mgmt.kube, ref, { webhooks }, { fieldManager });
    }
  });

  test("upstream's own in-memory e2e ClusterClass and topology Cluster are accepted by its webhooks", async () => {
    const { e2e } = resolveUpstreamManifests();
    const e2eNs = 'e2e';
    await applyObject(mgmt.kube, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: e2eNs } }, { fieldManager });
    const vars: Record<string, string> = {
      NAMESPACE: e2eNs,
      CLUSTER_NAME: 'e2e-in-memory',
      KUBERNETES_VERSION: 'v1.34.0',
      CONTROL_PLANE_MACHINE_COUNT: '1',
      WORKER_MACHINE_COUNT: '1',
      DOCKER_POD_CIDRS: '192.168.0.0/16',
      DOCKER_SERVICE_CIDRS: '10.128.0.0/12',
      DOCKER_SERVICE_DOMAIN: 'cluster.local',
    };
    // clusterctl's substitution: ${VAR}, ${VAR:-default} (nested once, as in the template).
    const substitute = (text: string): string =>
      text.replace(/\$\{([A-Z_]+)(?::-((?:\$\{[A-Z_]+\}|[^}])*))?\}/g, (_m, name: string, fallback?: string) => {
        const value = vars[name] ?? (fallback === undefined ? undefined : substitute(fallback));
        if (value === undefined) throw new Error(`no value for \${${name}}`);
        return value;
      });
    for (const file of [e2e.clusterClassInMemory, e2e.clusterTemplateInMemoryTopology]) {
      for (const doc of parseAllDocuments(substitute(readFileSync(file, 'utf8')))) {
        const obj = doc.toJS() as KubeObject | null;
        if (!obj) continue;
        obj.metadata = { ...obj.metadata, namespace: obj.metadata.namespace ?? e2eNs };
        await applyObject(mgmt.kube, obj, { fieldManager });
      }
    }
    const cluster = await getObject(mgmt.kube, {
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      kind: 'Cluster',
      namespace: e2eNs,
      name: 'e2e-in-memory',
    });
    assert.equal((cluster['spec'] as { topology: { classRef: { name: string } } }).topology.classRef.name, 'in-memory');
  });

  test("upstream's ClusterResourceSet controllers do not act", async () => {
    await applyObject(
      mgmt.kube,
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: ns, name: 'addon' }, data: { 'a.yaml': '' } },
      { fieldManager },
    );
    await applyObject(
      mgmt.kube,
      {
        apiVersion: 'addons.cluster.x-k8s.io/v1beta2',
        kind: 'ClusterResourceSet',
        metadata: { namespace: ns, name: 'addons' },
        spec: {
          clusterSelector: { matchLabels: { 'crs-target': 'yes' } },
          resources: [{ kind: 'ConfigMap', name: 'addon' }],
        },
      },
      { fieldManager },
    );
    await eventually(
      'the core manager refused by the handoff policy',
      async () => (capi.logs().includes('ClusterResourceSets are reconciled by capi-serverless') ? true : undefined),
      capi,
      30_000,
    );
    const crs = await getObject(mgmt.kube, {
      apiVersion: 'addons.cluster.x-k8s.io/v1beta2',
      kind: 'ClusterResourceSet',
      namespace: ns,
      name: 'addons',
    });
    assert.deepEqual(crs.metadata.finalizers ?? [], [], 'upstream added no finalizer');
    assert.deepEqual(managers(crs), [fieldManager]);
    const binding = await findObject(mgmt.kube, {
      apiVersion: 'addons.cluster.x-k8s.io/v1beta2',
      kind: 'ClusterResourceSetBinding',
      namespace: ns,
      name: 'plain',
    });
    assert.equal(binding, undefined, 'upstream created no binding');
    const addon = await getObject(mgmt.kube, { apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'addon' });
    assert.deepEqual(addon.metadata.ownerReferences ?? [], [], 'upstream did not take the ConfigMap');
  });
});

// The control for the handoff assertions above: with upstream in charge ('upstream-only'), the same objects are acted
// on within seconds, so the assertions above do detect an upstream controller acting.
describe('control: upstream-only mode acts on the same objects', () => {
  let mgmt: TestCluster;
  let capi: UpstreamCapi;
  before(async () => {
    mgmt = await startManagementCluster({ name: 'upstream-only', crds: 'none' });
    capi = await startUpstreamCapi(mgmt, { mode: 'upstream-only', managers: ['core', 'control-plane-kubeadm'] });
  });
  after(async () => {
    await capi?.stop();
    await mgmt?.stop();
  });

  test("upstream's topology controller stamps the Cluster and its ClusterResourceSet controller adds its finalizer", async () => {
    for (const obj of topologyObjects()) await applyObject(mgmt.kube, obj, { fieldManager });
    await applyObject(
      mgmt.kube,
      {
        apiVersion: 'addons.cluster.x-k8s.io/v1beta2',
        kind: 'ClusterResourceSet',
        metadata: { namespace: ns, name: 'addons' },
        spec: { clusterSelector: { matchLabels: { any: 'yes' } }, resources: [{ kind: 'ConfigMap', name: 'addon' }] },
      },
      { fieldManager },
    );
    await eventually(
      'a KubeadmControlPlane stamped by upstream',
      async () => {
        const list = await listObjects(mgmt.kube, {
          apiVersion: 'controlplane.cluster.x-k8s.io/v1beta2',
          kind: 'KubeadmControlPlane',
          namespace: ns,
        });
        return list.items.find((kcp) => managers(kcp).includes('capi-topology'));
      },
      capi,
      30_000,
    );
    await eventually(
      "upstream's ClusterResourceSet finalizer",
      async () => {
        const crs = await getObject(mgmt.kube, {
          apiVersion: 'addons.cluster.x-k8s.io/v1beta2',
          kind: 'ClusterResourceSet',
          namespace: ns,
          name: 'addons',
        });
        return (crs.metadata.finalizers ?? []).length > 0 ? crs : undefined;
      },
      capi,
      30_000,
    );
  });
});
