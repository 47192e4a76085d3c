// The functions as `cdk synth` bundles them, run in a Lambda runtime: the AWS Lambda Runtime Interface Emulator with
// the Node runtime interface client on Node 22, each bundle's environment as the template sets it, pointed at a real
// kube-apiserver and DynamoDB Local, the kubeconfig and the webhook token read from secrets at run time. Every bundled
// function is invoked: a tick in each controller, an event pass in each controller that writes what its reconciler
// writes (topology: the Cluster's objects; addons: the ClusterResourceSet's finalizer; providers: the core provider's
// components from release ConfigMaps; rollout: the rollout's status) and webhook admissions, so a bundling defect
// (a missing module, ESM/CJS, the target, a lazily loaded dependency) fails here.
//   RIE_CDK_OUT=<dir>  use an assembly already synthesized with this test's context instead of synthesizing
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { controllers, createCheckpointStore, createDynamoDBClient, ensureTable } from '#shared/checkpoint/index.ts';
import { AddonsApiVersion } from '#shared/api/addons/v1beta2/cluster-resource-set.ts';
import { RolloutApiVersion } from '#shared/api/management/v1alpha1/cluster-rollout.ts';
import { operatorApiVersion } from '#shared/api/operator/v1alpha2/provider.ts';
import { applyObject, getObject, listObjects, type KubeObject } from '#shared/kube/index.ts';
import { objectChangedEvent, tickEvent } from '#shared/runtime/events.ts';
import {
  applyProvider,
  ensureNamespace,
  getDeployment,
  readProvider,
  seedReleaseConfigMap,
  waitForProviderKinds,
} from '#test/integration/providers/provider-fixtures.ts';
import { genericCrd, startManagementCluster, type TestCluster } from '#test/support/harness/clusters.ts';
import { startDynamoDB, type DynamoDBServer } from '#test/support/harness/dynamodb.ts';
import {
  getLambdaRuntimeTools,
  resolveEnvironment,
  startEmulatedFunction,
  startSecretsExtension,
  synthesizeApp,
  type CloudAssembly,
  type EmulatedFunction,
} from '#test/support/harness/lambda-rie.ts';

const capi = 'cluster.x-k8s.io/v1beta2';
const kubeconfigSecretName = 'mgmt-kubeconfig';
const webhookTokenSecretName = 'webhook-token';
const pathToken = `rie-${randomUUID()}`;
const sessionToken = `session-${randomUUID()}`;
// Every Lambda entry in functions/ (the forwarder is a Deployment, not a function).
const entries = readdirSync(new URL('../../../functions/', import.meta.url)).filter((f) => f.endsWith('.ts'));

function readExample(file: string): KubeObject[] {
  const text = readFileSync(new URL(`../../../examples/docker/${file}`, import.meta.url), 'utf8');
  return parseAllDocuments(text).map((d) => d.toJS() as KubeObject);
}

let assembly: CloudAssembly;
let mgmt: TestCluster;
let ddb: DynamoDBServer;
let extension: Awaited<ReturnType<typeof startSecretsExtension>>;
const functions = new Map<string, EmulatedFunction>();
const tokenSecretIds = new Set<string>();

/** Invokes a function through the emulator; a function error (or a failed init) fails with the function's output. */
async function invoke(name: string, event: unknown): Promise<Record<string, unknown>> {
  const fn = functions.get(name);
  assert.ok(fn, `no emulated ${name} function`);
  const { status, body } = await fn.invoke(event);
  const failure = `${name}: HTTP ${status}: ${body}\n--- emulator and runtime output:\n${fn.process.tail(40)}`;
  assert.equal(status, 200, failure);
  const result = JSON.parse(body) as Record<string, unknown>;
  assert.equal(result['errorType'], undefined, failure);
  return result;
}

describe('the bundled functions in the Lambda Runtime Interface Emulator (Node 22, aws-lambda-ric)', () => {
  before(async () => {
    let tools: { rie: string; ric: string };
    [tools, assembly, mgmt, ddb] = await Promise.all([
      getLambdaRuntimeTools(),
      synthesizeApp({ kubeconfigSecretName, webhookTokenSecretName }, process.env['RIE_CDK_OUT']),
      startManagementCluster({
        name: 'lambda-rie',
        extraCrds: [
          genericCrd('infrastructure.cluster.x-k8s.io', 'v1beta2', 'DockerClusterTemplate'),
          genericCrd('infrastructure.cluster.x-k8s.io', 'v1beta2', 'DockerCluster'),
          genericCrd('infrastructure.cluster.x-k8s.io', 'v1beta2', 'DockerMachineTemplate'),
          genericCrd('controlplane.cluster.x-k8s.io', 'v1beta2', 'KubeadmControlPlaneTemplate'),
          genericCrd('controlplane.cluster.x-k8s.io', 'v1beta2', 'KubeadmControlPlane'),
          genericCrd('bootstrap.cluster.x-k8s.io', 'v1beta2', 'KubeadmConfigTemplate'),
        ],
      }),
      startDynamoDB(),
    ]);
    const tableName = `lambda-rie-${process.pid}`;
    const store = createCheckpointStore({ client: createDynamoDBClient(ddb), tableName });
    await ensureTable(store);
    store.client.destroy();
    // NOTE: the secrets a function names in its environment (a context name, or a secret the stack creates).
    const secrets = new Map<string, string>();
    extension = await startSecretsExtension(secrets, sessionToken);
    for (const fn of assembly.functions) {
      const accountId = '000000000000';
      const environment = resolveEnvironment(fn, assembly, {
        refsByType: {
          'AWS::DynamoDB::Table': tableName,
          // NOTE: no EventBridge here: without EVENT_BUS_NAME every mapped pass runs in its own invocation.
          'AWS::Events::EventBus': undefined,
          'AWS::SecretsManager::Secret': (id) => `arn:aws:secretsmanager:${ddb.region}:${accountId}:secret:${id}`,
        },
        // NOTE: the one-time schedules' role; a requeued pass here would fail to reach Scheduler and leave its pass to
        // the sweep (the schedules are tested on moto's Scheduler API in scheduler-wake-ups.test.ts).
        arnsByType: { 'AWS::IAM::Role': (id) => `arn:aws:iam::${accountId}:role/${id}` },
        region: ddb.region,
        accountId,
      });
      const kubeconfigSecret = environment['KUBECONFIG_SECRET_ARN'];
      const tokenSecret = environment['WEBHOOK_TOKEN_SECRET_ARN'];
      if (kubeconfigSecret) secrets.set(kubeconfigSecret, mgmt.controlPlane.kubeconfig);
      if (tokenSecret) {
        secrets.set(tokenSecret, pathToken);
        tokenSecretIds.add(tokenSecret);
      }
      functions.set(
        fn.controller,
        await startEmulatedFunction(fn, tools, {
          ...environment,
          // What Lambda and the Parameters and Secrets layer provide, pointed at the harness's servers.
          AWS_REGION: ddb.region,
          AWS_DEFAULT_REGION: ddb.region,
          AWS_ACCESS_KEY_ID: ddb.credentials.accessKeyId,
          AWS_SECRET_ACCESS_KEY: ddb.credentials.secretAccessKey,
          AWS_SESSION_TOKEN: sessionToken,
          DYNAMODB_ENDPOINT: ddb.endpoint,
          PARAMETERS_SECRETS_EXTENSION_HTTP_PORT: String(extension.port),
          POWERTOOLS_TRACE_ENABLED: 'false',
        }),
      );
    }
    for (const obj of [...readExample('clusterclass.yaml'), ...readExample('cluster.yaml')])
      await applyObject(mgmt.kube, obj, { fieldManager: 'test-user', force: true });
  });

  after(async () => {
    await Promise.all([...functions.values()].map((f) => f.stop()));
    await extension?.stop();
    await Promise.all([mgmt?.stop(), ddb?.stop()]);
    assembly?.remove();
  });

  test('cdk synth bundles every function for nodejs22.x with the handler the template names', () => {
    assert.deepEqual(
      assembly.functions.map((f) => `${f.controller}.ts`).sort(),
      entries.sort(),
      'one bundled function per entry in functions/',
    );
    for (const fn of assembly.functions) assert.equal(fn.runtime, 'nodejs22.x', fn.controller);
  });

  for (const controller of controllers) {
    test(`a tick runs in the ${controller} bundle: it reads the checkpoints and lists its kinds`, async () => {
      const result = await invoke(controller, tickEvent(controller, randomUUID(), new Date()));
      assert.equal(result['status'], 'Handled', JSON.stringify(result));
      assert.ok(result['tick'], JSON.stringify(result));
    });
  }

  test('an event pass in the topology bundle writes the class status and the Cluster topology to the API server', async () => {
    const ref = { apiVersion: capi, kind: 'ClusterClass', namespace: 'default', name: 'quick-start' };
    const result = await invoke('topology', objectChangedEvent({ ...ref, type: 'ADDED' }, randomUUID(), new Date()));
    // NOTE: without a bus the class's change reaches its Cluster in the same invocation.
    const passes = result['passes'] as { key: { kind: string }; status: string; result?: string }[];
    assert.deepEqual(
      passes.map((p) => [p.key.kind, p.status, p.result]),
      [
        ['ClusterClass', 'Ran', 'Success'],
        ['Cluster', 'Ran', 'Success'],
      ],
      JSON.stringify(result),
    );
    const clusterClass = await getObject(mgmt.kube, ref);
    const status = clusterClass['status'] as { observedGeneration?: number } | undefined;
    assert.equal(status?.observedGeneration, clusterClass.metadata.generation, JSON.stringify(status));
    const machineDeployments = await listObjects(mgmt.kube, {
      apiVersion: capi,
      kind: 'MachineDeployment',
      namespace: 'default',
      labelSelector: 'cluster.x-k8s.io/cluster-name=docker-1',
    });
    assert.deepEqual(
      machineDeployments.items.map((md) => (md['spec'] as { replicas?: number }).replicas),
      [2],
    );
  });

  /** The passes an event on `ref` ran in `controller`'s bundle, as [kind, status, result]. */
  const runEventPass = async (
    controller: string,
    ref: { apiVersion: string; kind: string; namespace: string; name: string },
  ) => {
    const result = await invoke(controller, objectChangedEvent({ ...ref, type: 'ADDED' }, randomUUID(), new Date()));
    const passes = (result['passes'] ?? []) as { key: { kind: string }; status: string; result?: string }[];
    return { result, passes: passes.map((p) => [p.key.kind, p.status, p.result]) };
  };

  test('an event pass in the addons bundle reconciles a ClusterResourceSet: its finalizer is written', async () => {
    const ref = { apiVersion: AddonsApiVersion, kind: 'ClusterResourceSet', namespace: 'default', name: 'rie-addons' };
    await applyObject(
      mgmt.kube,
      {
        apiVersion: ref.apiVersion,
        kind: ref.kind,
        metadata: { namespace: ref.namespace, name: ref.name },
        spec: {
          clusterSelector: { matchLabels: { 'rie-addons': 'selects-no-cluster' } },
          resources: [{ kind: 'ConfigMap', name: 'rie-addon' }],
        },
      },
      { fieldManager: 'test-user', force: true },
    );
    const { result, passes } = await runEventPass('addons', ref);
    assert.deepEqual(passes, [['ClusterResourceSet', 'Ran', 'Success']], JSON.stringify(result));
    const crs = await getObject(mgmt.kube, ref);
    assert.ok((crs.metadata.finalizers ?? []).length > 0, JSON.stringify(crs.metadata));
  });

  test('an event pass in the providers bundle installs the core provider from its release ConfigMaps', async () => {
    const namespace = 'capi-system';
    const selector = { matchLabels: { 'provider-components': 'rie-core' } };
    await waitForProviderKinds(mgmt.kube);
    await ensureNamespace(mgmt.kube, namespace);
    await seedReleaseConfigMap(mgmt.kube, {
      namespace,
      provider: 'core',
      version: 'v1.0.0',
      labels: selector.matchLabels,
      versionIn: 'name',
    });
    await applyProvider(mgmt.kube, 'CoreProvider', namespace, 'cluster-api', {
      version: 'v1.0.0',
      fetchConfig: { selector },
    });
    const ref = { apiVersion: operatorApiVersion, kind: 'CoreProvider', namespace, name: 'cluster-api' };
    const { result, passes } = await runEventPass('providers', ref);
    // NOTE: installed, then waiting for its Deployment to become available (no kube-controller-manager here).
    assert.deepEqual(passes, [['CoreProvider', 'Ran', 'Requeue']], JSON.stringify(result));
    const deployment = await getDeployment(mgmt.kube, namespace, 'capi-controller-manager');
    assert.match(JSON.stringify(deployment['spec']), /cluster-api-controller:v1\.0\.0/);
    const provider = await readProvider(mgmt.kube, 'CoreProvider', namespace, 'cluster-api');
    assert.match(JSON.stringify(provider['status']), /ProviderInstalled/);
  });

  test('an event pass in the rollout bundle reconciles a ClusterRollout: its status is written', async () => {
    const ref = { apiVersion: RolloutApiVersion, kind: 'ClusterRollout', namespace: 'default', name: 'rie-rollout' };
    await applyObject(
      mgmt.kube,
      {
        apiVersion: ref.apiVersion,
        kind: ref.kind,
        metadata: { namespace: ref.namespace, name: ref.name },
        spec: {
          clusterSelector: { matchLabels: { 'rie-rollout': 'selects-no-cluster' } },
          change: { version: 'v1.34.1' },
          waves: [{ clusters: 'rest' }],
        },
      },
      { fieldManager: 'test-user', force: true },
    );
    const { result, passes } = await runEventPass('rollout', ref);
    assert.deepEqual(passes, [['ClusterRollout', 'Ran', 'Success']], JSON.stringify(result));
    const rollout = await getObject(mgmt.kube, ref);
    assert.ok(rollout['status'], JSON.stringify(rollout));
  });

  test('the webhooks bundle answers an admission with the path token from its secret', async () => {
    const cluster = readExample('cluster.yaml')[0] as KubeObject;
    const review = (uid: string, object: KubeObject) => ({
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      request: {
        uid,
        kind: { group: 'cluster.x-k8s.io', version: 'v1beta2', kind: 'Cluster' },
        resource: { group: 'cluster.x-k8s.io', version: 'v1beta2', resource: 'clusters' },
        namespace: 'default',
        name: object.metadata.name,
        operation: 'CREATE',
        userInfo: { username: 'test-user' },
        object,
      },
    });
    const functionUrlEvent = (path: string, body: unknown) => ({
      version: '2.0',
      routeKey: '$default',
      rawPath: path,
      rawQueryString: '',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      isBase64Encoded: false,
      requestContext: { http: { method: 'POST', path } },
    });
    const answer = async (path: string, body: unknown) => {
      const result = await invoke('webhooks', functionUrlEvent(path, body));
      return { statusCode: result['statusCode'], body: JSON.parse(String(result['body'])) as Record<string, unknown> };
    };

    const accepted = await answer(`/${pathToken}/validate`, review('uid-valid', cluster));
    assert.equal(accepted.statusCode, 200, JSON.stringify(accepted.body));
    assert.deepEqual(accepted.body['response'], { uid: 'uid-valid', allowed: true });

    const badVersion = structuredClone(cluster);
    (badVersion['spec'] as { topology: { version: string } }).topology.version = 'not-a-version';
    const refused = await answer(`/${pathToken}/validate`, review('uid-invalid', badVersion));
    const response = refused.body['response'] as { uid: string; allowed: boolean; status?: { message?: string } };
    assert.equal(response.uid, 'uid-invalid');
    assert.equal(response.allowed, false);
    assert.match(response.status?.message ?? '', /version/, JSON.stringify(response));

    const wrongToken = await answer('/not-the-token/validate', review('uid-token', cluster));
    assert.equal(wrongToken.statusCode, 403);
    assert.ok(
      extension.requests().some((id) => id.includes(webhookTokenSecretName)),
      'the token came from its secret',
    );
  });
});
