// The forwarder's probes as the chart's Deployment declares them, on a real kube-apiserver. There is no kubelet or
// container runtime here, so the test does the kubelet's part: it installs the chart with helm, reads the Deployment
// back from the API server, and runs the forwarder bundle (built as functions/forwarder/Dockerfile builds it, with the
// node flags of its CMD) as a process with the container's environment (downward-API fields resolved as the kubelet
// resolves them), as the Deployment's ServiceAccount (a TokenRequest token, where a pod has it projected), with the
// AWS credentials EKS Pod Identity would inject (AWS_CONTAINER_CREDENTIALS_FULL_URI and a token file, served by a
// stand-in of the Pod Identity agent on loopback). It then probes the exact path and port each probe names, with the
// probe's timeout, counting 2xx and 3xx as success as the kubelet does.
//
// The sequence: Secrets are not yet listable by the ServiceAccount (its ClusterRole's Secret rule removed), so the
// first list of v1/Secret cannot complete: not ready, alive; once every LIST and watch of it has failed for longer
// than FORWARDER_WEDGED_AFTER_SECONDS (30, given through forwarder.extraEnv): not alive either; the rule restored: ready
// and alive, the heartbeat Lease renewed by the pod's name, and a ClusterResourceSet Secret forwarded.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { applyObject, getObject, patchObject, type KubeObject, type ObjectRef } from '#shared/kube/index.ts';
import { clusterResourceSetSecretType } from '#functions/forwarder/default-targets.ts';
import { bundleForwarder, forwarderNodeFlags } from '#test/bench/measure-forwarder.ts';
import { startEventBridgeRecorder, type EventBridgeRecorder } from '#test/integration/runtime/loopback.ts';
import { startManagementCluster, type TestCluster } from '#test/support/harness/clusters.ts';
import { runHelm } from '#test/support/harness/helm.ts';
import { getFreePort } from '#test/support/harness/ports.ts';
import { chartDir } from '../../../infra/chart/chart-files.ts';

const namespace = 'capi-serverless-system';
const podName = 'capi-serverless-forwarder-7d9f8b6c5-x2x4q';
const wedgedAfterSeconds = 30;
const user = { fieldManager: 'test-user' } as const;

type EnvVar = { name: string; value?: string; valueFrom?: { fieldRef?: { fieldPath: string } } };
type HttpGetProbe = { httpGet: { path: string; port: number | string }; timeoutSeconds?: number };
type Container = {
  name: string;
  env: EnvVar[];
  ports: { name?: string; containerPort: number }[];
  livenessProbe: HttpGetProbe;
  readinessProbe: HttpGetProbe;
};
type Deployment = KubeObject & {
  spec: { template: { spec: { serviceAccountName: string; containers: Container[] } } };
};

const deploymentRef: ObjectRef = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  namespace,
  name: 'capi-serverless-forwarder',
};
const forwarderRoleRef: ObjectRef = {
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'ClusterRole',
  name: 'capi-serverless-forwarder',
};

/** The container's environment as the kubelet gives it to the process (only the fieldRefs the chart uses). */
function resolveEnv(env: readonly EnvVar[]): Record<string, string> {
  const fields: Record<string, string> = { 'metadata.namespace': namespace, 'metadata.name': podName };
  return Object.fromEntries(
    env.map((e) => {
      if (e.value !== undefined) return [e.name, e.value];
      const field = e.valueFrom?.fieldRef?.fieldPath;
      const value = field === undefined ? undefined : fields[field];
      if (value === undefined) throw new Error(`env ${e.name}: no value the test can resolve`);
      return [e.name, value];
    }),
  );
}

/** A probe's port: a number, or the name of one of the container's ports. */
function resolvePort(container: Container, port: number | string): number {
  if (typeof port === 'number') return port;
  const named = container.ports.find((p) => p.name === port);
  if (!named) throw new Error(`probe port ${port} names no port of container ${container.name}`);
  return named.containerPort;
}

type ProbeResult = { readonly ok: boolean; readonly status: number; readonly body: string };

/** One HTTP probe as the kubelet runs it: GET the path on the pod's address, success on 2xx/3xx within the timeout. */
async function runProbe(container: Container, probe: HttpGetProbe): Promise<ProbeResult> {
  const port = resolvePort(container, probe.httpGet.port);
  try {
    const res = await fetch(`http://127.0.0.1:${port}${probe.httpGet.path}`, {
      redirect: 'manual',
      signal: AbortSignal.timeout((probe.timeoutSeconds ?? 1) * 1000),
    });
    return { ok: res.status >= 200 && res.status < 400, status: res.status, body: await res.text() };
  } catch {
    return { ok: false, status: 0, body: '' };
  }
}

async function eventually<T>(what: string, check: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

const portIsFree = (port: number) =>
  new Promise<boolean>((resolve) => {
    const server = createTcpServer();
    server.once('error', () => resolve(false));
    server.listen(port, '0.0.0.0', () => server.close(() => resolve(true)));
  });

/** A stand-in for the EKS Pod Identity agent: credentials for the token the pod's token file holds. */
async function startPodIdentityAgent(
  token: string,
): Promise<{ url: string; calls: () => number; stop(): Promise<void> }> {
  let calls = 0;
  const server: Server = createServer((req, res) => {
    calls++;
    if (req.headers.authorization !== token) return void res.writeHead(403).end('{"message":"bad token"}');
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        AccessKeyId: 'ASIAPODIDENTITY',
        SecretAccessKey: 'pod-identity-secret',
        Token: 'pod-identity-session',
        Expiration: new Date(Date.now() + 3_600_000).toISOString(),
      }),
    );
  });
  const port = await new Promise<number>((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)),
  );
  return {
    url: `http://127.0.0.1:${port}/v1/credentials`,
    calls: () => calls,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('the forwarder bundle as the chart runs it: its liveness and readiness probes on a real API server', () => {
  let mgmt: TestCluster;
  let dir: string;
  let recorder: EventBridgeRecorder;
  let agent: Awaited<ReturnType<typeof startPodIdentityAgent>>;
  let child: ChildProcess | undefined;
  let container: Container;
  let secretRule: unknown[];
  const stderr: string[] = [];

  before(async () => {
    mgmt = await startManagementCluster({ name: 'forwarder-probes' });
    dir = mkdtempSync(join(tmpdir(), 'forwarder-probes-'));
    recorder = await startEventBridgeRecorder();
    agent = await startPodIdentityAgent('pod-identity-token');
    // NOTE: the chart's default port when it is free in this run's network namespace, else another one (the
    // Deployment then names that one; the test probes what it names either way).
    const httpPort = (await portIsFree(8080)) ? 8080 : await getFreePort();
    // The shape of the stack's ChartValues output (infra/capi-serverless-stack.ts), EKS variant.
    const values = {
      region: 'us-east-1',
      eventBusName: 'CapiServerless',
      tableName: 'CapiServerless-StateTable-1ABC',
      webhooks: {
        baseUrl: 'https://abc.lambda-url.us-east-1.on.aws/',
        tokenKubeSecret: `${namespace}/capi-serverless-webhook-token`,
      },
      forwarder: {
        namespace,
        serviceAccount: 'capi-serverless-forwarder',
        roleArn: 'arn:aws:iam::111122223333:role/forwarder',
        image: { repository: '111122223333.dkr.ecr.us-east-1.amazonaws.com/cdk-assets', tag: 'abc123' },
        httpPort,
        extraEnv: [{ name: 'FORWARDER_WEDGED_AFTER_SECONDS', value: String(wedgedAfterSeconds) }],
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
    const helm = await runHelm([
      'install',
      'capi-serverless',
      chartDir,
      '--kubeconfig',
      mgmt.controlPlane.kubeconfigPath,
      '-n',
      namespace,
      '--create-namespace',
      '-f',
      valuesFile,
    ]);
    assert.equal(helm.code, 0, `${helm.stdout}\n${helm.stderr}`);
    const deployment = (await getObject(mgmt.kube, deploymentRef)) as Deployment;
    const podSpec = deployment.spec.template.spec;
    container = podSpec.containers[0] as Container;

    // Secrets not yet listable: the forwarder's ClusterRole without its rule for them (restored by a test below).
    const role = (await getObject(mgmt.kube, forwarderRoleRef)) as KubeObject & { rules: { resources: string[] }[] };
    secretRule = role.rules;
    const withoutSecrets = role.rules.map((r) => ({ ...r, resources: r.resources.filter((x) => x !== 'secrets') }));
    await patchObject(mgmt.kube, forwarderRoleRef, { rules: withoutSecrets }, user);
    await applyObject(
      mgmt.kube,
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { namespace: 'default', name: 'addon' },
        type: clusterResourceSetSecretType,
        stringData: { v: '1' },
      } as KubeObject,
      user,
    );

    // The pod's identity: a token of the Deployment's ServiceAccount, as the kubelet projects it.
    const token = await mgmt.kube.request<{ status: { token: string } }>({
      method: 'POST',
      path: `/api/v1/namespaces/${namespace}/serviceaccounts/${podSpec.serviceAccountName}/token`,
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 } },
      target: { verb: 'create', kind: 'TokenRequest', namespace, name: podSpec.serviceAccountName },
    });
    const caData = /certificate-authority-data: (\S+)/.exec(mgmt.controlPlane.kubeconfig)?.[1] ?? '';
    const kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(
      kubeconfig,
      [
        'apiVersion: v1',
        'kind: Config',
        `clusters: [{ name: c, cluster: { server: '${mgmt.controlPlane.server}', certificate-authority-data: '${caData}' } }]`,
        `users: [{ name: sa, user: { token: '${token.status.token}' } }]`,
        'contexts: [{ name: sa, context: { cluster: c, user: sa } }]',
        'current-context: sa',
        '',
      ].join('\n'),
    );
    const podIdentityTokenFile = join(dir, 'eks-pod-identity-token');
    writeFileSync(podIdentityTokenFile, 'pod-identity-token');

    const bundle = await bundleForwarder();
    child = spawn(process.execPath, [...forwarderNodeFlags(), bundle], {
      cwd: dir,
      env: {
        PATH: process.env['PATH'] ?? '',
        ...resolveEnv(container.env),
        // NOTE: what a pod has besides the container's env: its ServiceAccount (here a kubeconfig with its token, where
        // a pod reads /var/run/secrets/kubernetes.io/serviceaccount), and what the EKS Pod Identity webhook injects.
        KUBECONFIG: kubeconfig,
        AWS_CONTAINER_CREDENTIALS_FULL_URI: agent.url,
        AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE: podIdentityTokenFile,
        // NOTE: PutEvents to a loopback recorder instead of EventBridge.
        AWS_ENDPOINT_URL_EVENTBRIDGE: recorder.endpoint,
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    child.stderr?.on('data', (d: Buffer) => stderr.push(d.toString('utf8')));
  });
  after(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child?.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    await Promise.all([recorder?.stop(), agent?.stop()]);
    await mgmt?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const probe = (which: 'livenessProbe' | 'readinessProbe') => runProbe(container, container[which]);
  const running = () => assert.equal(child?.exitCode, null, `the forwarder exited: ${stderr.join('')}`);

  test('the Deployment probes /healthz and /readyz on the port named http, which FORWARDER_HTTP_PORT sets', () => {
    assert.equal(container.livenessProbe.httpGet.path, '/healthz');
    assert.equal(container.readinessProbe.httpGet.path, '/readyz');
    const port = resolvePort(container, container.readinessProbe.httpGet.port);
    assert.equal(resolvePort(container, container.livenessProbe.httpGet.port), port);
    assert.equal(resolveEnv(container.env)['FORWARDER_HTTP_PORT'], String(port));
  });

  test('not ready while the first list of Secrets cannot complete, and alive', async () => {
    const ready = await eventually(
      'the readiness probe answers',
      async () => (running(), (await probe('readinessProbe')).status ? probe('readinessProbe') : undefined),
      60_000,
    );
    assert.equal(ready.ok, false);
    assert.equal(ready.status, 503);
    assert.match(ready.body, /v1\/Secret: initial list not done/);
    assert.equal((await probe('livenessProbe')).ok, true);
  });

  test(`not alive once every LIST of Secrets has failed for longer than ${wedgedAfterSeconds} s`, async () => {
    const live = await eventually(
      'the liveness probe fails',
      async () => ((running(), await probe('livenessProbe')).ok ? undefined : probe('livenessProbe')),
      (wedgedAfterSeconds + 30) * 1000,
    );
    assert.equal(live.status, 503);
    assert.match(live.body, /v1\/Secret: every LIST and watch failed for \d+ s/);
    assert.equal((await probe('readinessProbe')).ok, false);
  });

  test('ready and alive once the ServiceAccount may list Secrets; the heartbeat and a Secret change get through', async () => {
    await patchObject(mgmt.kube, forwarderRoleRef, { rules: secretRule }, user);
    // NOTE: the Secret watcher retries with a backoff capped at 30 s.
    await eventually('ready', async () => (running(), (await probe('readinessProbe')).ok || undefined), 60_000);
    assert.equal((await probe('livenessProbe')).ok, true);
    const lease = (await getObject(mgmt.kube, {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      namespace,
      name: 'capi-serverless-forwarder-heartbeat',
    })) as KubeObject & { spec: { holderIdentity?: string } };
    assert.equal(lease.spec.holderIdentity, podName);
    const forwarded = () =>
      recorder.requests
        .flatMap((r) => r.entries)
        .some((e) => {
          const change = JSON.parse(e.Detail) as { kind?: string; name?: string };
          return change.kind === 'Secret' && change.name === 'addon';
        });
    await eventually('the ClusterResourceSet Secret is forwarded', async () => forwarded() || undefined, 20_000);
    assert.ok(agent.calls() > 0, 'credentials come from the Pod Identity stand-in');
  });
});
