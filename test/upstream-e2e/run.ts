// `npm run test:upstream-e2e [-- <label>...]`: upstream Cluster API v1.14.2's own e2e specs against capi-serverless.
//   1. (host network) builds or finds this folder's Go test binary (build.sh), upstream's managers, its test extension,
//      its provider components and e2e data (test/support/harness; the Go module proxy only on a cold cache);
//   2. (a private network namespace, `unshare -n`) starts the local plane as test/e2e does: kube-apiserver and etcd,
//      upstream's managers with the Docker provider's in-memory backend in the handoff configuration, capi-serverless
//      doing topology and ClusterResourceSets (functions' handlers behind the local bus, fed by the forwarder), and
//      upstream's test extension behind the Service upstream's specs name;
//   3. writes an e2e config (the provider components the harness built, upstream's in-memory templates, the variables
//      and intervals of upstream's test/e2e/config/docker.yaml) and runs the binary with a ginkgo label filter;
//   4. prints one row per spec from ginkgo's JSON report; exits non-zero when a spec failed.
// Labels (specs_test.go): quick-start, clusterclass-changes, clusterclass-rollout, runtimesdk-upgrade, in-place-update;
// default: all. With in-place-update selected the whole run uses the in-place configuration (docs/beside-upstream.md):
// the core manager with RuntimeSDK and InPlaceUpdates on, the kubeadm control plane with InPlaceUpdates on, and
// capi-serverless with EXTENSION_CONFIG_DISCOVERY=upstream.
// UPSTREAM_E2E_ARTIFACTS keeps the artifacts (logs, dumps, report) in that folder instead of a temporary one.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { startProduct, type RunningProduct } from '#test/e2e/product.ts';
import { serveBehindService, inPrivateNetworkNamespace } from '#test/support/harness/extension-service.ts';
import {
  startTestExtension,
  resolveTestExtensionBinary,
  type TestExtension,
} from '#test/support/harness/test-extension.ts';
import {
  computeGatesForAllManagers,
  inPlaceUpdatesFeatureGates,
  resolveUpstreamBinaries,
  startUpstreamManagementCluster,
} from '#test/support/harness/upstream-capi.ts';
import { resolveUpstreamManifests } from '#test/support/harness/upstream-crds.ts';
import { resolveUpstreamRelease, type UpstreamProvider } from '#test/support/harness/upstream-provider-components.ts';
import type { TestCluster } from '#test/support/harness/clusters.ts';

const here = dirname(fileURLToPath(import.meta.url));
const capiVersion = 'v1.14.2';
const labels = [
  'quick-start',
  'clusterclass-changes',
  'clusterclass-rollout',
  'runtimesdk-upgrade',
  'in-place-update',
] as const;
const inNamespaceMarker = 'UPSTREAM_E2E_IN_NETNS';

const log = (line: string) => console.error(`upstream-e2e: ${new Date().toISOString().slice(11, 19)} ${line}`);

function selectedLabels(args: readonly string[]): string[] {
  const unknown = args.filter((a) => !(labels as readonly string[]).includes(a));
  if (unknown.length > 0) throw new Error(`unknown spec label(s) ${unknown.join(', ')}; known: ${labels.join(', ')}`);
  return args.length > 0 ? [...args] : [...labels];
}

/** Step 1, on the host network: everything that may need the Go module proxy. */
function prepareBuilds(): string {
  log('building or finding the e2e test binary (test/upstream-e2e/build.sh)');
  const started = Date.now();
  const out = execFileSync('bash', [join(here, 'build.sh')], {
    stdio: ['ignore', 'pipe', 'inherit'],
    encoding: 'utf8',
  });
  const binary = out.trim().split('\n').pop() ?? '';
  log(`test binary ready in ${((Date.now() - started) / 1000).toFixed(0)} s: ${binary}`);
  resolveUpstreamBinaries();
  resolveTestExtensionBinary();
  resolveUpstreamRelease(capiVersion);
  resolveUpstreamManifests();
  return binary;
}

/** Re-runs this script in a private network namespace (the pod address of the extension's Service goes on its lo). */
function reexecInNetworkNamespace(binary: string): number {
  const up = ['sh', '-c', 'ip link set lo up && exec "$@"', 'sh'];
  // NOTE: a private mount namespace too, so the in-place configuration can give upstream's managers a hosts entry.
  const flags = process.getuid?.() === 0 ? '-nm' : '-rnm';
  if (spawnSync('unshare', [flags, ...up, 'true'], { stdio: 'ignore' }).status !== 0)
    throw new Error(`unshare ${flags} failed: the run needs a private network namespace (it changes loopback)`);
  const result = spawnSync(
    'unshare',
    [flags, ...up, process.execPath, ...process.execArgv, fileURLToPath(import.meta.url), ...process.argv.slice(2)],
    {
      stdio: 'inherit',
      env: {
        ...process.env,
        [inNamespaceMarker]: binary,
        CAPI_SERVERLESS_HOST_NETNS: String(statSync('/proc/self/ns/net').ino),
      },
    },
  );
  return result.status ?? 1;
}

/** The e2e config: upstream's docker.yaml reduced to what the in-memory specs read, with the harness's components. */
function writeE2EConfig(dir: string, extraVariables: Record<string, string>): string {
  const release = resolveUpstreamRelease(capiVersion);
  const manifests = resolveUpstreamManifests();
  const write = (name: string, content: string) => {
    const path = join(dir, name);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, content);
    return path;
  };
  const metadata = write('metadata.yaml', release.metadata);
  const provider = (name: string, type: string, component: UpstreamProvider, files: string[] = []) => ({
    name,
    type,
    versions: [
      {
        name: capiVersion,
        value: write(`${component}/components.yaml`, release.components(component)),
        type: 'url',
        files: [metadata, ...files].map((sourcePath) => ({ sourcePath })),
      },
    ],
  });
  const config = {
    managementClusterName: 'capi-serverless-upstream-e2e',
    providers: [
      provider('cluster-api', 'CoreProvider', 'core'),
      provider('kubeadm', 'BootstrapProvider', 'bootstrap-kubeadm'),
      provider('kubeadm', 'ControlPlaneProvider', 'control-plane-kubeadm'),
      provider('docker', 'InfrastructureProvider', 'infrastructure-docker', [
        manifests.e2e.clusterTemplateInMemoryTopology,
        manifests.e2e.clusterClassInMemory,
      ]),
    ],
    // NOTE: upstream's test/e2e/config/docker.yaml (v1.14.2), the values the in-memory specs read.
    variables: {
      KUBERNETES_VERSION_MANAGEMENT: 'v1.37.0',
      KUBERNETES_VERSION: 'v1.37.0',
      KUBERNETES_VERSION_CHAINED_UPGRADE_FROM: 'v1.33.12',
      KUBERNETES_VERSION_UPGRADE_FROM: 'v1.36.4',
      KUBERNETES_VERSION_UPGRADE_TO: 'v1.37.0',
      ETCD_VERSION_UPGRADE_TO: '3.7.0-0',
      COREDNS_VERSION_UPGRADE_TO: 'v1.14.6',
      DOCKER_SERVICE_DOMAIN: 'cluster.local',
      IP_FAMILY: 'dual',
      DOCKER_SERVICE_CIDRS: '10.128.0.0/12',
      DOCKER_POD_CIDRS: '192.168.0.0/16',
      EXP_CLUSTER_RESOURCE_SET: 'true',
      CLUSTER_TOPOLOGY: 'true',
      EXP_RUNTIME_SDK: 'true',
      EXP_MACHINE_TAINT_PROPAGATION: 'true',
      ...extraVariables,
    },
    intervals: {
      'default/wait-controllers': ['4m', '10s'],
      'default/wait-cluster': ['5m', '10s'],
      'default/wait-control-plane': ['10m', '10s'],
      'default/wait-worker-nodes': ['5m', '10s'],
      'default/wait-machine-pool-nodes': ['5m', '10s'],
      'default/wait-delete-cluster': ['3m', '10s'],
      'default/wait-machine-upgrade': ['20m', '10s'],
      'default/wait-control-plane-upgrade': ['15m', '10s'],
      'default/wait-machine-deployment-upgrade': ['10m', '10s'],
      'default/wait-machine-pool-upgrade': ['5m', '10s'],
      'default/wait-nodes-ready': ['10m', '10s'],
      'default/wait-resource-versions-become-stable': ['2m', '15s'],
      'default/wait-resource-versions-remain-stable': ['2m', '5s'],
    },
  };
  return write('e2e-config.yaml', stringify(config));
}

type SpecReport = {
  ContainerHierarchyTexts?: string[] | null;
  LeafNodeText: string;
  LeafNodeType: string;
  State: string;
  RunTime: number;
  Failure?: { Message?: string; Location?: { FileName?: string; LineNumber?: number } };
};

/** One row per spec (ginkgo's JSON report), and the closing `N passed, N failed` line. */
function printResults(reportPath: string, fallbackExit: number): number {
  let specs: SpecReport[];
  try {
    const suites = JSON.parse(readFileSync(reportPath, 'utf8')) as { SpecReports?: SpecReport[] | null }[];
    specs = suites.flatMap((s) => s.SpecReports ?? []);
  } catch (err) {
    log(`no ginkgo report (${String(err)}); the binary exited ${fallbackExit}`);
    return fallbackExit || 1;
  }
  // NOTE: specs the label filter left out are counted as skipped, not listed.
  const rows = specs.filter((s) => (s.LeafNodeType === 'It' && s.State !== 'skipped') || s.State === 'failed');
  const name = (s: SpecReport) => [...(s.ContainerHierarchyTexts ?? []), s.LeafNodeText].filter(Boolean).join(' / ');
  console.log('\n| spec | result | time | failure |\n| --- | --- | --- | --- |');
  for (const s of rows) {
    const failure =
      s.Failure?.Message?.split('\n')
        .find((l) => l.trim() !== '')
        ?.slice(0, 200) ?? '';
    const where = s.Failure?.Location?.FileName
      ? ` (${s.Failure.Location.FileName.split('/').slice(-2).join('/')}:${s.Failure.Location.LineNumber ?? 0})`
      : '';
    const time = `${(s.RunTime / 1e9).toFixed(0)} s`;
    console.log(`| ${name(s) || s.LeafNodeType} | ${s.State} | ${time} | ${failure.replaceAll('|', '\\|')}${where} |`);
  }
  const its = specs.filter((s) => s.LeafNodeType === 'It');
  const passed = its.filter((s) => s.State === 'passed').length;
  const failed = specs.filter((s) => s.State !== 'passed' && s.State !== 'skipped' && s.State !== 'pending').length;
  const skipped = its.filter((s) => s.State === 'skipped' || s.State === 'pending').length;
  console.log(`\nupstream-e2e: ${passed} passed, ${failed} failed, ${skipped} skipped`);
  return failed > 0 || passed === 0 ? 1 : 0;
}

/**
 * In-place updates: upstream's core and kubeadm control-plane managers call the test extension themselves, by its
 * Service's DNS name on port 443 (as in a kind cluster). Processes have no cluster DNS: the name goes into /etc/hosts
 * (bind-mounted in this private mount namespace) at the Service's pod address, and a forwarder on that address's
 * port 443 passes connections to the extension's port. Returns a function that stops the forwarder.
 */
async function serveServiceNameToManagers(ext: TestExtension, podIp = '10.255.0.1'): Promise<() => void> {
  const { namespace, name } = { namespace: 'test-extension-system', name: 'test-extension-webhook-service' };
  const hosts = join(mkdtempSync(join(tmpdir(), 'upstream-e2e-hosts-')), 'hosts');
  writeFileSync(
    hosts,
    `${readFileSync('/etc/hosts', 'utf8')}\n${podIp} ${name}.${namespace}.svc ${name}.${namespace}.svc.cluster.local\n`,
  );
  execFileSync('mount', ['--bind', hosts, '/etc/hosts'], { stdio: 'pipe' });
  const port = Number(new URL(ext.url).port);
  const server = createServer((socket) => {
    const upstream = connect(port, '127.0.0.1');
    socket.pipe(upstream).pipe(socket);
    socket.on('error', () => upstream.destroy());
    upstream.on('error', () => socket.destroy());
  });
  await new Promise<void>((done, fail) => server.once('error', fail).listen(443, podIp, () => done()));
  return () => server.close();
}

/** Step 2-4, inside the private network namespace. */
async function runInNamespace(binary: string, selected: readonly string[]): Promise<number> {
  if (!inPrivateNetworkNamespace()) throw new Error('not in a private network namespace');
  const artifacts = resolve(process.env['UPSTREAM_E2E_ARTIFACTS'] ?? mkdtempSync(join(tmpdir(), 'upstream-e2e-')));
  mkdirSync(artifacts, { recursive: true });
  log(`artifacts: ${artifacts}`);
  let mgmt: (TestCluster & { upstream: { logs(): string } }) | undefined;
  let product: RunningProduct | undefined;
  let extension: TestExtension | undefined;
  let stopForwarder: (() => void) | undefined;
  const started = Date.now();
  try {
    const inPlace = selected.includes('in-place-update');
    log(`starting kube-apiserver, etcd and upstream managers (handoff configuration${inPlace ? ', in place' : ''})`);
    // NOTE: upstream's e2e runs every manager with EXP_MACHINE_TAINT_PROPAGATION=true (docker.yaml); its in-memory
    // templates set taints, which the webhooks refuse with the gate off.
    const featureGates = computeGatesForAllManagers({ MachineTaintPropagation: true });
    if (inPlace) {
      for (const [manager, gates] of Object.entries(inPlaceUpdatesFeatureGates))
        featureGates[manager as keyof typeof featureGates] = {
          ...featureGates[manager as keyof typeof featureGates],
          ...gates,
        };
      // NOTE: read by the functions' configuration when startProduct starts them.
      process.env['EXTENSION_CONFIG_DISCOVERY'] = 'upstream';
    }
    mgmt = await startUpstreamManagementCluster({ name: 'upstream-e2e', upstream: { featureGates } });
    log('starting capi-serverless (topology, addons) and the test extension behind its Service');
    product = await startProduct(mgmt, ['topology', 'addons']);
    extension = await startTestExtension(mgmt.controlPlane.kubeconfigPath);
    await serveBehindService(mgmt.kube, extension);
    if (inPlace) stopForwarder = await serveServiceNameToManagers(extension);
    log(`plane up in ${((Date.now() - started) / 1000).toFixed(0)} s`);

    const config = writeE2EConfig(join(artifacts, 'config'), inPlace ? { EXP_IN_PLACE_UPDATES: 'true' } : {});
    const report = join(artifacts, 'report.json');
    const args = [
      `-e2e.config=${config}`,
      `-e2e.kubeconfig=${mgmt.controlPlane.kubeconfigPath}`,
      `-e2e.artifacts-folder=${artifacts}`,
      `-ginkgo.label-filter=${selected.join(' || ')}`,
      '-ginkgo.v',
      '-ginkgo.timeout=3h',
      `-ginkgo.json-report=${report}`,
      '-test.timeout=0',
    ];
    log(`running ${binary} ${args.join(' ')}`);
    const runStarted = Date.now();
    const code = await new Promise<number>((done) => {
      const child = spawn(binary, args, { stdio: 'inherit', cwd: artifacts, env: { ...process.env, KUBECONFIG: '' } });
      child.on('exit', (c, signal) => done(c ?? (signal ? 1 : 0)));
    });
    log(`specs ran in ${((Date.now() - runStarted) / 1000).toFixed(0)} s (binary exit ${code})`);
    writeFileSync(join(artifacts, 'capi-serverless-passes.log'), product.passLines.join('\n'));
    writeFileSync(join(artifacts, 'upstream-managers.log'), mgmt.upstream.logs());
    writeFileSync(join(artifacts, 'test-extension.log'), extension.logs());
    return printResults(report, code);
  } finally {
    stopForwarder?.();
    await product?.stop();
    await extension?.stop();
    await mgmt?.stop();
    log(`total ${((Date.now() - started) / 1000).toFixed(0)} s; artifacts in ${artifacts}`);
  }
}

async function main(): Promise<number> {
  const selected = selectedLabels(process.argv.slice(2));
  const binary = process.env[inNamespaceMarker];
  if (binary) return runInNamespace(binary, selected);
  return reexecInNetworkNamespace(prepareBuilds());
}

process.exitCode = await main();
