import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import jsonpatch from 'fast-json-patch';
import type { Operation } from 'fast-json-patch';
import type { Cluster } from '#shared/api/core/v1beta2/cluster.ts';
import type { ClusterClass } from '#shared/api/core/v1beta2/cluster-class.ts';
import type { ObjectKey } from '#shared/api/object-meta.ts';
import type { Provider } from '#shared/api/operator/v1alpha2/provider.ts';
import type { AdmissionReview, AdmissionReviewResponse } from '#shared/webhooks/admission-review.ts';
import type { WebhookReader } from '#shared/webhooks/current/webhook-reader.ts';
import { reviewAdmission, type AdmissionMode } from '#shared/webhooks/review-admission.ts';
import type { TopologyUpgradeState } from '#shared/webhooks/rules/topology-upgrade-rules.ts';
import { ClusterBuilder, ClusterClassBuilder, deepFreeze } from '#test/support/builders/topology.ts';

/** An in-memory reader that counts its calls. */
function fakeReader(
  classes: ClusterClass[],
  clusters: Cluster[] = [],
  providers: Provider[] = [],
  upgradeState: TopologyUpgradeState = { controlPlane: { error: 'no control plane' }, machineDeployments: [] },
) {
  const calls: string[] = [];
  const reader: WebhookReader = {
    getClusterClass: async (key: ObjectKey) => {
      calls.push(`getClusterClass ${key.name}`);
      return classes.find((c) => c.metadata.name === key.name);
    },
    listClustersUsingClass: async (key: ObjectKey) => {
      calls.push(`listClustersUsingClass ${key.name}`);
      return clusters.filter((c) => c.spec?.topology?.classRef.name === key.name);
    },
    listClusters: async (namespace: string, labelSelector: string) => {
      calls.push(`listClusters ${namespace} ${labelSelector}`);
      return clusters.filter((c) => c.metadata.namespace === namespace);
    },
    listProviders: async (kind) => {
      calls.push(`listProviders ${kind}`);
      return providers.filter((p) => p.kind === kind);
    },
    getTopologyUpgradeState: async (cluster) => {
      calls.push(`getTopologyUpgradeState ${cluster.metadata.name}`);
      return upgradeState;
    },
  };
  return { reader, calls };
}

/** The version the client used: v1beta2 for Cluster API kinds the engine reads, v1beta1 otherwise. */
const versionOf = (kind: string) => (kind === 'Cluster' || kind === 'ClusterClass' ? 'v1beta2' : 'v1beta1');

const groups: Record<string, string> = {
  Cluster: 'cluster.x-k8s.io',
  ClusterClass: 'cluster.x-k8s.io',
  ClusterResourceSet: 'addons.cluster.x-k8s.io',
  CoreProvider: 'operator.cluster.x-k8s.io',
  InfrastructureProvider: 'operator.cluster.x-k8s.io',
};

function review(operation: 'CREATE' | 'UPDATE' | 'DELETE', object: unknown, oldObject?: unknown): AdmissionReview {
  const o = (object ?? oldObject) as { kind: string; metadata: { name: string; namespace: string } };
  return deepFreeze({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: 'uid-1',
      kind: { group: groups[o.kind] ?? '', version: versionOf(o.kind), kind: o.kind },
      resource: { group: groups[o.kind] ?? '', version: versionOf(o.kind), resource: `${o.kind.toLowerCase()}s` },
      name: o.metadata.name,
      namespace: o.metadata.namespace,
      operation,
      object: object ?? null,
      ...(oldObject === undefined ? {} : { oldObject }),
    },
  });
}

const decodePatch = (r: AdmissionReviewResponse): Operation[] =>
  r.response.patch ? (JSON.parse(Buffer.from(r.response.patch, 'base64').toString('utf8')) as Operation[]) : [];

const cc = deepFreeze(
  new ClusterClassBuilder()
    .variables([
      { name: 'cpu', required: true, schema: { openAPIV3Schema: { type: 'integer', minimum: 1, default: 2 } } },
      { name: 'zone', required: false, schema: { openAPIV3Schema: { type: 'string' } } },
    ])
    .build(),
);
const cluster = deepFreeze(new ClusterBuilder().build());

async function run(mode: AdmissionMode, r: AdmissionReview, reader: WebhookReader) {
  return reviewAdmission({ reader }, mode, r);
}

describe('reviewAdmission: Cluster', () => {
  test('defaults variables with a JSONPatch that keeps fields the schemas do not model', async () => {
    const raw = deepFreeze({
      ...structuredClone(cluster),
      spec: { ...structuredClone(cluster.spec), unknownField: 1 },
    });
    const { reader, calls } = fakeReader([cc]);
    const response = await run('mutate', review('CREATE', raw), reader);
    assert.equal(response.response.allowed, true);
    assert.equal(response.response.patchType, 'JSONPatch');
    const patched = jsonpatch.applyPatch(structuredClone(raw), decodePatch(response)).newDocument as typeof raw;
    assert.deepEqual(patched.spec.topology?.variables, [{ name: 'cpu', value: 2 }]);
    assert.equal(patched.spec.unknownField, 1);
    assert.deepEqual(calls, ['getClusterClass quick-start']);
  });

  test('answers without a patch when nothing is defaulted', async () => {
    const defaulted = new ClusterBuilder()
      .with((c) => (c.spec!.topology!.variables = [{ name: 'cpu', value: 3 }]))
      .build();
    const response = await run('mutate', review('CREATE', defaulted), fakeReader([cc]).reader);
    assert.deepEqual(response.response, { uid: 'uid-1', allowed: true });
  });

  test('admits metadata members that are JSON null, as Go decodes them (server-side apply can leave annotations null)', async () => {
    // NOTE: found by the e2e: the topology pass's apply removed the last annotation it owned on the Cluster, the API
    // server sent `metadata.annotations: null` to the webhook, and the upgrade stalled on the refusal.
    const defaulted = new ClusterBuilder()
      .with((c) => (c.spec!.topology!.variables = [{ name: 'cpu', value: 3 }]))
      .build();
    const raw = { ...defaulted, metadata: { ...defaulted.metadata, annotations: null, labels: null } };
    for (const mode of ['mutate', 'validate'] as const) {
      const response = await run(mode, review('UPDATE', raw, defaulted), fakeReader([cc]).reader);
      assert.equal(response.response.allowed, true, JSON.stringify(response.response));
      assert.equal(response.response.patch, undefined, 'nothing to default, and the nulls left as they are');
    }
  });

  test('refuses in the mutating step a value the class rejects, as upstream', async () => {
    const bad = new ClusterBuilder().with((c) => (c.spec!.topology!.variables = [{ name: 'cpu', value: 0 }])).build();
    const response = await run('mutate', review('CREATE', bad), fakeReader([cc]).reader);
    assert.equal(response.response.allowed, false);
    assert.equal(response.response.status?.code, 422);
    assert.deepEqual(response.response.status?.details?.causes, [
      {
        reason: 'FieldValueInvalid',
        message: 'Invalid value: "0": should be greater than or equal to 1',
        field: 'spec.topology.variables[cpu].value',
      },
    ]);
  });

  test('leaves a Cluster whose class does not exist to the validating webhook', async () => {
    const response = await run('mutate', review('CREATE', cluster), fakeReader([]).reader);
    assert.equal(response.response.allowed, true);
  });

  test("admits a Cluster created before its class with upstream's warning", async () => {
    const response = await run('validate', review('CREATE', cluster), fakeReader([]).reader);
    assert.equal(response.response.allowed, true);
    const { namespace, name } = { namespace: cluster.metadata.namespace, name: cluster.spec!.topology!.classRef.name };
    assert.deepEqual(response.response.warnings, [
      `Cluster refers to ClusterClass ${namespace}/${name}, but this ClusterClass does not exist. ` +
        'Cluster topology has not been fully validated. The ClusterClass must be created to reconcile the Cluster',
    ]);
  });

  test('refuses an update of a Cluster whose class does not exist, as upstream', async () => {
    const next = new ClusterBuilder().with((c) => (c.metadata.labels = { team: 'a' })).build();
    const response = await run('validate', review('UPDATE', next, cluster), fakeReader([]).reader);
    assert.equal(response.response.allowed, false);
    assert.equal(response.response.status?.details?.causes?.[0]?.field, 'spec.topology.classRef');
    assert.equal(response.response.warnings, undefined);
  });

  test('validates an update without listing anything but the class', async () => {
    const next = new ClusterBuilder().with((c) => (c.spec!.topology!.variables = [{ name: 'cpu', value: 3 }])).build();
    const old = new ClusterBuilder().with((c) => (c.spec!.topology!.variables = [{ name: 'cpu', value: 2 }])).build();
    const { reader, calls } = fakeReader([cc]);
    const response = await run('validate', review('UPDATE', next, old), reader);
    assert.equal(response.response.allowed, true);
    assert.deepEqual(calls, ['getClusterClass quick-start']);
  });

  test('checks the live objects of a version change, reading them from the old Cluster', async () => {
    const old = new ClusterBuilder()
      .with((c) => (c.spec!.topology!.version = 'v1.30.0'))
      .with((c) => (c.spec!.topology!.variables = [{ name: 'cpu', value: 2 }]))
      .build();
    const next = new ClusterBuilder()
      .with((c) => (c.spec!.topology!.version = 'v1.31.0'))
      .with((c) => (c.spec!.topology!.variables = [{ name: 'cpu', value: 2 }]))
      .build();
    const { reader, calls } = fakeReader([cc]);
    const response = await run('validate', review('UPDATE', next, old), reader);
    assert.equal(response.response.allowed, false);
    assert.equal(response.response.status?.details?.causes?.length, 1);
    assert.deepEqual(calls, ['getClusterClass quick-start', `getTopologyUpgradeState ${old.metadata.name}`]);
    assert.match(
      response.response.status?.message ?? '',
      /spec\.topology\.version: Invalid value: "v1\.31\.0": version cannot be changed: no control plane/,
    );
  });

  test('skips the live objects with the unsafe version annotation', async () => {
    const old = new ClusterBuilder()
      .with((c) => (c.spec!.topology!.version = 'v1.30.0'))
      .with((c) => (c.spec!.topology!.variables = [{ name: 'cpu', value: 2 }]))
      .build();
    const next = new ClusterBuilder()
      .with((c) => (c.spec!.topology!.version = 'v1.31.0'))
      .with((c) => (c.spec!.topology!.variables = [{ name: 'cpu', value: 2 }]))
      .with((c) => (c.metadata.annotations = { 'unsafe.topology.cluster.x-k8s.io/disable-update-version-check': '' }))
      .build();
    const { reader, calls } = fakeReader([cc]);
    const response = await run('validate', review('UPDATE', next, old), reader);
    assert.equal(response.response.allowed, true, response.response.status?.message);
    assert.deepEqual(calls, ['getClusterClass quick-start']);
  });

  test('reads the old class only when the class changes', async () => {
    const other = new ClusterClassBuilder('other')
      .with((c) => (c.spec.infrastructure.templateRef.kind = 'AWSClusterTemplate'))
      .build();
    const next = new ClusterBuilder().with((c) => (c.spec!.topology!.classRef = { name: 'other' })).build();
    const { reader, calls } = fakeReader([new ClusterClassBuilder().build(), other]);
    const response = await run('validate', review('UPDATE', next, cluster), reader);
    assert.deepEqual(calls, ['getClusterClass other', 'getClusterClass quick-start']);
    assert.match(response.response.status?.message ?? '', /spec\.infrastructure\.templateRef\.kind: Forbidden/);
  });

  test('refuses with an InternalError when a lookup fails', async () => {
    const reader: WebhookReader = {
      ...fakeReader([]).reader,
      getClusterClass: async () => {
        throw new Error('connection refused');
      },
    };
    const response = await run('validate', review('CREATE', cluster), reader);
    assert.equal(response.response.status?.reason, 'InternalError');
    assert.equal(response.response.status?.code, 500);
    assert.match(response.response.status?.message ?? '', /failed to admit Cluster default\/c1: connection refused/);
  });
});

describe('reviewAdmission: ClusterClass', () => {
  test('lists the Clusters of a class only when an update removes a class or changes a variable', async () => {
    const { reader, calls } = fakeReader([], [cluster]);
    const renamed = new ClusterClassBuilder().with((c) => (c.spec.infrastructure.templateRef.name = 'v2')).build();
    await run('validate', review('UPDATE', renamed, new ClusterClassBuilder().build()), reader);
    assert.deepEqual(calls, []);
    const noWorkers = new ClusterClassBuilder().with((c) => (c.spec.workers = {})).build();
    const response = await run('validate', review('UPDATE', noWorkers, new ClusterClassBuilder().build()), reader);
    assert.deepEqual(calls, ['listClustersUsingClass quick-start']);
    assert.equal(response.response.allowed, false);
  });

  test('refuses deleting a class in use with a Forbidden Status', async () => {
    const response = await run(
      'validate',
      review('DELETE', null, new ClusterClassBuilder().build()),
      fakeReader([], [cluster]).reader,
    );
    assert.equal(response.response.status?.code, 403);
    assert.equal(
      response.response.status?.message,
      'ClusterClass.cluster.x-k8s.io "quick-start" is forbidden: ClusterClass cannot be deleted because it is used by 1 Cluster(s)',
    );
  });

  test('adds no namespace to v1beta2 template references (they have none)', async () => {
    const response = await run('mutate', review('CREATE', new ClusterClassBuilder().build()), fakeReader([]).reader);
    assert.equal(response.response.allowed, true);
    assert.deepEqual(decodePatch(response), []);
  });
});

describe('reviewAdmission: other kinds', () => {
  test("defaults a provider's config Secret and additional manifests namespaces, as the operator", async () => {
    const p = {
      apiVersion: 'operator.cluster.x-k8s.io/v1alpha2',
      kind: 'InfrastructureProvider',
      metadata: { namespace: 'capa-system', name: 'aws' },
      spec: { configSecret: { name: 'vars' }, additionalManifests: { name: 'extra', namespace: 'elsewhere' } },
    };
    const response = await run('mutate', review('CREATE', p), fakeReader([]).reader);
    assert.deepEqual(decodePatch(response), [
      { op: 'add', path: '/spec/configSecret/namespace', value: 'capa-system' },
    ]);
  });

  test('admits a misnamed second CoreProvider (reported by preflight instead), without listing providers', async () => {
    const p = {
      apiVersion: 'operator.cluster.x-k8s.io/v1alpha2',
      kind: 'CoreProvider',
      metadata: { namespace: 'other', name: 'core' },
      spec: { fetchConfig: { url: 'https://example.com' } },
    };
    const existing = {
      ...p,
      metadata: { namespace: 'capi-system', name: 'cluster-api' },
    } as unknown as Provider;
    const { reader, calls } = fakeReader([], [], [existing]);
    const response = await run('validate', review('CREATE', p), reader);
    assert.equal(response.response.allowed, true);
    assert.deepEqual(calls, []);
  });

  test('refuses a provider with two fetch sources, naming the field', async () => {
    const p = {
      apiVersion: 'operator.cluster.x-k8s.io/v1alpha2',
      kind: 'CoreProvider',
      metadata: { namespace: 'capi-system', name: 'cluster-api' },
      spec: { fetchConfig: { url: 'https://example.com', oci: 'example.com/capi:v1' } },
    };
    const response = await run('validate', review('CREATE', p), fakeReader([]).reader);
    assert.equal(
      response.response.status?.message,
      'CoreProvider.operator.cluster.x-k8s.io "cluster-api" is invalid: spec.fetchConfig: Invalid value: Must specify one and only one of {oci, url, selector}',
    );
  });

  test('allows kinds without rules', async () => {
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'default', name: 'x' } };
    const response = await run('validate', review('CREATE', cm), fakeReader([]).reader);
    assert.deepEqual(response.response, { uid: 'uid-1', allowed: true });
  });
});

describe('reviewAdmission: Clusters being deleted', () => {
  test('allows finalizer removal on a Cluster being deleted even when its class is gone', async () => {
    const deleting = new ClusterBuilder().with((c) => (c.metadata.deletionTimestamp = '2024-05-01T10:00:00Z')).build();
    const { reader, calls } = fakeReader([]);
    for (const mode of ['mutate', 'validate'] as const) {
      const response = await run(mode, review('UPDATE', deleting, cluster), reader);
      assert.equal(response.response.allowed, true);
    }
    assert.deepEqual(calls, []);
  });
});

describe('reviewAdmission: v1beta1 objects are converted at the edge', () => {
  /** The Cluster as a client speaking v1beta1 sends it. */
  function v1beta1Cluster(variables?: unknown[]) {
    return deepFreeze({
      apiVersion: 'cluster.x-k8s.io/v1beta1',
      kind: 'Cluster',
      metadata: { namespace: cluster.metadata.namespace, name: cluster.metadata.name },
      spec: {
        infrastructureRef: {
          apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
          kind: 'DockerCluster',
          namespace: cluster.metadata.namespace,
          name: 'infra',
        },
        topology: {
          class: 'quick-start',
          version: 'v1.34.0',
          controlPlane: { nodeDrainTimeout: '1m0s' },
          ...(variables === undefined ? {} : { variables }),
        },
      },
    });
  }
  function v1beta1Review(operation: 'CREATE' | 'UPDATE', object: unknown, oldObject?: unknown): AdmissionReview {
    const r = review(operation, object, oldObject);
    return {
      ...r,
      request: {
        ...r.request,
        kind: { ...r.request.kind, version: 'v1beta1' },
        resource: { ...r.request.resource, version: 'v1beta1' },
      },
    };
  }

  test('defaults variables of a v1beta1 Cluster with a patch of the v1beta1 object, nothing else touched', async () => {
    const raw = v1beta1Cluster();
    const response = await run('mutate', v1beta1Review('CREATE', raw), fakeReader([cc]).reader);
    assert.equal(response.response.allowed, true);
    assert.deepEqual(decodePatch(response), [
      { op: 'add', path: '/spec/topology/variables', value: [{ name: 'cpu', value: 2 }] },
    ]);
  });

  test('refuses a v1beta1 Cluster whose variable the class rejects, as for v1beta2', async () => {
    const response = await run(
      'mutate',
      v1beta1Review('CREATE', v1beta1Cluster([{ name: 'cpu', value: 0 }])),
      fakeReader([cc]).reader,
    );
    assert.equal(response.response.allowed, false);
    assert.equal(response.response.status?.code, 422);
  });

  test('validates a v1beta1 update against the class named by topology.class', async () => {
    const { reader, calls } = fakeReader([cc]);
    const next = v1beta1Cluster([{ name: 'cpu', value: 3 }]);
    const old = v1beta1Cluster([{ name: 'cpu', value: 2 }]);
    const response = await run('validate', v1beta1Review('UPDATE', next, old), reader);
    assert.equal(response.response.allowed, true);
    assert.deepEqual(calls, ['getClusterClass quick-start']);
  });
});
