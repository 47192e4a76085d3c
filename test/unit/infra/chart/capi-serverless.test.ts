// The Helm chart of the cluster side (infra/chart/capi-serverless), linted and rendered by helm built from its Go
// module: the stack's ChartValues output, synthesized and resolved as `describe-stacks` prints it, is a values file
// as it is; every object the raw manifests had is rendered from the same files; bad values fail naming the value.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { App } from 'aws-cdk-lib';
import type { KubeObject } from '#shared/kube/index.ts';
import { computeClusterResourceSetHandoffPolicy } from '#shared/providers/desired/compute-handoff.ts';
import { computeBeforeClusterDeletePolicy } from '#shared/providers/desired/compute-before-cluster-delete-policy.ts';
import { CapiServerlessStack, type CapiServerlessStackProps } from '../../../../infra/capi-serverless-stack.ts';
import { chartDir } from '../../../../infra/chart/chart-files.ts';
import { functionGroups } from '../../../../infra/cluster-access.ts';
import { loadWebhookConfigurations } from '../../../../infra/webhooks/webhook-manifests.ts';
import { renderChart, runHelm } from '#test/support/harness/helm.ts';
import { cdkJsonContext, createTestApp } from '../../../support/builders/test-app.ts';
import { resolveOutput } from '../../../support/builders/resolve-outputs.ts';

const region = 'eu-west-1';
const eksCluster = { name: 'mgmt', endpoint: 'https://ABC.gr7.eu-west-1.eks.amazonaws.com', caData: 'Y2E=' };
const token = 'Zm9yd2FyZGVyLXRva2VuLTAxMjM0NTY3';
const namespace = 'capi-serverless-system';

type Container = {
  image: string;
  env: { name: string; value: string }[];
  livenessProbe: { httpGet: { path: string; port: string } };
  readinessProbe: { httpGet: { path: string; port: string } };
  ports: { name: string; containerPort: number }[];
  resources: unknown;
};
type Deployment = KubeObject & {
  spec: { template: { spec: { serviceAccountName: string; containers: Container[] } } };
};

/** Synthesizes the stack in `dir` and writes its ChartValues output, resolved, to `<dir>/values.json`. */
function writeChartValues(dir: string, props: CapiServerlessStackProps): { file: string; values: ChartValues } {
  const app = createTestApp();
  const stack = new CapiServerlessStack(app, 'CapiServerless', {
    env: { account: '111122223333', region },
    ...props,
  });
  const template = app.synth().getStackByName(stack.stackName).template as {
    Outputs: Record<string, { Value: unknown }>;
    Resources: Record<string, { Type: string }>;
  };
  const text = resolveOutput(template.Outputs['ChartValues']?.Value, template.Resources, region);
  const file = join(dir, 'values.json');
  writeFileSync(file, text);
  return { file, values: JSON.parse(text) as ChartValues };
}

type ChartValues = {
  eventBusName: string;
  webhooks: { baseUrl: string };
  forwarder: { image?: { repository: string; tag: string }; irsaRoleArn?: string };
};

const byKind = (objects: KubeObject[], kind: string) => objects.filter((o) => o.kind === kind);
const withoutLabels = (o: KubeObject) => ({ ...o, metadata: { ...o.metadata, labels: undefined } });

describe('the chart with the stack’s ChartValues output', () => {
  let dir: string;
  let eks: { file: string; values: ChartValues };
  let kubeconfig: { file: string; values: ChartValues };
  let objects: KubeObject[];
  const installArgs = (file: string, ...more: string[]) => [
    '-n',
    namespace,
    '-f',
    file,
    '--set-string',
    `webhooks.token=${token}`,
    ...more,
  ];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'chart-'));
    for (const name of ['eks', 'kubeconfig']) mkdirSync(join(dir, name));
    eks = writeChartValues(join(dir, 'eks'), { eksCluster, forwarderImage: true });
    kubeconfig = writeChartValues(join(dir, 'kubeconfig'), { kubeconfigSecretName: 'mgmt-kubeconfig' });
    objects = await renderChart(chartDir, installArgs(eks.file));
  });
  after(() => dir && rmSync(dir, { recursive: true, force: true }));

  test('helm lint --strict passes with the output as the values file', async () => {
    const { code, stdout, stderr } = await runHelm(['lint', '--strict', chartDir, ...installArgs(eks.file)]);
    assert.equal(code, 0, `${stdout}\n${stderr}`);
    assert.match(stdout, /1 chart\(s\) linted, 0 chart\(s\) failed/);
  });

  test('the forwarder runs the stack’s image against its bus, with probes on /healthz and /readyz', () => {
    const [deployment] = byKind(objects, 'Deployment') as Deployment[];
    assert.equal(deployment?.metadata.namespace, namespace);
    const container = deployment?.spec.template.spec.containers[0];
    assert.equal(container?.image, `${eks.values.forwarder.image?.repository}:${eks.values.forwarder.image?.tag}`);
    assert.match(container?.image ?? '', /^111122223333\.dkr\.ecr\.eu-west-1\.amazonaws\.com\/cdk-[^:]+:[0-9a-f]{64}$/);
    const env = Object.fromEntries(container?.env.map((e) => [e.name, e.value]) ?? []);
    assert.deepEqual(env, {
      EVENT_BUS_NAME: eks.values.eventBusName,
      AWS_REGION: region,
      COALESCE_MS: '500',
      FORWARDER_HTTP_PORT: '8080',
      SECRET_SCOPE: 'resource-set',
      POD_NAMESPACE: undefined,
      POD_NAME: undefined,
    });
    const downward = container?.env.filter((e) => e.name.startsWith('POD_')) as unknown as {
      valueFrom: { fieldRef: { fieldPath: string } };
    }[];
    assert.deepEqual(
      downward.map((e) => e.valueFrom.fieldRef.fieldPath),
      ['metadata.namespace', 'metadata.name'],
      'the heartbeat Lease is renewed in the pod’s namespace, by the pod',
    );
    assert.deepEqual(container?.ports, [{ name: 'http', containerPort: 8080, protocol: 'TCP' }]);
    assert.deepEqual(container?.livenessProbe.httpGet, { path: '/healthz', port: 'http' });
    assert.deepEqual(container?.readinessProbe.httpGet, { path: '/readyz', port: 'http' });
    assert.deepEqual(container?.resources, { requests: { cpu: '5m', memory: '72Mi' }, limits: { memory: '128Mi' } });
  });

  test('Pod Identity by default: the ServiceAccount the association names, without an IRSA annotation', () => {
    const [sa] = byKind(objects, 'ServiceAccount');
    assert.deepEqual([sa?.metadata.namespace, sa?.metadata.name], [namespace, 'capi-serverless-forwarder']);
    assert.equal(sa?.metadata.annotations, undefined);
  });

  test('the webhook configurations are the shipped ones for <Function URL>/<token>', () => {
    const rendered = [
      ...byKind(objects, 'ValidatingWebhookConfiguration'),
      ...byKind(objects, 'MutatingWebhookConfiguration'),
    ].map(withoutLabels);
    const expected = loadWebhookConfigurations({ baseUrl: `${eks.values.webhooks.baseUrl}${token}` }).map(
      withoutLabels,
    );
    assert.deepEqual(rendered, expected);
    assert.match(JSON.stringify(rendered), /https:\/\/[a-z0-9]+\.lambda-url\.eu-west-1\.on\.aws\/Zm9y[^/]+\/validate/);
  });

  test('each function group is bound to its ClusterRole; the FlowSchema serves the groups and the ServiceAccount', () => {
    const bindings = byKind(objects, 'ClusterRoleBinding') as (KubeObject & {
      subjects: { kind: string; name: string; namespace?: string }[];
      roleRef: { name: string };
    })[];
    for (const [fn, group] of Object.entries(functionGroups)) {
      const binding = bindings.find((b) => b.metadata.name === `capi-serverless-${fn}`);
      assert.deepEqual(binding?.subjects, [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: group }]);
    }
    const forwarder = bindings.find((b) => b.metadata.name === 'capi-serverless-forwarder');
    assert.deepEqual(forwarder?.subjects, [{ kind: 'ServiceAccount', name: 'capi-serverless-forwarder', namespace }]);
    const [schema] = byKind(objects, 'FlowSchema') as (KubeObject & {
      spec: { rules: { subjects: { kind: string; group?: { name: string }; serviceAccount?: unknown }[] }[] };
    })[];
    const subjects = schema?.spec.rules.flatMap((r) => r.subjects) ?? [];
    for (const group of Object.values(functionGroups))
      assert.ok(
        subjects.some((s) => s.group?.name === group),
        group,
      );
    assert.ok(
      subjects.some(
        (s) => JSON.stringify(s.serviceAccount) === JSON.stringify({ name: 'capi-serverless-forwarder', namespace }),
      ),
    );
    assert.equal(byKind(objects, 'PriorityLevelConfiguration').length, 1);
  });

  test('every object carries the chart’s labels and no handoff policy unless asked', () => {
    for (const o of objects) assert.equal(o.metadata.labels?.['app.kubernetes.io/part-of'], 'capi-serverless', o.kind);
    assert.equal(byKind(objects, 'ValidatingAdmissionPolicy').length, 0);
  });

  test('the handoff policy is the one the providers function applies', async () => {
    const rendered = await renderChart(
      chartDir,
      installArgs(eks.file, '--set', 'handoff.clusterResourceSetPolicy.enabled=true'),
    );
    const policy = rendered.filter((o) => o.kind.startsWith('ValidatingAdmissionPolicy')).map(withoutLabels);
    const expected = computeClusterResourceSetHandoffPolicy({
      name: 'capi-system-capi-serverless-clusterresourceset-handoff',
      user: 'system:serviceaccount:capi-system:capi-manager',
    }).map((o) => withoutLabels(o as KubeObject));
    assert.deepEqual(policy, expected);
  });

  test('the BeforeClusterDelete policy is the one the providers function applies', async () => {
    const rendered = await renderChart(
      chartDir,
      installArgs(eks.file, '--set', 'handoff.beforeClusterDeletePolicy.enabled=true'),
    );
    const policy = rendered.filter((o) => o.kind.startsWith('ValidatingAdmissionPolicy')).map(withoutLabels);
    const expected = computeBeforeClusterDeletePolicy({
      name: 'capi-system-capi-serverless-before-cluster-delete-handoff',
      user: 'system:serviceaccount:capi-system:capi-manager',
    }).map((o) => withoutLabels(o as KubeObject));
    assert.deepEqual(policy, expected);
  });

  test('without an EKS cluster: no role, credentials left to the user (identity none, or IRSA when set)', async () => {
    const rendered = await renderChart(
      chartDir,
      installArgs(kubeconfig.file, '--set', 'forwarder.image.repository=registry.example/fwd,forwarder.image.tag=v1'),
    );
    assert.equal(byKind(rendered, 'ServiceAccount')[0]?.metadata.annotations, undefined);
    const irsa = await renderChart(
      chartDir,
      installArgs(
        kubeconfig.file,
        '--set',
        'forwarder.image.repository=registry.example/fwd,forwarder.image.tag=v1,forwarder.identity=irsa',
        '--set',
        'forwarder.irsaRoleArn=arn:aws:iam::111122223333:role/fwd',
      ),
    );
    assert.deepEqual(byKind(irsa, 'ServiceAccount')[0]?.metadata.annotations, {
      'eks.amazonaws.com/role-arn': 'arn:aws:iam::111122223333:role/fwd',
    });
  });

  test('IRSA from the stack (forwarderIdentity=irsa): the ChartValues alone annotate the ServiceAccount with its role', async () => {
    const irsaDir = join(dir, 'irsa');
    mkdirSync(irsaDir);
    const irsa = writeChartValues(irsaDir, {
      eksCluster,
      forwarderImage: true,
      forwarderIdentity: 'irsa',
      oidcIssuer: 'https://oidc.eks.eu-west-1.amazonaws.com/id/0123456789ABCDEF',
    });
    const rendered = await renderChart(chartDir, installArgs(irsa.file));
    assert.deepEqual(byKind(rendered, 'ServiceAccount')[0]?.metadata.annotations, {
      'eks.amazonaws.com/role-arn': String(irsa.values.forwarder.irsaRoleArn),
    });
    assert.match(String(irsa.values.forwarder.irsaRoleArn), /^arn:aws:iam::111122223333:role\/ForwarderRole/);
    const { code, stdout, stderr } = await runHelm(['lint', '--strict', chartDir, ...installArgs(irsa.file)]);
    assert.equal(code, 0, `${stdout}\n${stderr}`);
  });

  const refused: [string, string[], RegExp][] = [
    [
      'an unknown key (a typo)',
      ['--set', 'forwarder.imag.tag=x'],
      /forwarder.*additional properties 'imag' not allowed/,
    ],
    ['a bad region', ['--set', 'region=Europe'], /\/region.*does not match pattern/],
    ['an http webhook URL', ['--set', 'webhooks.baseUrl=http://example.com'], /\/webhooks\/baseUrl/],
    ['a short path token', ['--set-string', 'webhooks.token=short'], /\/webhooks\/token/],
    ['an unknown identity', ['--set', 'forwarder.identity=keys'], /\/forwarder\/identity/],
    ['IRSA without a role', ['--set', 'forwarder.identity=irsa'], /irsaRoleArn/],
    ['requests without memory', ['--set', 'forwarder.resources.requests.memory=null'], /memory/],
    ['a port below 1024', ['--set', 'forwarder.httpPort=80'], /\/forwarder\/httpPort/],
  ];
  for (const [name, args, message] of refused)
    test(`refuses ${name}, naming the value`, async () => {
      await assert.rejects(renderChart(chartDir, installArgs(eks.file, ...args)), message);
    });

  test('refuses a release namespace other than the one the Pod Identity association names', async () => {
    await assert.rejects(
      renderChart(chartDir, ['-n', 'default', '-f', eks.file, '--set-string', `webhooks.token=${token}`]),
      /forwarder.namespace is "capi-serverless-system".*install with -n capi-serverless-system/,
    );
  });

  test('without a token: the chart generates one, stores it in the Secret the webhooks read, and registers it', async () => {
    const rendered = await renderChart(chartDir, ['-n', namespace, '-f', eks.file]);
    const secret = byKind(rendered, 'Secret').find((s) => s.metadata.name === 'capi-serverless-webhook-token') as
      (KubeObject & { data: { token: string } }) | undefined;
    assert.equal(secret?.metadata.namespace, namespace);
    const generated = Buffer.from(secret?.data.token ?? '', 'base64').toString();
    assert.match(generated, /^[A-Za-z0-9]{48}$/);
    const urls = byKind(rendered, 'ValidatingWebhookConfiguration')
      .concat(byKind(rendered, 'MutatingWebhookConfiguration'))
      .flatMap((c) => (c as unknown as { webhooks: { clientConfig: { url: string } }[] }).webhooks)
      .map((w) => w.clientConfig.url);
    assert.ok(urls.length > 0);
    for (const url of urls) assert.ok(url.startsWith(`${eks.values.webhooks.baseUrl}${generated}/`), url);
  });

  test('a token kept in AWS (an opt-in store) must be given, saying where it is', async () => {
    await assert.rejects(
      renderChart(chartDir, ['-n', namespace, '-f', eks.file, '--set-string', 'webhooks.tokenKubeSecret=']),
      /webhooks.token is required/,
    );
  });

  test('refuses an install without an image when the stack built none', async () => {
    await assert.rejects(
      renderChart(chartDir, installArgs(kubeconfig.file)),
      /forwarder.image.repository is required.*forwarderImage=true/,
    );
  });
});

describe('the forwarder image asset', () => {
  test('synth stages only what the Dockerfile copies for the platform asked, and needs no Docker', () => {
    const outdir = mkdtempSync(join(tmpdir(), 'forwarder-image-'));
    try {
      const app = new App({ outdir, context: { ...cdkJsonContext, 'aws:cdk:bundling-stacks': [] } });
      new CapiServerlessStack(app, 'Image', {
        kubeconfigSecretName: 'mgmt-kubeconfig',
        forwarderImage: true,
        forwarderImagePlatform: 'linux/arm64',
      });
      app.synth();
      const manifest = JSON.parse(readFileSync(join(outdir, 'Image.assets.json'), 'utf8')) as {
        dockerImages: Record<string, { source: { directory: string; dockerFile: string; platform: string } }>;
      };
      const images = Object.values(manifest.dockerImages);
      assert.equal(images.length, 1);
      assert.deepEqual(
        [images[0]?.source.dockerFile, images[0]?.source.platform],
        ['functions/forwarder/Dockerfile', 'linux/arm64'],
      );
      const context = join(outdir, images[0]?.source.directory ?? '');
      assert.deepEqual(readdirSync(context).sort(), ['functions', 'package-lock.json', 'package.json', 'shared']);
    } finally {
      rmSync(outdir, { recursive: true, force: true });
    }
  });
});
