// The README's deploy section run for real against an AWS API emulator: `cdk bootstrap`, then `cdk deploy` of the app
// (aws-cdk CLI, synth and esbuild bundling included, assets published to the bootstrap bucket, a CloudFormation change
// set created and executed) against moto's server with endpoint overrides, the stack's outputs read back with
// DescribeStacks, and the ChartValues output written as a values file for `helm install` of the chart into a real
// kube-apiserver.
//
// What moto (5.2.5) does not model, said by the test rather than hidden: its CloudFormation skips resource types it has
// no model for (ListStackResources shows them with an empty type, and they exist nowhere in moto); the test asserts
// that list exactly (`unmodelledTypes`). Of the outputs, those built only from modelled resources are real moto
// values; the webhooks' Function URL (AWS::Lambda::Url, unmodelled) is whatever moto's Fn::GetAtt gives for a resource
// it skipped, and the test says so instead of asserting it is a URL. moto-server.py fixes two moto defects the deploy
// needs (documented there). The EKS access entries and Pod Identity association are in the template and skipped too.
//
// Environment: CDK_DEPLOY_VARIANTS=public,private (default public) picks the variants; `private` adds the
// private-subnet settings (a VPC, subnets and route tables created in moto's EC2 first).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { getObject, type KubeObject } from '#shared/kube/index.ts';
import { startManagementCluster, type TestCluster } from '#test/support/harness/clusters.ts';
import {
  describeStack,
  listStackResources,
  type CloudFormationEndpoint,
} from '#test/support/harness/cloudformation.ts';
import { runHelm } from '#test/support/harness/helm.ts';
import { startMoto, type MotoServer } from '#test/support/harness/moto.ts';

const run = promisify(execFile);
const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const cdk = join(repoRoot, 'node_modules', '.bin', 'cdk');
const account = '123456789012';
const region = 'us-east-1';
const credentials = { accessKeyId: 'capiserverless', secretAccessKey: 'local' };
const namespace = 'capi-serverless-system';

/**
 * Resource types of the stack that moto 5.2.5's CloudFormation does not model (skipped with a warning). Also
 * AWS::CDK::Metadata, which `--no-version-reporting` leaves out of the template.
 */
const unmodelledTypes = [
  'AWS::CloudWatch::Alarm',
  'AWS::EKS::AccessEntry',
  'AWS::EKS::PodIdentityAssociation',
  'AWS::Lambda::EventInvokeConfig',
  'AWS::SNS::TopicPolicy',
  'AWS::SQS::QueuePolicy',
  'AWS::Scheduler::Schedule',
  'AWS::Scheduler::ScheduleGroup',
];

const eksContext = {
  eksClusterName: 'mgmt',
  eksClusterEndpoint: 'https://ABCDEF0123456789.gr7.us-east-1.eks.amazonaws.com',
  eksClusterCaData: Buffer.from('not a real CA').toString('base64'),
  // NOTE: a test stack; the default (deletion protection on) is what a user deploys.
  tableDeletionProtection: 'false',
};

type Template = { Resources: Record<string, { Type: string }>; Outputs: Record<string, unknown> };

async function runCdk(args: readonly string[], cwd: string, env: NodeJS.ProcessEnv) {
  try {
    const { stdout, stderr } = await run(cdk, [...args, '--no-notices', '--no-version-reporting'], {
      cwd,
      env,
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, out: `${stdout}\n${stderr}` };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : 1, out: `${e.stdout ?? ''}\n${e.stderr ?? ''}` };
  }
}

describe('cdk bootstrap and cdk deploy against moto, then helm install from the stack outputs', () => {
  let moto: MotoServer;
  let mgmt: TestCluster;
  let dir: string;
  let cfn: CloudFormationEndpoint;
  let env: NodeJS.ProcessEnv;
  let template: Template;
  let chartValuesFile: string;
  let baseUrl: string;

  before(async () => {
    [moto, mgmt] = await Promise.all([
      startMoto({ region, cloudFormation: true }),
      startManagementCluster({ name: 'cdk-deploy' }),
    ]);
    dir = mkdtempSync(join(tmpdir(), 'cdk-deploy-'));
    cfn = { endpoint: moto.endpoint, region, credentials };
    const port = new URL(moto.endpoint).port;
    env = {
      PATH: process.env['PATH'] ?? '',
      HOME: dir,
      AWS_ENDPOINT_URL: moto.endpoint,
      // NOTE: the TemplateURL the CLI gives CloudFormation; moto reads a path-style bucket only from a "localhost" URL.
      AWS_ENDPOINT_URL_S3_FOR_CLOUDFORMATION: `http://localhost:${port}`,
      AWS_ACCESS_KEY_ID: credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
      AWS_REGION: region,
      AWS_DEFAULT_REGION: region,
      CDK_DISABLE_CLI_TELEMETRY: 'true',
    };
  });
  after(async () => {
    await Promise.all([moto?.stop(), mgmt?.stop()]);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('cdk bootstrap creates the CDKToolkit stack', async () => {
    // NOTE: outside the repository (no cdk.json), so the CLI bootstraps without synthesizing the app.
    const { code, out } = await runCdk(['bootstrap', `aws://${account}/${region}`], dir, env);
    assert.equal(code, 0, out);
    assert.equal((await describeStack(cfn, 'CDKToolkit')).status, 'CREATE_COMPLETE');
  });

  test('cdk deploy creates the stack; moto models every resource but the types it has no model for', async () => {
    const outdir = join(dir, 'cdk.out');
    const context = Object.entries(eksContext).flatMap(([k, v]) => ['-c', `${k}=${v}`]);
    const { code, out } = await runCdk(
      ['deploy', '-o', outdir, ...context, '--require-approval', 'never', '--outputs-file', join(dir, 'outputs.json')],
      repoRoot,
      env,
    );
    assert.equal(code, 0, out);
    assert.match(out, /✅ {2}CapiServerless/);
    template = JSON.parse(readFileSync(join(outdir, 'CapiServerless.template.json'), 'utf8')) as Template;

    const stack = await describeStack(cfn, 'CapiServerless');
    assert.equal(stack.status, 'CREATE_COMPLETE');
    assert.deepEqual(stack.tags, { app: 'capi-serverless', 'capi-serverless:stack': 'CapiServerless' });
    const resources = await listStackResources(cfn, 'CapiServerless');
    assert.equal(resources.length, Object.keys(template.Resources).length);
    const modelled = resources.filter((r) => r.type !== '');
    for (const r of modelled) {
      assert.equal(r.type, template.Resources[r.logicalId]?.Type, r.logicalId);
      assert.equal(r.status, 'CREATE_COMPLETE', `${r.logicalId} (${r.type})`);
    }
    const ids = new Set(modelled.map((r) => r.logicalId));
    const skipped = new Set(
      Object.entries(template.Resources)
        .filter(([id]) => !ids.has(id))
        .map(([, r]) => r.Type),
    );
    assert.deepEqual([...skipped].sort(), unmodelledTypes);
  });

  test('DescribeStacks returns every output; ChartValues names what moto created', async () => {
    const { outputs } = await describeStack(cfn, 'CapiServerless');
    assert.deepEqual(Object.keys(outputs).sort(), Object.keys(template.Outputs).sort());
    const values = JSON.parse(outputs['ChartValues'] ?? '') as {
      region: string;
      eventBusName: string;
      tableName: string;
      webhooks: { baseUrl: string; tokenKubeSecret?: string };
      forwarder: { namespace: string; serviceAccount: string; roleArn?: string };
      functions: Record<string, { group: string; roleArn: string }>;
    };
    assert.equal(values.region, region);
    assert.equal(values.eventBusName, 'CapiServerless');
    assert.equal(values.tableName, outputs['TableName']);
    assert.equal(values.webhooks.tokenKubeSecret, `${namespace}/capi-serverless-webhook-token`);
    // NOTE: the URL moto's Lambda API generated for the Function URL (moto-server.py), in AWS's format.
    assert.match(values.webhooks.baseUrl, /^https:\/\/[0-9a-f]{32}\.lambda-url\.us-east-1\.on\.aws\/$/);
    assert.equal(
      values.webhooks.baseUrl,
      Object.entries(outputs).find(([k]) => k.startsWith('WebhooksWebhookBaseUrl'))?.[1],
    );
    baseUrl = values.webhooks.baseUrl;
    assert.deepEqual(values.forwarder.roleArn, outputs['ForwarderRoleArn']);
    assert.match(values.forwarder.roleArn ?? '', new RegExp(`^arn:aws:iam::${account}:role/`));
    assert.deepEqual(Object.keys(values.functions).sort(), ['addons', 'providers', 'rollout', 'topology', 'webhooks']);
    for (const [fn, { group, roleArn }] of Object.entries(values.functions)) {
      assert.equal(group, `capi-serverless:${fn}`);
      assert.equal(roleArn, outputs[`${fn}RoleArn`]);
      assert.match(roleArn, new RegExp(`^arn:aws:iam::${account}:role/`));
    }
    chartValuesFile = join(dir, 'chart-values.yaml');
    writeFileSync(chartValuesFile, outputs['ChartValues'] ?? '');
  });

  test('helm install with the ChartValues output as its values file', async () => {
    const { code, stdout, stderr } = await runHelm([
      'install',
      'capi-serverless',
      join(repoRoot, 'infra', 'chart', 'capi-serverless'),
      '--kubeconfig',
      mgmt.controlPlane.kubeconfigPath,
      '-n',
      namespace,
      '--create-namespace',
      '-f',
      chartValuesFile,
      // NOTE: the image is in ChartValues only with -c forwarderImage=true, which needs Docker at cdk deploy.
      '--set',
      'forwarder.image.repository=example.com/capi-serverless-forwarder',
      '--set-string',
      'forwarder.image.tag=test',
    ]);
    assert.equal(code, 0, `${stdout}\n${stderr}`);
    const deployment = (await getObject(mgmt.kube, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      namespace,
      name: 'capi-serverless-forwarder',
    })) as KubeObject & { spec: { template: { spec: { containers: { env: { name: string; value?: string }[] }[] } } } };
    const containerEnv = deployment.spec.template.spec.containers[0]?.env ?? [];
    assert.equal(containerEnv.find((e) => e.name === 'EVENT_BUS_NAME')?.value, 'CapiServerless');
    assert.equal(containerEnv.find((e) => e.name === 'AWS_REGION')?.value, region);
    const token = (await getObject(mgmt.kube, {
      apiVersion: 'v1',
      kind: 'Secret',
      namespace,
      name: 'capi-serverless-webhook-token',
    })) as KubeObject & { data: { token: string } };
    const tokenText = Buffer.from(token.data.token, 'base64').toString('utf8');
    assert.ok(tokenText.length >= 32);
    const mutating = (await getObject(mgmt.kube, {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingWebhookConfiguration',
      name: 'capi-serverless-mutating-webhook-configuration',
    })) as KubeObject & { webhooks: { clientConfig: { url: string } }[] };
    for (const w of mutating.webhooks) assert.equal(w.clientConfig.url, `${baseUrl}${tokenText}/mutate`);
  });
});
