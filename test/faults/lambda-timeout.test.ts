// Fault: a Lambda timeout in the middle of a topology pass's apply. The topology function as `cdk synth` bundles it
// runs in the Lambda RIE with a 1 s timeout (and a 1 ms stop margin, so its own early stop cannot win the race): the
// emulator ends the invocation mid-pass, nothing after that point runs, no checkpoint is recorded and the lease stays
// until it lapses. Lambda's retry (here: the same function with a 120 s timeout, after the lease's 5 s TTL, the
// stack's 6 min compressed) must converge: every object the topology owns exists once, points back to the Cluster
// (nothing left unowned), and the Cluster's references resolve. Objects the killed pass created under names the next
// pass does not reuse (generated template names) are counted as duplicated. Writes test/faults/results/lambda-timeout.json.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { createCheckpointStore, createDynamoDBClient, ensureTable } from '#shared/checkpoint/index.ts';
import { applyObject, getObject, listObjects, type KubeObject } from '#shared/kube/index.ts';
import { objectChangedEvent } from '#shared/runtime/events.ts';
import { genericCrd, startManagementCluster, type TestCluster } from '#test/harness/clusters.ts';
import { startDynamoDB, type DynamoDBServer } from '#test/harness/dynamodb.ts';
import {
  getLambdaRuntimeTools,
  resolveEnvironment,
  startEmulatedFunction,
  startSecretsExtension,
  synthesizeApp,
  type CloudAssembly,
  type EmulatedFunction,
} from '#test/harness/lambda-rie.ts';

const capi = 'cluster.x-k8s.io/v1beta2';
const sessionToken = `session-${randomUUID()}`;
const leaseTtlMs = 5_000;
const resultsPath = new URL('./results/lambda-timeout.json', import.meta.url);
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const owned = [
  ['infrastructure.cluster.x-k8s.io/v1beta2', 'DockerCluster'],
  ['controlplane.cluster.x-k8s.io/v1beta2', 'KubeadmControlPlane'],
  ['infrastructure.cluster.x-k8s.io/v1beta2', 'DockerMachineTemplate'],
  ['bootstrap.cluster.x-k8s.io/v1beta2', 'KubeadmConfigTemplate'],
  [capi, 'MachineDeployment'],
] as const;

function readExample(file: string): KubeObject[] {
  const text = readFileSync(new URL(`../../examples/docker/${file}`, import.meta.url), 'utf8');
  return parseAllDocuments(text).map((d) => d.toJS() as KubeObject);
}

let assembly: CloudAssembly;
let mgmt: TestCluster;
let ddb: DynamoDBServer;
let extension: Awaited<ReturnType<typeof startSecretsExtension>>;
let retry: EmulatedFunction;
let startKilled: (timeoutSeconds: number) => Promise<EmulatedFunction>;

before(async () => {
  let tools: { rie: string; ric: string };
  [tools, assembly, mgmt, ddb] = await Promise.all([
    getLambdaRuntimeTools(),
    synthesizeApp({ kubeconfigSecretName: 'mgmt-kubeconfig', webhookTokenSecretName: 'webhook-token' }),
    startManagementCluster({
      name: 'lambda-timeout',
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
  const tableName = `lambda-timeout-${process.pid}`;
  const store = createCheckpointStore({ client: createDynamoDBClient(ddb), tableName });
  await ensureTable(store);
  store.client.destroy();
  const secrets = new Map<string, string>();
  extension = await startSecretsExtension(secrets, sessionToken);
  const fn = assembly.functions.find((f) => f.controller === 'topology');
  assert.ok(fn, 'the template has the topology function');
  const environment = resolveEnvironment(fn, assembly, {
    refsByType: {
      'AWS::DynamoDB::Table': tableName,
      'AWS::Events::EventBus': undefined,
      'AWS::SecretsManager::Secret': (id) => `arn:aws:secretsmanager:${ddb.region}:000000000000:secret:${id}`,
    },
    region: ddb.region,
    accountId: '000000000000',
  });
  const kubeconfigSecret = environment['KUBECONFIG_SECRET_ARN'];
  assert.ok(kubeconfigSecret, 'the topology function names its kubeconfig secret');
  secrets.set(kubeconfigSecret, mgmt.controlPlane.kubeconfig);
  const env = (extra: Record<string, string>) => ({
    ...environment,
    AWS_REGION: ddb.region,
    AWS_DEFAULT_REGION: ddb.region,
    AWS_ACCESS_KEY_ID: ddb.credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: ddb.credentials.secretAccessKey,
    AWS_SESSION_TOKEN: sessionToken,
    DYNAMODB_ENDPOINT: ddb.endpoint,
    PARAMETERS_SECRETS_EXTENSION_HTTP_PORT: String(extension.port),
    POWERTOOLS_TRACE_ENABLED: 'false',
    LEASE_TTL_MS: String(leaseTtlMs),
    ...extra,
  });
  startKilled = (timeoutSeconds) =>
    startEmulatedFunction(fn, tools, env({ STOP_BEFORE_TIMEOUT_MS: '1' }), timeoutSeconds);
  retry = await startEmulatedFunction(fn, tools, env({}), 120);
  for (const obj of readExample('clusterclass.yaml'))
    await applyObject(mgmt.kube, obj, { fieldManager: 'test-user', force: true });
});

after(async () => {
  await retry?.stop();
  await extension?.stop();
  await Promise.all([mgmt?.stop(), ddb?.stop()]);
  assembly?.remove();
});

/** The topology's objects of a Cluster, by kind. */
async function listOwned(clusterName: string): Promise<KubeObject[]> {
  const lists = await Promise.all(
    owned.map(([apiVersion, kind]) =>
      listObjects(mgmt.kube, {
        apiVersion,
        kind,
        namespace: 'default',
        labelSelector: `cluster.x-k8s.io/cluster-name=${clusterName}`,
      }),
    ),
  );
  return lists.flatMap((l) => l.items);
}

describe('fault: Lambda timeout in the middle of an apply', () => {
  test('the invocation is ended mid-pass; the retry converges, nothing left unowned', async () => {
    // NOTE: how long a pass takes before its first write depends on the machine: the timeout grows (2 to 6 s),
    // each attempt with a Cluster of its own, until the kill lands after the pass has written something.
    const attempts: { timeoutS: number; timedOut: boolean; objectsAfterKill: number }[] = [];
    let attempt: { name: string; timedOut: boolean; afterKill: number; timeoutS: number; body: string } | undefined;
    let event = objectChangedEvent(
      { apiVersion: capi, kind: 'Cluster', namespace: 'default', name: 'none', type: 'ADDED' },
      randomUUID(),
      new Date(),
    );
    for (const timeoutS of [2, 3, 4, 5, 6]) {
      const killed = await startKilled(timeoutS);
      try {
        // NOTE: a warm container, so the timeout is spent in the pass, not in the cold start.
        for (let i = 0; i < 3; i++) {
          const warm = await killed.invoke(
            objectChangedEvent(
              { apiVersion: capi, kind: 'Cluster', namespace: 'default', name: 'absent', type: 'MODIFIED' },
              randomUUID(),
              new Date(),
            ),
          );
          if (!/timed out/i.test(warm.body)) break;
        }
        const name = `docker-t${timeoutS}`;
        const [example] = readExample('cluster.yaml');
        assert.ok(example);
        const cluster = { ...example, metadata: { ...example.metadata, name } };
        await applyObject(mgmt.kube, cluster, { fieldManager: 'test-user', force: true });
        event = objectChangedEvent(
          { apiVersion: capi, kind: 'Cluster', namespace: 'default', name, type: 'ADDED' },
          randomUUID(),
          new Date(),
        );
        const first = await killed.invoke(event);
        attempt = {
          name,
          timedOut: /timed out/i.test(first.body),
          afterKill: (await listOwned(name)).length,
          timeoutS,
          body: first.body.slice(0, 300),
        };
      } finally {
        await killed.stop();
      }
      attempts.push({ timeoutS, timedOut: attempt.timedOut, objectsAfterKill: attempt.afterKill });
      if (attempt.timedOut && attempt.afterKill > 0) break;
    }
    assert.ok(attempt);
    const clusterName = attempt.name;
    const killedAt = Date.now();
    // Lambda's retry of the failed invocation, once the lease the killed pass held has lapsed.
    let retried = 0;
    let success = false;
    while (!success && Date.now() - killedAt < 60_000) {
      await sleep(retried === 0 ? leaseTtlMs : 1_000);
      retried++;
      const { status, body } = await retry.invoke(event);
      const result = status === 200 ? (JSON.parse(body) as { passes?: { status: string; result?: string }[] }) : {};
      success = (result.passes ?? []).some((p) => p.status === 'Ran' && p.result === 'Success');
    }
    const convergeMs = Date.now() - killedAt;
    const objects = await listOwned(clusterName);
    // NOTE: any owner counts (the Cluster, or a MachineDeployment for its templates). A MachineDeployment gets its
    // owner reference to the Cluster from upstream's MachineDeployment controller, which does not run here.
    const unowned = objects.filter(
      (o) => o.kind !== 'MachineDeployment' && ((o.metadata['ownerReferences'] ?? []) as unknown[]).length === 0,
    );
    const stored = await getObject(mgmt.kube, {
      apiVersion: capi,
      kind: 'Cluster',
      namespace: 'default',
      name: clusterName,
    });
    const spec = stored['spec'] as {
      infrastructureRef?: { kind: string; name: string };
      controlPlaneRef?: { kind: string; name: string };
    };
    const byKind = (kind: string) => objects.filter((o) => o.kind === kind);
    const wrong = [spec.infrastructureRef, spec.controlPlaneRef].filter(
      (ref) => !ref || !objects.some((o) => o.kind === ref.kind && o.metadata.name === ref.name),
    ).length;
    // The converged set: one infrastructure cluster, one control plane, one MachineDeployment, and the templates
    // they reference (control plane machines, workers' machines and bootstrap).
    const expected = {
      DockerCluster: 1,
      KubeadmControlPlane: 1,
      MachineDeployment: 1,
      DockerMachineTemplate: 2,
      KubeadmConfigTemplate: 1,
    };
    const duplicated = Object.entries(expected).reduce(
      (n, [kind, count]) => n + Math.max(0, byKind(kind).length - count),
      0,
    );
    const lost = Object.entries(expected).reduce((n, [kind, count]) => n + Math.max(0, count - byKind(kind).length), 0);
    const row = {
      fault: `Lambda timeout (${attempt.timeoutS} s, RIE) in the middle of a topology pass; retried after the lease lapsed (5 s TTL)`,
      attempts,
      timedOut: attempt.timedOut,
      objectsAfterKill: attempt.afterKill,
      retries: retried,
      convergeAfterKillMs: convergeMs,
      objects: objects.length,
      unowned: unowned.length,
      unownedObjects: unowned.map((o) => `${o.kind} ${o.metadata.name ?? ''}`),
      lost,
      duplicated,
      wrong,
    };
    process.stdout.write(`\n${JSON.stringify(row)}\n`);
    writeFileSync(
      resultsPath,
      JSON.stringify({ date: new Date().toISOString().slice(0, 10), results: [row] }, null, 2) + '\n',
    );
    assert.ok(attempt.timedOut, `the first invocation was ended by the timeout: ${attempt.body}`);
    assert.ok(success, JSON.stringify(row));
    assert.deepEqual(
      { unowned: row.unowned, lost, duplicated, wrong },
      { unowned: 0, lost: 0, duplicated: 0, wrong: 0 },
      JSON.stringify(row),
    );
  });
});
