// The operator's Deployment customisation (upstream `component_customizer.go`): DeploymentSpec overrides first, then
// the ManagerSpec rendered into the manager container's flags, which therefore win over container args.
import type { ContainerSpec, DeploymentSpec, EnvVar, ManagerSpec } from '#shared/api/operator/v1alpha2/provider.ts';
import type { ComponentObject } from '#shared/providers/desired/parse-components-yaml.ts';
import { parseDuration, roundDuration } from '#shared/lang/go/time.ts';
import { ProviderComponentsError, ProviderReason } from '#shared/providers/desired/provider-components-error.ts';

export const managerContainerName = 'manager';
const defaultVerbosity = 1;

type Json = Record<string, unknown>;
type Container = Json & { name?: string; args?: string[]; env?: EnvVar[] };
const isRecord = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function fail(deployment: ComponentObject, message: string): never {
  throw new ProviderComponentsError(message, {
    kind: 'Deployment',
    ...(deployment.metadata.namespace === undefined ? {} : { namespace: deployment.metadata.namespace }),
    ...(deployment.metadata.name === undefined ? {} : { name: deployment.metadata.name }),
    reason: ProviderReason.ComponentsCustomizationError,
  });
}

/**
 * Sets `name=value` in a container's args: replaces the first `name=...` (or a bare boolean-style `name` not followed
 * by a separate value), else appends.
 *
 * @example
 * setArg(['--leader-elect', '--v=2'], '--leader-elect', 'false'); // ['--leader-elect=false', '--v=2']
 */
export function setArg(args: readonly string[], name: string, value: string): string[] {
  const out = [...args];
  const arg = `${name}=${value}`;
  const i = out.findIndex((a) => a.startsWith(`${name}=`));
  if (i >= 0) {
    out[i] = arg;
    return out;
  }
  // NOTE: upstream appends when the flag is present bare (`--leader-elect`), relying on "last flag wins"; replacing
  // it gives the same behaviour with one flag. A bare flag followed by a separate value (`--namespace x`) is left alone.
  const bare = out.findIndex((a, k) => a === name && (k === out.length - 1 || (out[k + 1] ?? '').startsWith('-')));
  if (bare >= 0) out[bare] = arg;
  else out.push(arg);
  return out;
}

/** Existing `--feature-gates=A=true,B=false` as a map (the first such arg). */
export function parseFeatureGates(args: readonly string[]): Map<string, boolean> {
  const gates = new Map<string, boolean>();
  const arg = args.find((a) => a.startsWith('--feature-gates='));
  if (arg === undefined) return gates;
  for (const gate of arg.slice('--feature-gates='.length).split(',')) {
    const eq = gate.indexOf('=');
    if (eq >= 0) gates.set(gate.slice(0, eq), gate.slice(eq + 1) === 'true');
  }
  return gates;
}

const nanosPerSecond = 1_000_000_000n;
/** Go's `d.Round(time.Second).Seconds()` of a ManagerSpec duration (0 when unset or not a duration). */
const seconds = (d: string | undefined) =>
  Number(roundDuration((d === undefined ? undefined : parseDuration(d)) ?? 0n, nanosPerSecond) / nanosPerSecond);
const sortedEntries = <T>(record: Readonly<Record<string, T>> | undefined) =>
  Object.entries(record ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

function setProbePath(
  container: Container,
  probe: 'livenessProbe' | 'readinessProbe',
  endpoint: string | undefined,
): void {
  const p = container[probe];
  if (endpoint && isRecord(p) && isRecord(p['httpGet'])) p['httpGet'] = { ...p['httpGet'], path: `/${endpoint}` };
}

/**
 * Renders a ManagerSpec into the manager container, with upstream's precedence: every set field replaces the flag
 * in the existing args; feature gates are merged with the existing `--feature-gates` and written sorted;
 * `additionalArgs` may not redefine an existing flag. Returns a new container.
 *
 * @example
 * customizeManagerContainer({ featureGates: { MachinePool: true } }, container).args; // [..., '--feature-gates=MachinePool=true']
 */
export function customizeManagerContainer(
  m: ManagerSpec,
  container: Readonly<Container>,
  deployment: ComponentObject,
): Container {
  const c: Container = structuredClone(container) as Container;
  let args: string[] = Array.isArray(c.args) ? c.args : [];
  for (const [kind, n] of sortedEntries(m.controller?.groupKindConcurrency))
    args = setArg(args, `--${kind.toLowerCase()}-concurrency`, String(n));
  if (m.maxConcurrentReconciles) args = setArg(args, '--max-concurrent-reconciles', String(m.maxConcurrentReconciles));
  const stringFlags: ReadonlyArray<readonly [string, string | undefined]> = [
    ['--namespace', m.cacheNamespace],
    ['--health-addr', m.health?.healthProbeBindAddress],
    ['--metrics-bind-addr', m.metrics?.bindAddress],
    ['--diagnostics-address', m.metrics?.diagnosticsAddress],
    ['--webhook-host', m.webhook?.host],
    ['--webhook-cert-dir', m.webhook?.certDir],
    ['--profiler-address', m.profilerAddress],
  ];
  for (const [flag, value] of stringFlags) if (value) args = setArg(args, flag, value);
  setProbePath(c, 'livenessProbe', m.health?.livenessEndpointName);
  setProbePath(c, 'readinessProbe', m.health?.readinessEndpointName);
  const le = m.leaderElection;
  if (le?.leaderElect !== undefined) {
    args = setArg(args, '--leader-elect', String(le.leaderElect));
    if (le.leaderElect) {
      if (le.resourceName && le.resourceNamespace)
        args = setArg(args, '--leader-election-id', `${le.resourceNamespace}/${le.resourceName}`);
      const timings: ReadonlyArray<readonly [string, string | undefined]> = [
        ['--leader-elect-lease-duration', le.leaseDuration],
        ['--leader-elect-renew-deadline', le.renewDeadline],
        ['--leader-elect-retry-period', le.retryPeriod],
      ];
      for (const [flag, d] of timings) if (seconds(d) > 0) args = setArg(args, flag, `${seconds(d)}s`);
    }
  }
  if (m.metrics?.insecureDiagnostics) args = setArg(args, '--insecure-diagnostics', 'true');
  if (m.webhook?.port !== undefined) args = setArg(args, '--webhook-port', String(m.webhook.port));
  if (seconds(m.syncPeriod) > 0) args = setArg(args, '--sync-period', `${seconds(m.syncPeriod)}s`);
  if (m.verbosity !== undefined && m.verbosity !== defaultVerbosity) args = setArg(args, '--v', String(m.verbosity));
  if (m.featureGates && Object.keys(m.featureGates).length > 0) {
    const gates = parseFeatureGates(args);
    for (const [gate, on] of Object.entries(m.featureGates)) gates.set(gate, on);
    const value = [...gates].map(([gate, on]) => `${gate}=${on}`).sort();
    args = setArg(args, '--feature-gates', value.join(','));
  }
  for (const [flag, value] of sortedEntries(m.additionalArgs)) {
    if (args.some((a) => a.startsWith(`${flag}=`)))
      fail(deployment, `failed to customize manager container: arg "${flag}" already exists`);
    args = setArg(args, flag, value);
  }
  c.args = args;
  return c;
}

function customizeContainer(spec: ContainerSpec, container: Container): Container {
  const c = { ...container };
  if (spec.args) {
    let args = Array.isArray(c.args) ? c.args : [];
    for (const [flag, value] of sortedEntries(spec.args)) args = setArg(args, flag, value);
    c.args = args;
  }
  if (spec.env) {
    let env = Array.isArray(c.env) ? c.env : [];
    for (const e of spec.env) env = [...env.filter((x) => x.name !== e.name), structuredClone(e)];
    c.env = env;
  }
  if (spec.resources) c['resources'] = structuredClone(spec.resources);
  if (spec.imageUrl !== undefined) c['image'] = spec.imageUrl;
  if (spec.command) c['command'] = [...spec.command];
  return c;
}

function podSpecOf(d: ComponentObject): Json | undefined {
  const spec = d['spec'];
  const template = isRecord(spec) ? spec['template'] : undefined;
  const podSpec = isRecord(template) ? template['spec'] : undefined;
  return isRecord(podSpec) ? podSpec : undefined;
}

/**
 * Applies a provider's DeploymentSpec and then its ManagerSpec to one Deployment (upstream `customizeDeployment`).
 * The manager container is the one named `manager`, else the first. Returns a new object.
 *
 * @example
 * customizeDeployment({ replicas: 2 }, { verbosity: 5 }, deployment);
 */
export function customizeDeployment(
  d: DeploymentSpec | undefined,
  m: ManagerSpec | undefined,
  deployment: ComponentObject,
): ComponentObject {
  const out = structuredClone(deployment) as ComponentObject;
  if (!isRecord(out['spec'])) out['spec'] = {};
  const spec = out['spec'] as Json;
  if (!isRecord(spec['template'])) spec['template'] = {};
  const template = spec['template'] as Json;
  if (!isRecord(template['spec'])) template['spec'] = {};
  const pod = podSpecOf(out) ?? {};
  if (!Array.isArray(pod['containers'])) pod['containers'] = [];
  const containers = pod['containers'] as Container[];
  if (d) {
    if (d.replicas !== undefined) spec['replicas'] = d.replicas;
    if (d.affinity !== undefined) pod['affinity'] = structuredClone(d.affinity);
    if (d.nodeSelector !== undefined) pod['nodeSelector'] = { ...d.nodeSelector };
    if (d.tolerations !== undefined) pod['tolerations'] = structuredClone(d.tolerations);
    if (d.serviceAccountName) pod['serviceAccountName'] = d.serviceAccountName;
    if (d.imagePullSecrets !== undefined) pod['imagePullSecrets'] = structuredClone(d.imagePullSecrets);
    for (const cs of d.containers ?? []) {
      const i = containers.findIndex((c) => c.name === cs.name);
      if (i < 0)
        fail(deployment, `cannot find container "${cs.name}" in deployment "${deployment.metadata.name ?? ''}"`);
      containers[i] = customizeContainer(cs, containers[i] as Container);
    }
  }
  if (m) {
    let i = containers.findIndex((c) => c.name === managerContainerName);
    // NOTE: upstream falls back to the first container for providers whose manager container has another name.
    if (i < 0 && containers.length > 0) i = 0;
    if (i < 0)
      fail(
        deployment,
        `cannot find "${managerContainerName}" container in deployment "${deployment.metadata.name ?? ''}"`,
      );
    containers[i] = customizeManagerContainer(m, containers[i] as Container, deployment);
  }
  return out;
}
