// The ClusterResourceSet handoff on upstream Cluster API v1.14.2's real core manager: its ClusterResourceSet
// controller runs beside capi-serverless (it cannot be switched off) and the handoff policy refuses its writes to
// ClusterResourceSet kinds. It must never apply anything into a workload cluster, also in the case that once let it:
// capi-serverless has already been over the ClusterResourceSet (finalizer, Paused condition, a binding entry for a
// Cluster whose kubeconfig is not there yet) when upstream's ClusterCache connects to the Cluster. Who wrote what is
// read from the audit logs of the management cluster (users) and of the workload cluster (user agents: both connect
// with the credentials of the same kubeconfig Secret) and from the workload object's managedFields.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ClusterResourceSetFinalizer } from '#shared/api/addons/v1beta2/cluster-resource-set.ts';
import type { ObjectKey } from '#shared/api/object-meta.ts';
import { getBinding, reconcileAddons, type AddonsDeps } from '#shared/addons/index.ts';
import { applyObject, applyStatus, deleteObject, findObject, getObject, type KubeObject } from '#shared/kube/index.ts';
import {
  allRequestsAuditPolicy,
  createAuditLog,
  type AuditEvent,
  type AuditLog,
} from '#test/support/harness/audit-log.ts';
import { startWorkloadCluster, type TestCluster } from '#test/support/harness/clusters.ts';
import {
  startUpstreamManagementCluster,
  upstreamManagerUsers,
  type UpstreamCapi,
} from '#test/support/harness/upstream-capi.ts';
import { configMap, ensureNamespace, putResourceConfigMap, yamlDocs } from '#test/integration/addons/setup.ts';

const ns = 'crs-handoff';
const clusterKey: ObjectKey = { namespace: ns, name: 'w1' };
const addonsFieldManager = 'capi-serverless-addons';
const crsRef = {
  apiVersion: 'addons.cluster.x-k8s.io/v1beta2',
  kind: 'ClusterResourceSet',
  namespace: ns,
  name: 'addon',
};
const workloadObject = { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'handoff-addon' } as const;
/** Upstream's core manager's user agent on a workload cluster (`remote.DefaultClusterAPIUserAgent`). */
const upstreamAgent = 'cluster-api-controller-manager';
const writes = ['create', 'update', 'patch', 'delete'];

let mgmt: TestCluster & { readonly upstream: UpstreamCapi };
let workload: TestCluster | undefined;
let mgmtAudit: AuditLog;
let workloadAudit: AuditLog;
let deps: AddonsDeps;

const at = (e: AuditEvent) => new Date(e.requestReceivedTimestamp ?? 0).getTime();
const byUpstreamCore = (e: AuditEvent) => e.user.username === upstreamManagerUsers.core;
/** Requests to ClusterResourceSet kinds, but the harness's dry-run probe of the policy (test/support/harness/upstream-capi.ts). */
const onAddonKinds = (e: AuditEvent) =>
  e.objectRef?.apiGroup === 'addons.cluster.x-k8s.io' &&
  (e.objectRef.resource ?? '').startsWith('clusterresourceset') &&
  e.objectRef.name !== 'capi-serverless-handoff-probe';
const describeEvent = (e: AuditEvent) =>
  `${e.verb} ${e.objectRef?.resource ?? e.requestURI}${e.objectRef?.name ? `/${e.objectRef.name}` : ''} → ${e.responseStatus?.code ?? '?'}`;

async function eventually<T>(what: string, fn: () => Promise<{ value?: T; observed: string }>, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await fn();
    if (r.value !== undefined) return r.value;
    if (Date.now() > deadline)
      assert.fail(
        `${what}: not reached in ${timeoutMs / 1000} s; last seen: ${r.observed}\n${mgmt.upstream.logs().slice(-20_000)}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

function managersOf(obj: KubeObject): string[] {
  return ((obj.metadata as { managedFields?: { manager: string }[] }).managedFields ?? []).map((m) => m.manager);
}

describe("ClusterResourceSet handoff on upstream's real core manager", () => {
  before(async () => {
    mgmtAudit = createAuditLog();
    workloadAudit = createAuditLog(allRequestsAuditPolicy);
    mgmt = await startUpstreamManagementCluster({
      name: 'crs-handoff',
      extraApiServerArgs: mgmtAudit.apiServerArgs,
      upstream: { managers: ['core'] },
    });
    const pass = await mgmt.newClient();
    deps = { kube: pass.kube, now: () => new Date(), fieldManager: addonsFieldManager };
  });
  after(async () => {
    deps?.kube.close();
    await workload?.stop();
    await mgmt?.stop();
    mgmtAudit?.remove();
    workloadAudit?.remove();
  });

  test("upstream's controller never applies, even once capi-serverless has bound a Cluster upstream then connects to", async () => {
    await ensureNamespace(mgmt.kube, ns);
    await putResourceConfigMap(mgmt, ns, 'addon', {
      'addon.yaml': yamlDocs(configMap('default', workloadObject.name, { from: 'capi-serverless' })),
    });
    await applyObject(
      mgmt.kube,
      {
        apiVersion: crsRef.apiVersion,
        kind: crsRef.kind,
        metadata: { namespace: ns, name: crsRef.name },
        spec: {
          clusterSelector: { matchLabels: { addons: 'handoff' } },
          resources: [{ kind: 'ConfigMap', name: 'addon' }],
          strategy: 'ApplyOnce',
        },
      },
      { fieldManager: 'test' },
    );
    // A Cluster whose DevCluster the test reports provisioned (no Docker manager runs here), so that upstream's Cluster
    // controller marks the Cluster's infrastructure provisioned: both ClusterResourceSet implementations then serve it.
    const devCluster = {
      apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta2',
      kind: 'DevCluster',
      metadata: clusterKey,
      spec: { backend: { inMemory: {} } },
    };
    await applyObject(mgmt.kube, devCluster, { fieldManager: 'test' });
    await applyStatus(
      mgmt.kube,
      { ...devCluster, status: { initialization: { provisioned: true } } },
      {
        fieldManager: 'test',
      },
    );
    await applyObject(
      mgmt.kube,
      {
        apiVersion: 'cluster.x-k8s.io/v1beta2',
        kind: 'Cluster',
        metadata: { ...clusterKey, labels: { addons: 'handoff' } },
        spec: {
          infrastructureRef: { apiGroup: 'infrastructure.cluster.x-k8s.io', kind: 'DevCluster', name: clusterKey.name },
        },
      },
      { fieldManager: 'test' },
    );
    await eventually(
      'the Cluster provisioned by upstream',
      async () => {
        const c = await getObject(mgmt.kube, {
          apiVersion: 'cluster.x-k8s.io/v1beta2',
          kind: 'Cluster',
          ...clusterKey,
        });
        const init = (c['status'] as { initialization?: { infrastructureProvisioned?: boolean } } | undefined)
          ?.initialization;
        return { ...(init?.infrastructureProvisioned === true ? { value: true } : {}), observed: JSON.stringify(init) };
      },
      60_000,
    );

    // capi-serverless first: its finalizer, the Paused condition and a binding entry for the Cluster, which waits for
    // its kubeconfig Secret. (Before the fix, that left upstream nothing to write before applying.)
    const first = await reconcileAddons(deps, crsRef);
    assert.equal(first.result, 'Requeue', first.changed.join('\n'));
    const crs = await getObject(mgmt.kube, crsRef);
    assert.deepEqual(crs.metadata.finalizers, [ClusterResourceSetFinalizer]);
    const binding = await getBinding(mgmt.kube, clusterKey);
    assert.deepEqual(
      binding?.spec?.bindings?.map((b) => b.clusterResourceSetName),
      ['addon'],
      'capi-serverless bound the Cluster',
    );

    // The workload cluster comes up (its kubeconfig Secret written): upstream's ClusterCache connects within its
    // 30 s retry interval and wakes its ClusterResourceSet controller.
    workload = await startWorkloadCluster(mgmt, clusterKey, { extraApiServerArgs: workloadAudit.apiServerArgs });
    const upstreamOnWorkload = () => workloadAudit.events().filter((e) => (e.userAgent ?? '').includes(upstreamAgent));
    const connectedAt = await eventually(
      "upstream's core manager connected to the workload cluster",
      async () => {
        const first = upstreamOnWorkload()[0];
        return { ...(first ? { value: at(first) } : {}), observed: `${workloadAudit.events().length} requests` };
      },
      90_000,
    );
    const afterConnect = await eventually(
      "upstream's ClusterResourceSet controller acting after the connection",
      async () => {
        const attempts = mgmtAudit.events().filter((e) => byUpstreamCore(e) && onAddonKinds(e) && at(e) >= connectedAt);
        return { ...(attempts.length > 0 ? { value: attempts } : {}), observed: 'no attempt yet' };
      },
      120_000,
    );
    // Give a controller that got past its first write the time to apply (and then fail on the binding).
    await new Promise((resolve) => setTimeout(resolve, 5_000));

    const upstreamWorkloadWrites = upstreamOnWorkload().filter((e) => writes.includes(e.verb));
    assert.deepEqual(
      upstreamWorkloadWrites.map(describeEvent),
      [],
      "upstream's core manager wrote into the workload cluster (its ClusterResourceSet controller applied)",
    );
    assert.equal(await findObject(workload.kube, workloadObject), undefined, 'nothing applied before our next pass');
    const upstreamAttempts = mgmtAudit.events().filter((e) => byUpstreamCore(e) && onAddonKinds(e));
    assert.deepEqual(
      upstreamAttempts.filter((e) => e.objectRef?.resource !== 'clusterresourcesets').map(describeEvent),
      [],
      'upstream got past adding its finalizer (it writes bindings only once it is ready to apply)',
    );
    for (const e of [...afterConnect, ...upstreamAttempts])
      assert.ok((e.responseStatus?.code ?? 0) >= 400, `refused by the handoff policy: ${describeEvent(e)}`);
    assert.deepEqual(
      (await getObject(mgmt.kube, crsRef)).metadata.finalizers,
      [ClusterResourceSetFinalizer],
      "upstream's finalizer never got on",
    );

    // capi-serverless's next pass applies it.
    const second = await reconcileAddons(deps, crsRef);
    assert.equal(second.result, 'Success', second.error);
    const applied = await getObject(workload.kube, workloadObject);
    assert.deepEqual(applied['data'], { from: 'capi-serverless' });
    assert.deepEqual(managersOf(applied), [addonsFieldManager], 'created by capi-serverless');
  });

  test('deleting the ClusterResourceSet: capi-serverless cleans up, upstream writes nothing, nothing is left', async () => {
    assert.equal(await deleteObject(mgmt.kube, crsRef), true);
    const outcome = await reconcileAddons(deps, crsRef);
    assert.equal(outcome.result, 'Success', outcome.error);
    assert.equal(await findObject(mgmt.kube, crsRef), undefined, 'the ClusterResourceSet is gone');
    assert.equal(await getBinding(mgmt.kube, clusterKey), undefined, 'its binding is gone');
    const upstreamAttempts = mgmtAudit.events().filter((e) => byUpstreamCore(e) && onAddonKinds(e));
    assert.ok(
      upstreamAttempts.every((e) => (e.responseStatus?.code ?? 0) >= 400),
      upstreamAttempts.map(describeEvent).join('\n'),
    );
    assert.deepEqual(
      (workloadAudit.events() ?? [])
        .filter((e) => (e.userAgent ?? '').includes(upstreamAgent) && writes.includes(e.verb))
        .map(describeEvent),
      [],
    );
    assert.ok(workload);
    assert.ok(await findObject(workload.kube, workloadObject), 'the applied object stays, as upstream leaves it');
  });
});
