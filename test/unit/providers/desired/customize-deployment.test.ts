import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ManagerSpec } from '#shared/api/operator/v1alpha2/provider.ts';
import {
  customizeDeployment,
  customizeManagerContainer,
  parseFeatureGates,
  setArg,
} from '#shared/providers/desired/customize-deployment.ts';
import type { ComponentObject } from '#shared/providers/desired/parse-components-yaml.ts';
import { ProviderComponentsError } from '#shared/providers/desired/provider-components-error.ts';
import { deepFreeze } from '#test/support/fixtures/providers.ts';

const deployment = deepFreeze({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'capi-controller-manager', namespace: 'capi-system' },
  spec: {
    template: {
      spec: {
        containers: [
          {
            name: 'manager',
            args: ['--leader-elect', '--feature-gates=MachinePool=true,ClusterTopology=false', '--v=2'],
            livenessProbe: { httpGet: { path: '/healthz', port: 'healthz' } },
            readinessProbe: { httpGet: { path: '/readyz', port: 'healthz' } },
          },
        ],
      },
    },
  },
} as ComponentObject);
const container =
  (deployment['spec'] as { template: { spec: { containers: Record<string, unknown>[] } } }).template.spec
    .containers[0] ?? {};

describe('setArg', () => {
  const cases: ReadonlyArray<{ name: string; args: string[]; flag: string; value: string; want: string[] }> = [
    {
      name: 'replaces an existing flag=value',
      args: ['--v=2', '--x'],
      flag: '--v',
      value: '5',
      want: ['--v=5', '--x'],
    },
    {
      name: 'replaces a bare boolean flag',
      args: ['--leader-elect', '--v=2'],
      flag: '--leader-elect',
      value: 'false',
      want: ['--leader-elect=false', '--v=2'],
    },
    {
      name: 'appends a flag that is absent',
      args: ['--v=2'],
      flag: '--namespace',
      value: 'ns',
      want: ['--v=2', '--namespace=ns'],
    },
    {
      name: 'does not touch a bare flag followed by its value',
      args: ['--namespace', 'a'],
      flag: '--namespace',
      value: 'b',
      want: ['--namespace', 'a', '--namespace=b'],
    },
    {
      name: 'does not confuse a flag with a longer one',
      args: ['--leader-elect-lease-duration=15s'],
      flag: '--leader-elect',
      value: 'true',
      want: ['--leader-elect-lease-duration=15s', '--leader-elect=true'],
    },
  ];
  for (const c of cases)
    test(c.name, () => assert.deepEqual(setArg(Object.freeze([...c.args]), c.flag, c.value), c.want));
});

describe('customizeManagerContainer', () => {
  const cases: ReadonlyArray<{ name: string; manager: ManagerSpec; want: string[]; absent?: string[] }> = [
    { name: 'keeps args when the manager spec is empty', manager: {}, want: ['--leader-elect', '--v=2'] },
    { name: 'writes verbosity when it is not the default 1', manager: { verbosity: 0 }, want: ['--v=0'] },
    { name: 'leaves --v alone for verbosity 1', manager: { verbosity: 1 }, want: ['--v=2'] },
    { name: 'renders sync period in whole seconds', manager: { syncPeriod: '1m30.6s' }, want: ['--sync-period=91s'] },
    {
      name: 'renders max concurrent reconciles',
      manager: { maxConcurrentReconciles: 10 },
      want: ['--max-concurrent-reconciles=10'],
    },
    {
      name: 'renders group-kind concurrency in lower case',
      manager: { controller: { groupKindConcurrency: { 'Cluster.cluster.x-k8s.io': 4 } } },
      want: ['--cluster.cluster.x-k8s.io-concurrency=4'],
    },
    {
      name: 'renders leader election with id and timings when enabled',
      manager: {
        leaderElection: {
          leaderElect: true,
          resourceName: 'lock',
          resourceNamespace: 'ns',
          leaseDuration: '15s',
          renewDeadline: '10s',
          retryPeriod: '2s',
        },
      },
      want: [
        '--leader-elect=true',
        '--leader-election-id=ns/lock',
        '--leader-elect-lease-duration=15s',
        '--leader-elect-renew-deadline=10s',
        '--leader-elect-retry-period=2s',
      ],
      absent: ['--leader-elect'],
    },
    {
      name: 'renders only --leader-elect=false when disabled',
      manager: { leaderElection: { leaderElect: false, resourceName: 'x', resourceNamespace: 'y' } },
      want: ['--leader-elect=false'],
      absent: ['--leader-election-id=y/x'],
    },
    {
      name: 'renders metrics, health, webhook and profiler addresses',
      manager: {
        metrics: { diagnosticsAddress: ':8443', insecureDiagnostics: true },
        health: { healthProbeBindAddress: ':9440' },
        webhook: { port: 9443, certDir: '/certs' },
        profilerAddress: 'localhost:6060',
        cacheNamespace: 'only',
      },
      want: [
        '--diagnostics-address=:8443',
        '--insecure-diagnostics=true',
        '--health-addr=:9440',
        '--webhook-port=9443',
        '--webhook-cert-dir=/certs',
        '--profiler-address=localhost:6060',
        '--namespace=only',
      ],
    },
    {
      name: 'omits --insecure-diagnostics when false',
      manager: { metrics: { insecureDiagnostics: false } },
      want: [],
      absent: ['--insecure-diagnostics=false'],
    },
    {
      name: 'merges feature gates sorted, user values winning',
      manager: { featureGates: { MachinePool: false, A: true } },
      want: ['--feature-gates=A=true,ClusterTopology=false,MachinePool=false'],
    },
    { name: 'adds additional args', manager: { additionalArgs: { '--extra': 'x' } }, want: ['--extra=x'] },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const out = customizeManagerContainer(c.manager, container, deployment);
      for (const arg of c.want) assert.ok(out.args?.includes(arg), `${arg} missing from ${JSON.stringify(out.args)}`);
      for (const arg of c.absent ?? []) assert.ok(!out.args?.includes(arg), `${arg} should be gone`);
      assert.equal(new Set(out.args?.map((a) => a.split('=')[0])).size, out.args?.length, 'no flag twice');
    });
  }

  test('refuses additional args that redefine an existing flag', () => {
    assert.throws(
      () => customizeManagerContainer({ additionalArgs: { '--v': '3' } }, container, deployment),
      (err: unknown) => err instanceof ProviderComponentsError && /arg "--v" already exists/.test(err.message),
    );
  });

  test('points probes at custom endpoint names', () => {
    const out = customizeManagerContainer(
      { health: { livenessEndpointName: 'live', readinessEndpointName: 'ready' } },
      container,
      deployment,
    );
    assert.deepEqual(out['livenessProbe'], { httpGet: { path: '/live', port: 'healthz' } });
    assert.deepEqual(out['readinessProbe'], { httpGet: { path: '/ready', port: 'healthz' } });
  });
});

describe('customizeDeployment', () => {
  test('falls back to the first container when none is named manager', () => {
    const d = deepFreeze({
      ...deployment,
      spec: { template: { spec: { containers: [{ name: 'controller', args: [] }] } } },
    } as ComponentObject);
    const out = customizeDeployment(undefined, { verbosity: 3 }, d);
    assert.deepEqual(
      (out['spec'] as { template: { spec: { containers: { args: string[] }[] } } }).template.spec.containers[0]?.args,
      ['--v=3'],
    );
  });

  test('refuses a manager spec for a Deployment without containers', () => {
    const d = deepFreeze({ ...deployment, spec: {} } as ComponentObject);
    assert.throws(
      () => customizeDeployment(undefined, { verbosity: 3 }, d),
      /cannot find "manager" container in deployment "capi-controller-manager"/,
    );
  });

  test('sets serviceAccountName and imagePullSecrets', () => {
    const out = customizeDeployment(
      { serviceAccountName: 'sa', imagePullSecrets: [{ name: 'pull' }] },
      undefined,
      deployment,
    );
    const pod = (out['spec'] as { template: { spec: Record<string, unknown> } }).template.spec;
    assert.equal(pod['serviceAccountName'], 'sa');
    assert.deepEqual(pod['imagePullSecrets'], [{ name: 'pull' }]);
  });
});

describe('parseFeatureGates', () => {
  test('reads the first --feature-gates flag', () => {
    assert.deepEqual(
      [...parseFeatureGates(['--feature-gates=A=true,B=false,broken', '--feature-gates=C=true'])],
      [
        ['A', true],
        ['B', false],
      ],
    );
  });
});
