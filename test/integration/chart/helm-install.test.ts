// The chart installed by `helm install` (helm built from its Go module) into a real kube-apiserver, with values shaped
// as the stack's ChartValues output: every object exists as rendered, the webhook configurations send topology
// Cluster writes to `<baseUrl>/<token>/…`, an upgrade applies a changed value, and uninstall removes every object.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createObject, findObject, getObject, type KubeObject, type ObjectRef } from '#shared/kube/index.ts';
import { startManagementCluster, type TestCluster } from '#test/support/harness/clusters.ts';
import { runHelm } from '#test/support/harness/helm.ts';
import { startWebhookServer, type WebhookServer } from '#test/support/harness/webhook-server.ts';
import { chartDir } from '../../../infra/chart/chart-files.ts';

const namespace = 'capi-serverless-system';
const release = 'capi-serverless';
const refusal = 'refused by the test webhook behind the chart-installed configuration';

/** Every object the chart installs with the handoff policy on (cluster-scoped unless namespaced). */
const installed: ObjectRef[] = [
  { apiVersion: 'apps/v1', kind: 'Deployment', namespace, name: 'capi-serverless-forwarder' },
  { apiVersion: 'v1', kind: 'ServiceAccount', namespace, name: 'capi-serverless-forwarder' },
  { apiVersion: 'v1', kind: 'Service', namespace, name: 'capi-serverless-forwarder-metrics' },
  ...['forwarder', 'topology', 'addons', 'providers', 'rollout', 'webhooks'].flatMap((n) => [
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', name: `capi-serverless-${n}` },
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', name: `capi-serverless-${n}` },
  ]),
  { apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'PriorityLevelConfiguration', name: 'capi-serverless' },
  { apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'FlowSchema', name: 'capi-serverless' },
  {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    name: 'capi-serverless-validating-webhook-configuration',
  },
  {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingWebhookConfiguration',
    name: 'capi-serverless-mutating-webhook-configuration',
  },
  {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicy',
    name: 'capi-system-capi-serverless-clusterresourceset-handoff',
  },
  {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicyBinding',
    name: 'capi-system-capi-serverless-clusterresourceset-handoff',
  },
];

describe('helm install of the chart on a real API server', () => {
  let mgmt: TestCluster;
  let dir: string;
  let webhooks: WebhookServer;
  const paths: string[] = [];
  const token = randomBytes(24).toString('hex');
  let helmArgs: string[];

  before(async () => {
    mgmt = await startManagementCluster({ name: 'helm-install' });
    dir = mkdtempSync(join(tmpdir(), 'helm-install-'));
    // NOTE: stands in for the webhooks function: records the path it is called on and refuses (AdmissionReview v1).
    webhooks = await startWebhookServer(async (event) => {
      const { rawPath, body, isBase64Encoded } = event as { rawPath: string; body: string; isBase64Encoded?: boolean };
      paths.push(rawPath);
      const text = isBase64Encoded ? Buffer.from(body, 'base64').toString('utf8') : body;
      const review = JSON.parse(text) as { request: { uid: string } };
      const response = { uid: review.request.uid, allowed: false, status: { code: 403, message: refusal } };
      return {
        statusCode: 200,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response }),
      };
    });
    // NOTE: the shape of the stack's ChartValues output (infra/capi-serverless-stack.ts), pointing at the stand-in.
    const values = {
      region: 'eu-west-1',
      eventBusName: 'CapiServerless',
      tableName: 'CapiServerless-State-1ABC',
      webhooks: {
        baseUrl: `${webhooks.url}/`,
        tokenSecretArn: 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:t',
      },
      forwarder: {
        namespace,
        serviceAccount: 'capi-serverless-forwarder',
        roleArn: 'arn:aws:iam::111122223333:role/forwarder',
        image: { repository: '111122223333.dkr.ecr.eu-west-1.amazonaws.com/cdk-assets', tag: 'abc123' },
      },
      functions: Object.fromEntries(
        ['topology', 'addons', 'providers', 'rollout', 'webhooks'].map((fn) => [
          fn,
          { group: `capi-serverless:${fn}`, roleArn: `arn:aws:iam::111122223333:role/${fn}` },
        ]),
      ),
    };
    const valuesFile = join(dir, 'values.json');
    writeFileSync(valuesFile, JSON.stringify(values));
    helmArgs = [
      '--kubeconfig',
      mgmt.controlPlane.kubeconfigPath,
      '-n',
      namespace,
      '-f',
      valuesFile,
      '--set-string',
      `webhooks.token=${token},webhooks.caBundle=${webhooks.caBundle}`,
      '--set',
      'handoff.clusterResourceSetPolicy.enabled=true',
    ];
  });
  after(async () => {
    await webhooks?.stop();
    await mgmt?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('installs every object of the chart', async () => {
    const { code, stdout, stderr } = await runHelm(['install', release, chartDir, '--create-namespace', ...helmArgs]);
    assert.equal(code, 0, `${stdout}\n${stderr}`);
    assert.match(stdout, /STATUS: deployed/);
    assert.match(
      stdout,
      /NOTES:[^]*kubectl -n capi-serverless-system rollout status deployment\/capi-serverless-forwarder/,
    );
    for (const ref of installed) {
      const object = await getObject(mgmt.kube, ref);
      assert.equal(object.metadata.labels?.['app.kubernetes.io/managed-by'], 'Helm', `${ref.kind} ${ref.name}`);
    }
  });

  test('a topology Cluster write reaches the webhook at <baseUrl>/<token>/mutate and its answer is enforced', async () => {
    const cluster: KubeObject = {
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      kind: 'Cluster',
      metadata: { name: 'c1', namespace: 'default' },
      spec: { topology: { classRef: { name: 'quick-start' }, version: 'v1.33.0' } },
    };
    await assert.rejects(createObject(mgmt.kube, cluster, { fieldManager: 'test-user' }), new RegExp(refusal));
    assert.deepEqual([...new Set(paths)], [`/${token}/mutate`]);
  });

  test('helm upgrade applies a changed value', async () => {
    const { code, stderr } = await runHelm([
      'upgrade',
      release,
      chartDir,
      ...helmArgs,
      '--set',
      'forwarder.coalesceMs=250',
    ]);
    assert.equal(code, 0, stderr);
    const deployment = (await getObject(mgmt.kube, installed[0] as ObjectRef)) as KubeObject & {
      spec: { template: { spec: { containers: { env: { name: string; value: string }[] }[] } } };
    };
    const env = deployment.spec.template.spec.containers[0]?.env ?? [];
    assert.equal(env.find((e) => e.name === 'COALESCE_MS')?.value, '250');
  });

  test('helm uninstall removes every object', async () => {
    const { code, stderr } = await runHelm([
      'uninstall',
      release,
      '--kubeconfig',
      mgmt.controlPlane.kubeconfigPath,
      '-n',
      namespace,
      '--wait',
    ]);
    assert.equal(code, 0, stderr);
    for (const ref of installed)
      assert.equal(await findObject(mgmt.kube, ref), undefined, `${ref.kind} ${ref.name} is left`);
  });
});
