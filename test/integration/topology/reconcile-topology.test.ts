// Topology passes against a real management cluster: the objects a ClusterClass stamps out, how changes to the
// Cluster and the class propagate (scale, rotation, in-place), upgrades, removal, co-ownership with users, change
// detection, errors the API server reports, and deletion.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  applyObject,
  applyStatus,
  deleteObject,
  installCrds,
  patchObject,
  type KubeObject,
} from '#shared/kube/index.ts';
import { genericCrd } from '#test/support/harness/clusters.ts';
import { templates } from '#test/support/builders/topology.ts';
import { reconcileClusterClass, reconcileTopology } from '#shared/topology/index.ts';
import type { Unstructured } from '#shared/topology/types.ts';
import {
  capi,
  dig,
  get,
  infra,
  list,
  machineDeployment,
  mustGet,
  pass,
  put,
  setControlPlaneStatus,
  setUpClass,
  testCluster,
  testClusterClass,
  topologyCondition,
  useTopologyCluster,
  type TopologyTestContext,
  type VariableValue,
} from '#test/integration/topology/setup.ts';

const ctx = useTopologyCluster();

/** A reference: ContractVersionedObjectReference (apiGroup, v1beta2) or an apiVersion (the tests' own). */
type Ref = { apiGroup?: string; apiVersion?: string; kind: string; name: string };

const refOf = (obj: unknown, ...path: string[]) => dig(obj, ...path) as Ref;

/** Reads what `ref` points at; the test's provider CRDs serve v1beta2 (their contract label says so). */
async function getRef(c: TopologyTestContext, namespace: string, ref: Ref) {
  return get(c, ref.apiVersion ?? `${ref.apiGroup ?? ''}/v1beta2`, ref.kind, { namespace, name: ref.name });
}

/** A namespace with the class and a Cluster that one pass created; returns the Cluster's uid. */
async function createTopology(namespace: string, variables: Record<string, VariableValue> = {}): Promise<string> {
  await setUpClass(ctx, namespace);
  await put(ctx, testCluster(namespace, 'c1', variables));
  const outcome = await pass(ctx, { namespace, name: 'c1' });
  assert.equal(outcome.result, 'Success', outcome.error);
  return (await mustGet(ctx, capi, 'Cluster', { namespace, name: 'c1' })).metadata.uid ?? '';
}

/** The v1beta1 TopologyReconciled condition upstream keeps under status.deprecated.v1beta1. */
async function v1beta1TopologyCondition(key: { namespace: string; name: string }) {
  const cluster = await mustGet(ctx, capi, 'Cluster', key);
  const conditions = dig(cluster, 'status', 'deprecated', 'v1beta1', 'conditions') as
    Record<string, string>[] | undefined;
  return conditions?.find((c) => c['type'] === 'TopologyReconciled');
}

/**
 * The InfrastructureCluster and ControlPlane: owned by the cluster shim Secret, which the Cluster owns (no core
 * manager runs here to adopt them, as upstream's core Cluster controller would once the Cluster references both).
 */
async function assertOwnedByShim(ns: string, obj: Unstructured | undefined, uid: string, what: string) {
  assert.ok(obj, `${what} exists`);
  const shim = await mustGet(ctx, 'v1', 'Secret', { namespace: ns, name: 'c1-shim' });
  assert.deepEqual(
    shim.metadata.ownerReferences?.map((o) => ({ apiVersion: o.apiVersion, kind: o.kind, name: o.name, uid: o.uid })),
    [{ apiVersion: capi, kind: 'Cluster', name: 'c1', uid }],
    'the cluster shim is owned by the Cluster',
  );
  assert.deepEqual(
    obj.metadata.ownerReferences?.map((o) => ({ apiVersion: o.apiVersion, kind: o.kind, name: o.name, uid: o.uid })),
    [{ apiVersion: 'v1', kind: 'Secret', name: 'c1-shim', uid: shim.metadata.uid }],
    `${what} is owned by the cluster shim`,
  );
  assert.equal(obj.metadata.labels?.['cluster.x-k8s.io/cluster-name'], 'c1', `${what} has the cluster-name label`);
  assert.equal(obj.metadata.labels?.['topology.cluster.x-k8s.io/owned'], '', `${what} has the topology-owned label`);
}

function assertOwnedByCluster(obj: Unstructured | undefined, uid: string, what: string) {
  assert.ok(obj, `${what} exists`);
  assert.deepEqual(
    obj.metadata.ownerReferences?.map((o) => ({ apiVersion: o.apiVersion, kind: o.kind, name: o.name, uid: o.uid })),
    [{ apiVersion: capi, kind: 'Cluster', name: 'c1', uid }],
    `${what} is owned by the Cluster`,
  );
  assert.equal(obj.metadata.labels?.['cluster.x-k8s.io/cluster-name'], 'c1', `${what} has the cluster-name label`);
  assert.equal(obj.metadata.labels?.['topology.cluster.x-k8s.io/owned'], '', `${what} has the topology-owned label`);
}

describe('topology passes on a real management cluster', () => {
  test("runs on upstream v1.14's own CRDs for Cluster API's core kinds (not look-alikes)", async () => {
    for (const name of ['clusters', 'clusterclasses', 'machinedeployments', 'machinehealthchecks']) {
      const crd = await mustGet(ctx, 'apiextensions.k8s.io/v1', 'CustomResourceDefinition', {
        namespace: '',
        name: `${name}.cluster.x-k8s.io`,
      });
      assert.equal(crd.metadata.labels?.['cluster.x-k8s.io/provider'], 'cluster-api', `${name}: upstream's CRD`);
      const versions = (crd['spec'] as { versions: { name: string; storage: boolean }[] }).versions;
      assert.equal(versions.find((v) => v.storage)?.name, 'v1beta2', `${name} stored as v1beta2`);
    }
  });

  test('creates every object of a Cluster from a class with two MachineDeployment classes, variables and patches', async () => {
    const ns = 'create';
    const uid = await createTopology(ns, { workerImage: 'kindest/node:v1.31.0', lbImageTag: 'v2' });
    const cluster = await mustGet(ctx, capi, 'Cluster', { namespace: ns, name: 'c1' });
    assert.equal(cluster.metadata.labels?.['cluster.x-k8s.io/cluster-name'], 'c1');
    assert.equal(cluster.metadata.labels?.['topology.cluster.x-k8s.io/owned'], '');

    const infraCluster = await getRef(ctx, ns, refOf(cluster, 'spec', 'infrastructureRef'));
    await assertOwnedByShim(ns, infraCluster, uid, 'DockerCluster');
    assert.equal(infraCluster?.kind, 'DockerCluster');
    assert.deepEqual(dig(infraCluster, 'spec', 'loadBalancer'), { imageTag: 'v2' }, 'the lb-image-tag patch applied');
    assert.equal(infraCluster?.metadata.annotations?.['cluster.x-k8s.io/cloned-from-name'], 'quick-start-cluster');

    const cp = await getRef(ctx, ns, refOf(cluster, 'spec', 'controlPlaneRef'));
    await assertOwnedByShim(ns, cp, uid, 'KubeadmControlPlane');
    assert.equal(dig(cp, 'spec', 'version'), 'v1.30.0');
    assert.equal(dig(cp, 'spec', 'replicas'), 3);
    assert.deepEqual(dig(cp, 'spec', 'kubeadmConfigSpec', 'clusterConfiguration', 'apiServer', 'certSANs'), [
      'localhost',
    ]);
    assert.equal(dig(cp, 'spec', 'machineTemplate', 'infrastructureRef'), undefined, 'no v1beta1 contract field');
    const cpMachineRef = refOf(cp, 'spec', 'machineTemplate', 'spec', 'infrastructureRef');
    assert.deepEqual(Object.keys(cpMachineRef).sort(), ['apiGroup', 'kind', 'name'], 'a v1beta2 contract reference');
    const cpMachine = await getRef(ctx, ns, cpMachineRef);
    assertOwnedByCluster(cpMachine, uid, 'control plane DockerMachineTemplate');
    assert.deepEqual(dig(cpMachine, 'spec', 'template', 'spec'), { extraMounts: [] }, 'not patched (no selector)');

    const mdA = await machineDeployment(ctx, ns, 'md-a');
    const mdB = await machineDeployment(ctx, ns, 'md-b');
    assert.ok(mdA && mdB, 'both MachineDeployments exist');
    assert.equal(dig(mdA, 'spec', 'replicas'), 2);
    assert.equal(dig(mdB, 'spec', 'replicas'), 1);
    assert.equal(dig(mdA, 'spec', 'template', 'spec', 'version'), 'v1.30.0');
    assert.equal(dig(mdA, 'spec', 'template', 'spec', 'deletion', 'nodeDrainTimeoutSeconds'), 300);
    assert.equal(mdA.metadata.labels?.['class-label'], 'one');
    assert.equal((dig(mdA, 'spec', 'template', 'metadata', 'labels') as Record<string, string>)['class-label'], 'one');
    assert.equal(mdB.metadata.labels?.['class-label'], undefined, 'md-b is of the other class');
    for (const md of [mdA, mdB]) {
      const topology = md.metadata.labels?.['topology.cluster.x-k8s.io/deployment-name'] ?? '';
      const machine = await getRef(ctx, ns, refOf(md, 'spec', 'template', 'spec', 'infrastructureRef'));
      const bootstrap = await getRef(ctx, ns, refOf(md, 'spec', 'template', 'spec', 'bootstrap', 'configRef'));
      assertOwnedByCluster(machine, uid, `${topology} DockerMachineTemplate`);
      assertOwnedByCluster(bootstrap, uid, `${topology} KubeadmConfigTemplate`);
      assert.equal(dig(machine, 'spec', 'template', 'spec', 'customImage'), 'kindest/node:v1.31.0', 'patched');
      assert.equal(machine?.metadata.labels?.['topology.cluster.x-k8s.io/deployment-name'], topology);
      assert.match(machine?.metadata.name ?? '', new RegExp(`^c1-${topology}-[a-z0-9]{5}$`));
      assert.deepEqual(dig(bootstrap, 'spec', 'template', 'spec'), { joinConfiguration: { nodeRegistration: {} } });
    }

    const mhc = await get(ctx, capi, 'MachineHealthCheck', { namespace: ns, name: mdA.metadata.name ?? '' });
    assertOwnedByCluster(mhc, uid, 'MachineHealthCheck of md-a');
    assert.deepEqual(dig(mhc, 'spec', 'checks'), {
      nodeStartupTimeoutSeconds: 600,
      unhealthyNodeConditions: [{ type: 'Ready', status: 'False', timeoutSeconds: 300 }],
    });
    assert.deepEqual(dig(mhc, 'spec', 'selector', 'matchLabels'), {
      'topology.cluster.x-k8s.io/owned': '',
      'topology.cluster.x-k8s.io/deployment-name': 'md-a',
    });
    const mhcB = await get(ctx, capi, 'MachineHealthCheck', { namespace: ns, name: mdB.metadata.name ?? '' });
    assert.equal(mhcB, undefined, 'big-worker has no health check');

    const condition = await topologyCondition(ctx, { namespace: ns, name: 'c1' });
    assert.equal(condition?.['status'], 'True');

    const cc = await mustGet(ctx, capi, 'ClusterClass', { namespace: ns, name: 'quick-start' });
    const status = cc['status'] as { observedGeneration?: number; variables?: { name: string }[] };
    assert.equal(status.observedGeneration, cc.metadata.generation);
    assert.deepEqual(
      status.variables?.map((v) => v.name),
      ['brokenImage', 'lbImageTag', 'workerImage'],
    );
    const classTemplate = await get(ctx, infra, 'DockerMachineTemplate', {
      namespace: ns,
      name: 'quick-start-default-worker-machinetemplate',
    });
    assert.deepEqual(
      classTemplate?.metadata.ownerReferences?.map((o) => [o.kind, o.name, o.uid]),
      [['ClusterClass', 'quick-start', cc.metadata.uid]],
    );
  });

  test('a second pass over an unchanged Cluster performs zero mutating requests and few reads', async () => {
    const ns = 'steady';
    await createTopology(ns);
    ctx.pass.log.reset();
    const outcome = await pass(ctx, { namespace: ns, name: 'c1' });
    assert.equal(outcome.result, 'Success');
    assert.deepEqual(outcome.changed, []);
    assert.deepEqual(ctx.pass.log.mutating(), []);
    const dryRuns = ctx.pass.log.records.filter((r) => r.dryRun);
    assert.ok(dryRuns.length > 0, 'without a no-change record every object is dry-run');
    const reads = ctx.pass.log.records.filter((r) => r.method === 'GET');
    // NOTE: besides the objects, the CRDs of the 4 provider kinds (their contract labels) are read once each.
    assert.ok(reads.length <= 22, `a pass reads each object once (${reads.length} reads)`);
    ctx.pass.log.reset();
    const classOutcome = await reconcileClusterClass(ctx.deps, { namespace: ns, name: 'quick-start' });
    assert.deepEqual(classOutcome, { result: 'Success', changed: [] });
    assert.deepEqual(ctx.pass.log.mutating(), [], 'an unchanged ClusterClass is not written either');
  });

  test("the core Cluster controller's controller reference on the InfrastructureCluster and ControlPlane is kept, with no write after the adoption", async () => {
    // NOTE: upstream's core manager makes the Cluster the controller owner of both (a merge patch of
    // ownerReferences as field manager `manager`). An OwnerReference is atomic under server-side apply: a pass applying
    // the reference without `controller` replaced it, the core manager set it again, and every pass wrote both objects
    // (found by the differential beside upstream's managers, test/diff).
    const ns = 'controller-owner';
    const uid = await createTopology(ns);
    const cluster = await mustGet(ctx, capi, 'Cluster', { namespace: ns, name: 'c1' });
    const spec = cluster['spec'] as { infrastructureRef: { name: string }; controlPlaneRef: { name: string } };
    const controllerRef = {
      apiVersion: capi,
      kind: 'Cluster',
      name: 'c1',
      uid,
      controller: true,
      blockOwnerDeletion: true,
    };
    const owned = [
      { apiVersion: infra, kind: 'DockerCluster', namespace: ns, name: spec.infrastructureRef.name },
      {
        apiVersion: 'controlplane.cluster.x-k8s.io/v1beta2',
        kind: 'KubeadmControlPlane',
        namespace: ns,
        name: spec.controlPlaneRef.name,
      },
    ];
    for (const ref of owned)
      await patchObject(
        ctx.mgmt.kube,
        ref,
        { metadata: { ownerReferences: [controllerRef] } },
        { fieldManager: 'manager' },
      );
    // NOTE: the core controller's merge patch (an Update) took the element's ownership: passes leave the reference to
    // it. Applying it again made the pass co-own it once more, one write per object after each adoption (managedFields
    // only), found by the differential.
    ctx.pass.log.reset();
    for (let i = 0; i < 3; i++) {
      const outcome = await pass(ctx, { namespace: ns, name: 'c1' });
      assert.equal(outcome.result, 'Success', outcome.error);
      assert.deepEqual(outcome.changed, []);
    }
    assert.deepEqual(ctx.pass.log.mutating(), []);
    for (const ref of owned) {
      const obj = await mustGet(ctx, ref.apiVersion, ref.kind, ref);
      assert.deepEqual(obj.metadata.ownerReferences, [controllerRef], `${ref.kind} keeps the controller reference`);
    }
  });

  test("with the previous pass's no-change record and the runtime's reads, a pass sends no dry run", async () => {
    const ns = 'proven';
    await createTopology(ns);
    const recorded = await pass(ctx, { namespace: ns, name: 'c1' });
    assert.ok(recorded.noChange, 'a reconciled pass leaves a no-change record');
    const cluster = await mustGet(ctx, capi, 'Cluster', { namespace: ns, name: 'c1' });
    const clusterClass = await mustGet(ctx, capi, 'ClusterClass', { namespace: ns, name: 'quick-start' });
    assert.equal(recorded.noChange.objectUid, cluster.metadata.uid);
    // The DockerCluster, the KubeadmControlPlane and its machine template, the Cluster, 2 × (MachineDeployment and
    // its two templates) and the default-worker's MachineHealthCheck.
    assert.equal(Object.keys(recorded.noChange.objects ?? {}).length, 11, JSON.stringify(recorded.noChange.objects));

    ctx.pass.log.reset();
    const outcome = await reconcileTopology(
      ctx.deps,
      { namespace: ns, name: 'c1' },
      { prefetched: [cluster, clusterClass], noChange: recorded.noChange },
    );
    assert.equal(outcome.result, 'Success');
    assert.deepEqual(outcome.changed, []);
    assert.deepEqual(outcome.noChange, recorded.noChange, 'nothing changed, so the record is the same');
    assert.deepEqual(
      ctx.pass.log.records.filter((r) => r.dryRun),
      [],
      'no dry run',
    );
    assert.deepEqual(ctx.pass.log.mutating(), []);
    const reads = ctx.pass.log.records.filter((r) => r.method === 'GET').map((r) => `${r.path}?${r.query}`);
    assert.ok(
      reads.every((r) => !r.includes('/clusters/c1?') && !r.includes('/clusterclasses/')),
      `the prefetched Cluster and ClusterClass are not read again: ${reads.join(' ')}`,
    );
    // NOTE: 15 GETs by name, one seat each (the class's 5 templates, the DockerCluster, the control plane and its
    // machine template, each MachineDeployment's two templates, 3 health checks) and 4 LISTs, which flow control
    // charges by the kind's size (the MachineDeployments, their Machines, whose kubelet versions show an in-place
    // upgrade, the unused templates of 2 kinds).
    assert.ok(reads.length <= 19, `reads: ${reads.length}: ${reads.join(' ')}`);
    const listed = (log: typeof ctx.pass.log) =>
      log.records
        .filter((r) => r.method === 'GET' && r.query.includes('labelSelector'))
        .map((r) => r.path.split('/').at(-1))
        .sort();
    assert.deepEqual(
      listed(ctx.pass.log),
      ['dockermachinetemplates', 'kubeadmconfigtemplates', 'machinedeployments', 'machines'],
      'objects a reference names are read by name; LISTs discover the MachineDeployments, Machines and unused templates',
    );

    // After a pass that succeeded (the runtime says so), only the MachineDeployments and Machines are LISTed.
    ctx.pass.log.reset();
    const trusted = await reconcileTopology(
      ctx.deps,
      { namespace: ns, name: 'c1' },
      { prefetched: [cluster, clusterClass], noChange: recorded.noChange, discoverLeftovers: false },
    );
    assert.equal(trusted.result, 'Success');
    assert.deepEqual(ctx.pass.log.mutating(), []);
    assert.deepEqual(listed(ctx.pass.log), ['machinedeployments', 'machines']);
    assert.ok(ctx.pass.log.records.length <= 17, `requests: ${ctx.pass.log.records.length}`);

    // Status writes by other managers (upstream's core manager on the Cluster, the infrastructure provider on the
    // DockerCluster, through the status subresource) move the resourceVersions but not what an apply would do: the
    // record still proves both, so the pass sends no dry run.
    const dockerClusterName = String(dig(cluster, 'spec', 'infrastructureRef', 'name'));
    await patchObject(
      ctx.mgmt.kube,
      { apiVersion: capi, kind: 'Cluster', namespace: ns, name: 'c1' },
      {
        status: {
          conditions: [
            ...((
              ((await mustGet(ctx, capi, 'Cluster', { namespace: ns, name: 'c1' }))['status'] as {
                conditions?: object[];
              }) ?? {}
            ).conditions ?? []),
            {
              type: 'Available',
              status: 'False',
              reason: 'NotAvailable',
              message: 'written by the core manager',
              lastTransitionTime: '2026-11-26T22:00:00Z',
            },
          ],
        },
      },
      { fieldManager: 'manager', subresource: 'status' },
    );
    await patchObject(
      ctx.mgmt.kube,
      { apiVersion: infra, kind: 'DockerCluster', namespace: ns, name: dockerClusterName },
      { status: { ready: true } },
      { fieldManager: 'capd-manager', subresource: 'status' },
    );
    const statusWritten = await mustGet(ctx, capi, 'Cluster', { namespace: ns, name: 'c1' });
    assert.notEqual(statusWritten.metadata.resourceVersion, cluster.metadata.resourceVersion);
    ctx.pass.log.reset();
    const afterStatus = await reconcileTopology(
      ctx.deps,
      { namespace: ns, name: 'c1' },
      { prefetched: [statusWritten, clusterClass], noChange: recorded.noChange },
    );
    assert.equal(afterStatus.result, 'Success');
    assert.deepEqual(
      ctx.pass.log.records.filter((r) => r.dryRun).map((r) => r.path),
      [],
      'status writes by other managers do not cost a dry run',
    );

    // Drift: another manager changes a field the topology owns; the record no longer matches that object (its
    // resourceVersion moved), so exactly that object is dry-run and put back.
    const dockerCluster = await mustGet(ctx, infra, 'DockerCluster', {
      namespace: ns,
      name: String(dig(cluster, 'spec', 'infrastructureRef', 'name')),
    });
    await patchObject(
      ctx.mgmt.kube,
      { apiVersion: infra, kind: 'DockerCluster', namespace: ns, name: dockerCluster.metadata.name ?? '' },
      { spec: { loadBalancer: { imageTag: 'drifted' } } },
      { fieldManager: 'someone-else' },
    );
    ctx.pass.log.reset();
    const corrected = await reconcileTopology(
      ctx.deps,
      { namespace: ns, name: 'c1' },
      { prefetched: [cluster, clusterClass], noChange: recorded.noChange },
    );
    assert.equal(corrected.result, 'Success');
    assert.deepEqual(
      ctx.pass.log.records.filter((r) => r.dryRun).map((r) => r.path.split('/').slice(-2).join('/')),
      [`dockerclusters/${dockerCluster.metadata.name}`, `dockerclusters/${dockerCluster.metadata.name}`],
      'only the drifted object is dry-run (its intent and itself, as upstream)',
    );
    assert.equal(ctx.pass.log.mutating().length, 1, 'and written back');
    const fixed = await mustGet(ctx, infra, 'DockerCluster', {
      namespace: ns,
      name: dockerCluster.metadata.name ?? '',
    });
    assert.notEqual(dig(fixed, 'spec', 'loadBalancer', 'imageTag'), 'drifted');
  });

  test('scaling a MachineDeployment changes its replicas and nothing else', async () => {
    const ns = 'scale';
    await createTopology(ns);
    const before = { a: await machineDeployment(ctx, ns, 'md-a'), b: await machineDeployment(ctx, ns, 'md-b') };
    const cluster = testCluster(ns, 'c1');
    cluster.spec!.topology!.workers!.machineDeployments![0]!.replicas = 5;
    await put(ctx, cluster);
    ctx.pass.log.reset();
    const outcome = await pass(ctx, { namespace: ns, name: 'c1' });
    assert.equal(outcome.result, 'Success');
    const after = { a: await machineDeployment(ctx, ns, 'md-a'), b: await machineDeployment(ctx, ns, 'md-b') };
    assert.equal(dig(after.a, 'spec', 'replicas'), 5);
    assert.deepEqual(dig(after.a, 'spec', 'template', 'spec'), dig(before.a, 'spec', 'template', 'spec'));
    assert.equal(after.b?.metadata.resourceVersion, before.b?.metadata.resourceVersion, 'md-b untouched');
    assert.deepEqual(
      ctx.pass.log.mutating().map((r) => `${r.method} ${r.path}`),
      [
        `PATCH /apis/cluster.x-k8s.io/v1beta2/namespaces/${ns}/machinedeployments/${before.a?.metadata.name}`,
        // NOTE: as upstream, TopologyReconciled records the Cluster generation it reconciled (observedGeneration).
        `PATCH /apis/cluster.x-k8s.io/v1beta2/namespaces/${ns}/clusters/c1/status`,
      ],
    );
  });

  test('a variable change that patches the worker machine template rotates it and deletes the old one', async () => {
    const ns = 'rotate';
    await createTopology(ns);
    const before = await machineDeployment(ctx, ns, 'md-a');
    const oldMachine = refOf(before, 'spec', 'template', 'spec', 'infrastructureRef');
    const oldBootstrap = refOf(before, 'spec', 'template', 'spec', 'bootstrap', 'configRef');
    await put(ctx, testCluster(ns, 'c1', { workerImage: 'kindest/node:v1.32.0' }));
    // NOTE: as after a pass that succeeded: the rotation this pass makes is what sends it looking for unused templates.
    const outcome = await reconcileTopology(ctx.deps, { namespace: ns, name: 'c1' }, { discoverLeftovers: false });
    assert.equal(outcome.result, 'Success', outcome.error);

    const after = await machineDeployment(ctx, ns, 'md-a');
    const newMachine = refOf(after, 'spec', 'template', 'spec', 'infrastructureRef');
    assert.notEqual(newMachine.name, oldMachine.name, 'the MachineDeployment points at a new template');
    assert.match(newMachine.name, /^c1-md-a-[a-z0-9]{5}$/);
    const machine = await getRef(ctx, ns, newMachine);
    assert.equal(dig(machine, 'spec', 'template', 'spec', 'customImage'), 'kindest/node:v1.32.0');
    assert.equal(await getRef(ctx, ns, oldMachine), undefined, 'the old template is deleted');
    assert.deepEqual(refOf(after, 'spec', 'template', 'spec', 'bootstrap', 'configRef'), oldBootstrap, 'no rotation');
    assert.ok(await getRef(ctx, ns, oldBootstrap), 'the unchanged bootstrap template stays');
    const templates = (await list(ctx, infra, 'DockerMachineTemplate', ns)).filter(
      (t) => t.metadata.labels?.['topology.cluster.x-k8s.io/deployment-name'] === 'md-a',
    );
    assert.deepEqual(
      templates.map((t) => t.metadata.name),
      [newMachine.name],
    );
    ctx.pass.log.reset();
    await pass(ctx, { namespace: ns, name: 'c1' });
    assert.deepEqual(ctx.pass.log.mutating(), [], 'the rotation converged');
  });

  test('a label and drain timeout change in the class propagate in place without rotation', async () => {
    const ns = 'in-place';
    await createTopology(ns);
    const before = await machineDeployment(ctx, ns, 'md-a');
    const machine = await getRef(ctx, ns, refOf(before, 'spec', 'template', 'spec', 'infrastructureRef'));
    const bootstrap = await getRef(ctx, ns, refOf(before, 'spec', 'template', 'spec', 'bootstrap', 'configRef'));
    const cc = testClusterClass(ns);
    const mdClass = cc.spec.workers!.machineDeployments![0]!;
    mdClass.metadata = { labels: { 'class-label': 'two', 'role.example.com/worker': '' } };
    mdClass.deletion = { nodeDrainTimeoutSeconds: 600 };
    await put(ctx, cc);

    const early = await pass(ctx, { namespace: ns, name: 'c1' });
    assert.equal(early.result, 'Requeue', 'the class change is not reconciled yet');
    const waiting = await topologyCondition(ctx, { namespace: ns, name: 'c1' });
    assert.equal(waiting?.['reason'], 'ReconcileFailed');
    assert.match(
      waiting?.['message'] ?? '',
      /^ClusterClass is not successfully reconciled: ClusterClass\.status\.observedGeneration must be \d+, but is \d+$/,
    );
    assert.equal(
      (await machineDeployment(ctx, ns, 'md-a'))?.metadata.resourceVersion,
      before?.metadata.resourceVersion,
      'nothing is applied from a class that is not reconciled',
    );

    await reconcileClusterClass(ctx.deps, { namespace: ns, name: 'quick-start' });
    const outcome = await pass(ctx, { namespace: ns, name: 'c1' });
    assert.equal(outcome.result, 'Success', outcome.error);
    const after = await machineDeployment(ctx, ns, 'md-a');
    assert.equal(after?.metadata.labels?.['class-label'], 'two');
    assert.equal(
      (dig(after, 'spec', 'template', 'metadata', 'labels') as Record<string, string>)['class-label'],
      'two',
    );
    assert.equal(dig(after, 'spec', 'template', 'spec', 'deletion', 'nodeDrainTimeoutSeconds'), 600);
    assert.deepEqual(
      dig(after, 'spec', 'template', 'spec', 'infrastructureRef'),
      dig(before, 'spec', 'template', 'spec', 'infrastructureRef'),
    );
    const machineAfter = await getRef(ctx, ns, refOf(after, 'spec', 'template', 'spec', 'infrastructureRef'));
    const bootstrapAfter = await getRef(ctx, ns, refOf(after, 'spec', 'template', 'spec', 'bootstrap', 'configRef'));
    assert.equal(machineAfter?.metadata.resourceVersion, machine?.metadata.resourceVersion, 'template untouched');
    assert.equal(bootstrapAfter?.metadata.resourceVersion, bootstrap?.metadata.resourceVersion, 'template untouched');
    assert.equal((await topologyCondition(ctx, { namespace: ns, name: 'c1' }))?.['status'], 'True');
  });

  test("an in-place update of the InfrastructureCluster keeps the controlPlaneEndpoint its provider set (the template's zero values are not applied)", async () => {
    const ns = 'endpoint';
    await setUpClass(ctx, ns);
    // NOTE: a Go provider's template type without omitempty serialises the endpoint as zero values.
    const template = templates.infraCluster();
    await put(ctx, {
      ...template,
      metadata: { ...template.metadata, namespace: ns },
      spec: {
        template: { spec: { loadBalancer: { imageTag: 'v1' }, controlPlaneEndpoint: { host: '', port: 0 } } },
      },
    });
    await put(ctx, testCluster(ns, 'c1'));
    assert.equal((await pass(ctx, { namespace: ns, name: 'c1' })).result, 'Success');
    const cluster = await mustGet(ctx, capi, 'Cluster', { namespace: ns, name: 'c1' });
    const ref = refOf(cluster, 'spec', 'infrastructureRef');
    const created = await getRef(ctx, ns, ref);
    assert.equal(dig(created, 'spec', 'controlPlaneEndpoint'), undefined, 'zero values are not written');
    await applyObject(
      ctx.mgmt.kube,
      {
        apiVersion: created!.apiVersion,
        kind: created!.kind,
        metadata: { namespace: ns, name: created!.metadata.name },
        spec: { controlPlaneEndpoint: { host: '10.0.0.1', port: 6443 } },
      },
      { fieldManager: 'docker-provider', force: true },
    );

    await put(ctx, testCluster(ns, 'c1', { lbImageTag: 'v2' }));
    const outcome = await pass(ctx, { namespace: ns, name: 'c1' });
    assert.equal(outcome.result, 'Success', outcome.error);
    const updated = await getRef(ctx, ns, ref);
    assert.equal(updated?.metadata.name, created?.metadata.name, 'updated in place, not replaced');
    assert.equal(dig(updated, 'spec', 'loadBalancer', 'imageTag'), 'v2', 'the in-place update happened');
    assert.deepEqual(dig(updated, 'spec', 'controlPlaneEndpoint'), { host: '10.0.0.1', port: 6443 });
    const again = await pass(ctx, { namespace: ns, name: 'c1' });
    assert.equal(again.result, 'Success', again.error);
    assert.deepEqual(dig(await getRef(ctx, ns, ref), 'spec', 'controlPlaneEndpoint'), { host: '10.0.0.1', port: 6443 });
  });

  test('a MachineDeployment added while the control plane provisions is deferred, and created once it is stable', async () => {
    const ns = 'deferred-create';
    await createTopology(ns);
    const key = { namespace: ns, name: 'c1' };
    const withMdC = testCluster(ns, 'c1');
    withMdC.spec!.topology!.workers!.machineDeployments!.push({ class: 'big-worker', name: 'md-c', replicas: 1 });
    await put(ctx, withMdC);
    // NOTE: the ControlPlane has no status.version yet: it is provisioning (upstream IsControlPlaneStable is false).
    const early = await pass(ctx, key);
    assert.notEqual(early.result, 'Failure', early.error);
    assert.equal(await machineDeployment(ctx, ns, 'md-c'), undefined, 'not created while the control plane provisions');
    assert.match(
      String((await topologyCondition(ctx, key))?.['message']),
      /MachineDeployment md-c creation deferred while control plane upgrade is in progress/,
    );
    const cluster = await mustGet(ctx, capi, 'Cluster', key);
    const cp = (await getRef(ctx, ns, refOf(cluster, 'spec', 'controlPlaneRef'))) as Unstructured;
    const ready = { replicas: 3, upToDateReplicas: 3, readyReplicas: 3, availableReplicas: 3 };
    await setControlPlaneStatus(ctx, cp, { version: 'v1.30.0', ...ready });
    const outcome = await pass(ctx, key);
    assert.equal(outcome.result, 'Success', outcome.error);
    assert.ok(await machineDeployment(ctx, ns, 'md-c'), 'created once the control plane is stable');
  });

  test('a version upgrade updates the control plane first and the workers once it reports the version', async () => {
    const ns = 'upgrade';
    await createTopology(ns);
    const key = { namespace: ns, name: 'c1' };
    const cluster = await mustGet(ctx, capi, 'Cluster', key);
    const cpRef = refOf(cluster, 'spec', 'controlPlaneRef');
    const cp = (await getRef(ctx, ns, cpRef)) as Unstructured;
    const ready = { replicas: 3, upToDateReplicas: 3, readyReplicas: 3, availableReplicas: 3 };
    await setControlPlaneStatus(ctx, cp, { version: 'v1.30.0', ...ready });
    const upgraded = testCluster(ns, 'c1');
    upgraded.spec!.topology!.version = 'v1.31.0';
    await put(ctx, upgraded);
    const versions = async () => ({
      cp: dig(await getRef(ctx, ns, cpRef), 'spec', 'version'),
      a: dig(await machineDeployment(ctx, ns, 'md-a'), 'spec', 'template', 'spec', 'version'),
      b: dig(await machineDeployment(ctx, ns, 'md-b'), 'spec', 'template', 'spec', 'version'),
    });

    const first = await pass(ctx, key);
    assert.equal(first.result, 'Requeue');
    assert.deepEqual(await versions(), { cp: 'v1.31.0', a: 'v1.30.0', b: 'v1.30.0' });
    const holding = await topologyCondition(ctx, key);
    assert.equal(holding?.['status'], 'False');
    assert.equal(holding?.['reason'], 'ClusterUpgrading');
    const mdNames = [
      (await machineDeployment(ctx, ns, 'md-a'))?.metadata.name,
      (await machineDeployment(ctx, ns, 'md-b'))?.metadata.name,
    ].sort();
    // NOTE: upstream v1.14's message, with the one-step upgrade plan of the workers.
    assert.equal(
      holding?.['message'],
      'Cluster is upgrading to v1.31.0\n  * KubeadmControlPlane upgrading to version v1.31.0\n' +
        `  * MachineDeployments ${mdNames.join(', ')} pending upgrade to version v1.31.0`,
    );

    await pass(ctx, key);
    assert.deepEqual(
      await versions(),
      { cp: 'v1.31.0', a: 'v1.30.0', b: 'v1.30.0' },
      'workers wait for the control plane',
    );
    assert.match(
      (await topologyCondition(ctx, key))?.['message'] ?? '',
      /KubeadmControlPlane upgrading to version v1\.31\.0\n.* pending upgrade to version v1\.31\.0$/,
    );

    await setControlPlaneStatus(ctx, cp, { version: 'v1.31.0', ...ready });
    await pass(ctx, key);
    assert.deepEqual(await versions(), { cp: 'v1.31.0', a: 'v1.31.0', b: 'v1.30.0' }, 'one worker at a time');
    const last = await pass(ctx, key);
    // NOTE: md-b upgrading: the pass asks for a later one, the only thing that turns TopologyReconciled True again.
    assert.equal(last.result, 'Requeue');
    assert.deepEqual(await versions(), { cp: 'v1.31.0', a: 'v1.31.0', b: 'v1.31.0' });
    assert.equal((await topologyCondition(ctx, key))?.['reason'], 'ClusterUpgrading', 'md-b starts upgrading');
    await pass(ctx, key);
    assert.equal((await topologyCondition(ctx, key))?.['status'], 'True', 'no Machine left to roll');
  });

  test("an in-place upgrade counts as upgrading until the Machines' kubelets report the version", async () => {
    const ns = 'in-place';
    await createTopology(ns);
    const key = { namespace: ns, name: 'c1' };
    const cluster = await mustGet(ctx, capi, 'Cluster', key);
    const cp = (await getRef(ctx, ns, refOf(cluster, 'spec', 'controlPlaneRef'))) as Unstructured;
    const ready = { replicas: 3, upToDateReplicas: 3, readyReplicas: 3, availableReplicas: 3 };
    await setControlPlaneStatus(ctx, cp, { version: 'v1.30.0', ...ready });
    const md = await machineDeployment(ctx, ns, 'md-a');
    assert.ok(md);
    // NOTE: as after an in-place update: the Machine's spec already says the MachineDeployment's version, its Node's
    // kubelet (reported by the Machine controller in status.nodeInfo) still runs the old one.
    const machine = {
      apiVersion: capi,
      kind: 'Machine',
      metadata: {
        namespace: ns,
        name: 'md-a-machine',
        labels: { ...(dig(md, 'spec', 'selector', 'matchLabels') as Record<string, string>) },
      },
      spec: {
        clusterName: 'c1',
        version: 'v1.30.0',
        bootstrap: { dataSecretName: 'md-a-bootstrap' },
        infrastructureRef: { apiGroup: 'infrastructure.cluster.x-k8s.io', kind: 'DevMachine', name: 'md-a-machine' },
      },
    };
    await put(ctx, machine);
    const reportNodeInfo = (status: object) =>
      applyStatus(
        ctx.mgmt.kube,
        { apiVersion: capi, kind: 'Machine', metadata: machine.metadata, status } as KubeObject,
        {
          fieldManager: 'machine-controller',
          force: true,
        },
      );
    const nodeInfo = (kubeletVersion: string) => ({
      nodeInfo: {
        machineID: 'm',
        systemUUID: 'u',
        bootID: 'b',
        kernelVersion: '6.1.0',
        osImage: 'linux',
        containerRuntimeVersion: 'containerd://2.0.0',
        kubeletVersion,
        kubeProxyVersion: kubeletVersion,
        operatingSystem: 'linux',
        architecture: 'amd64',
      },
    });
    await reportNodeInfo(nodeInfo('v1.29.0'));

    const waiting = await pass(ctx, key);
    assert.equal(waiting.result, 'Requeue', 'the pass waits for the kubelet');
    const condition = await topologyCondition(ctx, key);
    assert.equal(condition?.['reason'], 'ClusterUpgrading');
    assert.equal(
      condition?.['message'],
      `Cluster is upgrading to v1.30.0\n  * MachineDeployment ${md.metadata.name} upgrading to version v1.30.0`,
    );

    await reportNodeInfo(nodeInfo('v1.30.0'));
    const done = await pass(ctx, key);
    assert.equal(done.result, 'Success', done.error);
    assert.equal((await topologyCondition(ctx, key))?.['status'], 'True', 'the kubelet reports the version');
  });

  test('removing a MachineDeployment deletes it, its templates and its health check', async () => {
    const ns = 'remove';
    await createTopology(ns);
    const mdA = await machineDeployment(ctx, ns, 'md-a');
    const mdB = await machineDeployment(ctx, ns, 'md-b');
    const gone = [
      refOf(mdA, 'spec', 'template', 'spec', 'infrastructureRef'),
      refOf(mdA, 'spec', 'template', 'spec', 'bootstrap', 'configRef'),
      { apiVersion: capi, kind: 'MachineHealthCheck', name: mdA?.metadata.name ?? '' },
      { apiVersion: capi, kind: 'MachineDeployment', name: mdA?.metadata.name ?? '' },
    ];
    assert.ok(await getRef(ctx, ns, gone[2]!), 'md-a has a health check before');
    const cluster = testCluster(ns, 'c1');
    cluster.spec!.topology!.workers!.machineDeployments!.shift();
    await put(ctx, cluster);
    const outcome = await pass(ctx, { namespace: ns, name: 'c1' });
    assert.equal(outcome.result, 'Success', outcome.error);
    for (const ref of gone) assert.equal(await getRef(ctx, ns, ref), undefined, `${ref.kind} ${ref.name} is deleted`);
    assert.ok(await getRef(ctx, ns, refOf(mdB, 'spec', 'template', 'spec', 'infrastructureRef')), 'md-b keeps its');
    assert.deepEqual(
      (await list(ctx, capi, 'MachineDeployment', ns)).map((md) => md.metadata.name),
      [mdB?.metadata.name],
    );
  });

  test("a removed MachineDeployment's templates wait for its last live MachineSet: the pass requeues, a later one deletes them", async () => {
    // NOTE: beside upstream, upstream's MachineDeployment/MachineSet topology controllers (which delete such templates)
    // are off with the ClusterTopology gate; the MachineSet kind is served here as upstream's core CRDs serve it.
    await installCrds(ctx.mgmt.kube, [genericCrd('cluster.x-k8s.io', 'v1beta2', 'MachineSet')], {
      fieldManager: 'test',
    });
    const ns = 'remove-held';
    await createTopology(ns);
    const mdA = await machineDeployment(ctx, ns, 'md-a');
    const templatesOfA = [
      refOf(mdA, 'spec', 'template', 'spec', 'infrastructureRef'),
      refOf(mdA, 'spec', 'template', 'spec', 'bootstrap', 'configRef'),
    ];
    const machineSet = { apiVersion: capi, kind: 'MachineSet', namespace: ns, name: `${mdA?.metadata.name ?? ''}-ms` };
    await put(ctx, {
      apiVersion: capi,
      kind: 'MachineSet',
      metadata: { namespace: ns, name: machineSet.name, labels: { 'cluster.x-k8s.io/cluster-name': 'c1' } },
      spec: { template: (mdA?.['spec'] as { template: unknown }).template },
    });
    const cluster = testCluster(ns, 'c1');
    cluster.spec!.topology!.workers!.machineDeployments!.shift();
    await put(ctx, cluster);
    const held = await pass(ctx, { namespace: ns, name: 'c1' });
    assert.equal(held.result, 'Requeue', held.error);
    for (const ref of templatesOfA) assert.ok(await getRef(ctx, ns, ref), `${ref.kind} ${ref.name} is still in use`);
    await deleteObject(ctx.mgmt.kube, machineSet);
    const released = await pass(ctx, { namespace: ns, name: 'c1' });
    assert.equal(released.result, 'Success', released.error);
    for (const ref of templatesOfA)
      assert.equal(await getRef(ctx, ns, ref), undefined, `${ref.kind} ${ref.name} is deleted`);
  });

  test("a user's label on a generated object survives three passes; a label removed from the class disappears", async () => {
    const ns = 'labels';
    await createTopology(ns);
    const md = (await machineDeployment(ctx, ns, 'md-a')) as Unstructured;
    const id = { apiVersion: capi, kind: 'MachineDeployment', metadata: { namespace: ns, name: md.metadata.name } };
    await put(ctx, { ...id, metadata: { ...id.metadata, labels: { 'team.example.com/owner': 'blue' } } });
    for (let i = 0; i < 3; i++) {
      ctx.pass.log.reset();
      await pass(ctx, { namespace: ns, name: 'c1' });
      assert.deepEqual(ctx.pass.log.mutating(), [], `pass ${i + 1} leaves the user's label alone`);
      const labels = (await machineDeployment(ctx, ns, 'md-a'))?.metadata.labels ?? {};
      assert.equal(labels['team.example.com/owner'], 'blue', `the user's label survives pass ${i + 1}`);
    }
    const cc = testClusterClass(ns);
    cc.spec.workers!.machineDeployments![0]!.metadata = { labels: { 'role.example.com/worker': '' } };
    await put(ctx, cc);
    await reconcileClusterClass(ctx.deps, { namespace: ns, name: 'quick-start' });
    await pass(ctx, { namespace: ns, name: 'c1' });
    const after = (await machineDeployment(ctx, ns, 'md-a')) as Unstructured;
    assert.equal(after.metadata.labels?.['class-label'], undefined, 'the removed class label is gone');
    assert.equal(
      (dig(after, 'spec', 'template', 'metadata', 'labels') as Record<string, string>)['class-label'],
      undefined,
    );
    assert.equal(after.metadata.labels?.['role.example.com/worker'], '');
    assert.equal(after.metadata.labels?.['team.example.com/owner'], 'blue');
  });

  test('an invalid patch result rejected by the API server shows in TopologyReconciled and leaves the old template in place', async () => {
    const ns = 'invalid';
    await setUpClass(ctx, ns);
    const key = { namespace: ns, name: 'c1' };
    await put(ctx, testCluster(ns, 'c1', { brokenImage: true }));
    const failed = await pass(ctx, key);
    assert.equal(failed.result, 'Error');
    const condition = await topologyCondition(ctx, key);
    assert.equal(condition?.['status'], 'False');
    assert.equal(condition?.['reason'], 'ReconcileFailed');
    assert.equal(condition?.['severity'], undefined, 'a metav1.Condition has no severity');
    const v1beta1 = await v1beta1TopologyCondition(key);
    assert.equal(v1beta1?.['reason'], 'TopologyReconcileFailed', 'the v1beta1 condition as upstream keeps it');
    assert.equal(v1beta1?.['severity'], 'Error');
    const message = condition?.['message'] ?? '';
    assert.match(message, /failed to create DockerMachineTemplate\.infrastructure\.cluster\.x-k8s\.io/);
    assert.match(message, /customImage/, `the server's message names the field: ${message}`);
    assert.doesNotMatch(message, /c1-md-a-[a-z0-9]{5}/, 'no generated name in the message');
    assert.equal(await machineDeployment(ctx, ns, 'md-a'), undefined);
    // MachineDeployments are created only once the control plane is provisioned.
    const cp = (await getRef(
      ctx,
      ns,
      refOf(await mustGet(ctx, capi, 'Cluster', key), 'spec', 'controlPlaneRef'),
    )) as Unstructured;
    await setControlPlaneStatus(ctx, cp, {
      version: 'v1.30.0',
      replicas: 3,
      upToDateReplicas: 3,
      readyReplicas: 3,
      availableReplicas: 3,
    });
    ctx.clock.now = new Date(ctx.clock.now.getTime() + 60_000);
    assert.equal((await pass(ctx, key)).result, 'Error');
    assert.deepEqual(await topologyCondition(ctx, key), condition, 'a retry does not churn the condition');

    await put(ctx, testCluster(ns, 'c1'));
    assert.equal((await pass(ctx, key)).result, 'Success');
    const good = (await machineDeployment(ctx, ns, 'md-a')) as Unstructured;
    const goodMachine = refOf(good, 'spec', 'template', 'spec', 'infrastructureRef');
    const templatesBefore = (await list(ctx, infra, 'DockerMachineTemplate', ns)).map((t) => t.metadata.name).sort();

    await put(ctx, testCluster(ns, 'c1', { brokenImage: true }));
    assert.equal((await pass(ctx, key)).result, 'Error');
    const rejected = await topologyCondition(ctx, key);
    assert.equal(rejected?.['reason'], 'ReconcileFailed');
    assert.match(rejected?.['message'] ?? '', /customImage/);
    const still = (await machineDeployment(ctx, ns, 'md-a')) as Unstructured;
    assert.deepEqual(refOf(still, 'spec', 'template', 'spec', 'infrastructureRef'), goodMachine, 'old reference kept');
    assert.equal(
      dig(await getRef(ctx, ns, goodMachine), 'spec', 'template', 'spec', 'customImage'),
      'kindest/node:v1.30.0',
    );
    assert.deepEqual(
      (await list(ctx, infra, 'DockerMachineTemplate', ns)).map((t) => t.metadata.name).sort(),
      templatesBefore,
      'no half-made rotation is left behind',
    );

    await put(ctx, testCluster(ns, 'c1'));
    assert.equal((await pass(ctx, key)).result, 'Success');
    assert.equal((await topologyCondition(ctx, key))?.['status'], 'True');
  });

  test("an in-place update refused by admission is reported in upstream's words and changes nothing", async () => {
    const ns = 'refused-update';
    await createTopology(ns);
    const key = { namespace: ns, name: 'c1' };
    const infraRef = refOf(await mustGet(ctx, capi, 'Cluster', key), 'spec', 'infrastructureRef');
    const before = (await getRef(ctx, ns, infraRef)) as Unstructured;
    // A real admission refusal of the update (upstream's provider webhooks refuse such changes the same way).
    const policy = 'refuse-lb-image-tag-change';
    await put(ctx, {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: policy },
      spec: {
        failurePolicy: 'Fail',
        matchConstraints: {
          resourceRules: [
            {
              apiGroups: ['infrastructure.cluster.x-k8s.io'],
              apiVersions: ['*'],
              operations: ['UPDATE'],
              resources: ['dockerclusters'],
            },
          ],
        },
        validations: [
          {
            expression: 'object.spec.loadBalancer.imageTag == oldObject.spec.loadBalancer.imageTag',
            message: 'spec.loadBalancer.imageTag is immutable',
          },
        ],
      },
    });
    await put(ctx, {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: { name: policy },
      spec: { policyName: policy, validationActions: ['Deny'] },
    });
    try {
      // The policy takes effect once the API server has loaded it: wait until it refuses a dry-run change.
      const probe = {
        apiVersion: before.apiVersion,
        kind: before.kind,
        metadata: { namespace: ns, name: infraRef.name },
        spec: { loadBalancer: { imageTag: 'probe' } },
      };
      let refused = false;
      for (let i = 0; i < 80 && !refused; i++) {
        refused = await applyObject(ctx.mgmt.kube, probe, { fieldManager: 'probe', dryRun: true, force: true }).then(
          () => false,
          () => true,
        );
        if (!refused) await new Promise((r) => setTimeout(r, 250));
      }
      assert.ok(refused, 'the policy is in effect');
      await put(ctx, testCluster(ns, 'c1', { lbImageTag: 'v2' }));
      const failed = await pass(ctx, key);
      assert.equal(failed.result, 'Error', 'the pass fails: the policy refuses the update');
      const message = (await topologyCondition(ctx, key))?.['message'] ?? '';
      assert.match(
        message,
        new RegExp(
          `failed to create patch helper for DockerCluster ${ns}/${infraRef.name}: ` +
            'server side apply dry-run failed for modified object: .*spec\\.loadBalancer\\.imageTag is immutable',
        ),
        message,
      );
      const after = (await getRef(ctx, ns, infraRef)) as Unstructured;
      assert.equal(after.metadata.resourceVersion, before.metadata.resourceVersion, 'nothing was written');
    } finally {
      for (const kind of ['ValidatingAdmissionPolicyBinding', 'ValidatingAdmissionPolicy'])
        await deleteObject(ctx.mgmt.kube, { apiVersion: 'admissionregistration.k8s.io/v1', kind, name: policy });
    }
  });

  test('a deleted Cluster is left to the garbage collector with its owner references in place', async () => {
    const ns = 'deleted';
    const uid = await createTopology(ns);
    const key = { namespace: ns, name: 'c1' };
    const hold = (finalizers: string[]) =>
      applyObject(
        ctx.mgmt.kube,
        { apiVersion: capi, kind: 'Cluster', metadata: { ...key, finalizers } },
        { fieldManager: 'example-controller' },
      );
    await hold(['example.com/hold']);
    await deleteObject(ctx.mgmt.kube, { apiVersion: capi, kind: 'Cluster', ...key });
    ctx.pass.log.reset();
    const outcome = await pass(ctx, key);
    assert.equal(outcome.result, 'Success');
    assert.deepEqual(
      ctx.pass.log.mutating().map((r) => `${r.method} ${r.path}`),
      [
        `PATCH /apis/cluster.x-k8s.io/v1beta2/namespaces/${ns}/clusters/c1`,
        `PATCH /apis/cluster.x-k8s.io/v1beta2/namespaces/${ns}/clusters/c1/status`,
      ],
      'only the ok-to-delete annotation (no BeforeClusterDelete handler registered) and the condition are written',
    );
    assert.equal(
      (await mustGet(ctx, capi, 'Cluster', key)).metadata.annotations?.['runtime.cluster.x-k8s.io/ok-to-delete'],
      '',
    );
    assert.equal((await topologyCondition(ctx, key))?.['reason'], 'Deleting');
    ctx.pass.log.reset();
    await pass(ctx, key);
    assert.deepEqual(ctx.pass.log.mutating(), []);
    const cluster = await mustGet(ctx, capi, 'Cluster', key);
    const cp = await getRef(ctx, ns, refOf(cluster, 'spec', 'controlPlaneRef'));
    await assertOwnedByShim(
      ns,
      await getRef(ctx, ns, refOf(cluster, 'spec', 'infrastructureRef')),
      uid,
      'DockerCluster',
    );
    await assertOwnedByShim(ns, cp, uid, 'KubeadmControlPlane');
    assertOwnedByCluster(
      await getRef(ctx, ns, refOf(cp, 'spec', 'machineTemplate', 'spec', 'infrastructureRef')),
      uid,
      'template',
    );
    for (const name of ['md-a', 'md-b']) {
      const md = await machineDeployment(ctx, ns, name);
      assertOwnedByCluster(
        await getRef(ctx, ns, refOf(md, 'spec', 'template', 'spec', 'infrastructureRef')),
        uid,
        name,
      );
      assertOwnedByCluster(
        await getRef(ctx, ns, refOf(md, 'spec', 'template', 'spec', 'bootstrap', 'configRef')),
        uid,
        name,
      );
    }
    await hold([]);
  });
});
