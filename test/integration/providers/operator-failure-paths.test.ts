// The Cluster API Operator (v0.29.0, built from its module) as the oracle for the failure paths: two twin management
// clusters get the same inputs step by step — A is reconciled by the providers pass, B by the operator — and after
// each step the providers' conditions (type, status, reason; the operator's message contained in ours), installed
// version and contract, the events about them and the objects left in their namespaces are compared. Every
// difference must be listed in the step's `deliberate` map with its reason (docs/providers.md has the
// table); a difference that appears or goes away fails the step.
// By default (`npm test`) only the steps marked `quick` run: preflight, fetch and configuration failures with their
// recoveries. `npm run test:operator-failures` runs every step (upgrades across contracts, pause, deletion too).
//   OPERATOR_FAILURES=all            every step
//   OPERATOR_FAILURES_OUT=<file>     appends one JSON line per step (the docs table is made from it)
// NOTE: the OCI and GitHub steps expect the internet unreachable, as in test/run.mjs's private network namespace.
import assert from 'node:assert/strict';
import { appendFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { operatorApiVersion } from '#shared/api/operator/v1alpha2/provider.ts';
import type { Provider, ProviderKind, ProviderSpec } from '#shared/api/operator/v1alpha2/provider.ts';
import { applyObject, deleteObject, findObject, listObjects } from '#shared/kube/index.ts';
import type { KubeClient, KubeObject } from '#shared/kube/index.ts';
import { handoffAnnotation } from '#shared/providers/desired/compute-handoff.ts';
import { providerPausedAnnotation } from '#shared/providers/desired/is-provider-paused.ts';
import { startCapiOperator, type CapiOperator } from '#test/support/harness/capi-operator.ts';
import { startManagementCluster, type TestCluster } from '#test/support/harness/clusters.ts';
import {
  createSecret,
  ensureNamespace,
  markAvailable,
  pass,
  seedReleaseConfigMap,
  userManager,
  waitForProviderKinds,
} from '#test/integration/providers/provider-fixtures.ts';
import type { FakeProvider } from '#test/integration/providers/provider-fixtures.ts';

type Ref = { readonly kind: ProviderKind; readonly namespace: string; readonly name: string };
const core: Ref = { kind: 'CoreProvider', namespace: 'capi-system', name: 'cluster-api' };
const infra: Ref = { kind: 'InfrastructureProvider', namespace: 'capf-system', name: 'fake' };
const infraDup: Ref = { kind: 'InfrastructureProvider', namespace: 'capf-dup', name: 'fake' };
const coreDup: Ref = { kind: 'CoreProvider', namespace: 'capi-dup', name: 'cluster-api' };
const old: Ref = { kind: 'BootstrapProvider', namespace: 'capo-system', name: 'old' };
const vars: Ref = { kind: 'ControlPlaneProvider', namespace: 'capv-system', name: 'vars' };
const newer: Ref = { kind: 'BootstrapProvider', namespace: 'capn-system', name: 'newer' };
const allRefs = [core, infra, infraDup, coreDup, old, vars, newer];
const refName = (r: Ref) => `${r.kind} ${r.namespace}/${r.name}`;

// NOTE: each release ConfigMap is selected alone (`release: <what>-<version>`): the operator hashes the one
// ConfigMap its selector matches and fails when several do.
const selectorOf = (what: string, version: string) => ({
  selector: { matchLabels: { release: `${what}-${version}` } },
});

async function seedRelease(
  kube: KubeClient,
  namespace: string,
  provider: FakeProvider,
  what: string,
  version: string,
  opts: { metadata?: string; labelled?: boolean } = {},
): Promise<void> {
  await seedReleaseConfigMap(kube, {
    namespace,
    provider,
    version,
    labels: opts.labelled === false ? { other: 'yes' } : selectorOf(what, version).selector.matchLabels,
    versionIn: 'label',
    ...(opts.metadata === undefined ? {} : { metadata: opts.metadata }),
  });
}

const oldMetadata = (minor: number) => `apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3
kind: Metadata
releaseSeries:
  - major: 0
    minor: ${minor}
    contract: v1alpha4
`;

async function seed(kube: KubeClient): Promise<void> {
  await waitForProviderKinds(kube);
  for (const ns of [
    'capi-system',
    'capi-dup',
    'capf-system',
    'capf-dup',
    'capo-system',
    'capv-system',
    'capn-system',
  ]) {
    await ensureNamespace(kube, ns);
  }
  for (const v of ['v1.0.0', 'v2.0.0', 'v2.0.1']) await seedRelease(kube, 'capi-system', 'core', 'core', v);
  await seedRelease(kube, 'capi-dup', 'core', 'core', 'v2.0.0');
  for (const ns of ['capf-system', 'capf-dup', 'capv-system']) {
    for (const v of ['v1.0.0', 'v1.0.1', 'v2.0.0']) await seedRelease(kube, ns, 'infrastructure', 'infra', v);
    await createSecret(kube, ns, 'vars', { FAKE_REGION: 'eu-1', FAKE_TOKEN: 't0k3n' });
  }
  await seedRelease(kube, 'capo-system', 'infrastructure', 'boot', 'v0.4.7', { metadata: oldMetadata(4) });
  await seedRelease(kube, 'capo-system', 'infrastructure', 'boot', 'v0.5.0', { metadata: oldMetadata(4) });
  await seedRelease(kube, 'capo-system', 'infrastructure', 'boot', 'v2.0.0');
  await seedRelease(kube, 'capo-system', 'infrastructure', 'boot', 'v2.0.1', { labelled: false });
  await createSecret(kube, 'capo-system', 'vars', { FAKE_REGION: 'eu-1', FAKE_TOKEN: 't0k3n' });
  await createSecret(kube, 'capv-system', 'partial', { FAKE_REGION: 'eu-1' });
  await seedRelease(kube, 'capn-system', 'infrastructure', 'newer', 'v2.0.0');
  await createSecret(kube, 'capn-system', 'vars', { FAKE_REGION: 'eu-1', FAKE_TOKEN: 't0k3n' });
}

/** Applies a provider as a user would; the handoff (ours only) is opted out so both sides process alike. */
async function applyProvider(kube: KubeClient, ref: Ref, spec: ProviderSpec, annotations: Record<string, string> = {}) {
  await applyObject(
    kube,
    {
      apiVersion: operatorApiVersion,
      kind: ref.kind,
      metadata: {
        namespace: ref.namespace,
        name: ref.name,
        annotations: { [handoffAnnotation]: 'disabled', ...annotations },
      },
      spec,
    },
    { fieldManager: userManager },
  );
}

const withVars = (namespace: string, name = 'vars') => ({ configSecret: { name, namespace } });
const coreSpec = (v: string): ProviderSpec => ({ version: v, fetchConfig: selectorOf('core', v) });
const infraSpec = (ns: string, v: string, extra: ProviderSpec = {}): ProviderSpec => ({
  version: v,
  fetchConfig: selectorOf('infra', v),
  ...withVars(ns),
  ...extra,
});
const bootSpec = (v: string): ProviderSpec => ({
  version: v,
  fetchConfig: selectorOf('boot', v),
  ...withVars('capo-system'),
});

async function deleteProvider(kube: KubeClient, ref: Ref): Promise<void> {
  await deleteObject(kube, { apiVersion: operatorApiVersion, ...ref });
}

async function setPaused(kube: KubeClient, ref: Ref, paused: boolean): Promise<void> {
  const p = await findObject(kube, { apiVersion: operatorApiVersion, ...ref });
  if (!p) return;
  const annotations = { ...p.metadata.annotations };
  if (paused) annotations[providerPausedAnnotation] = '';
  else delete annotations[providerPausedAnnotation];
  await applyObject(
    kube,
    {
      apiVersion: operatorApiVersion,
      kind: ref.kind,
      metadata: { namespace: ref.namespace, name: ref.name, annotations },
    },
    { fieldManager: 'test-pause' },
  );
  if (!paused) {
    // NOTE: the pause annotation was applied by its own field manager; giving the field up removes it.
    await applyObject(
      kube,
      { apiVersion: operatorApiVersion, kind: ref.kind, metadata: { namespace: ref.namespace, name: ref.name } },
      { fieldManager: 'test-pause' },
    );
  }
}

const workloadCluster: KubeObject = {
  apiVersion: 'cluster.x-k8s.io/v1beta2',
  kind: 'Cluster',
  metadata: { namespace: 'default', name: 'w1' },
  spec: { infrastructureRef: { apiGroup: 'infrastructure.fake.example.com', kind: 'FakeCluster', name: 'w1' } },
} as KubeObject;

/** Marks every provider Deployment Available, as the Deployment controller would (no kubelet runs). */
async function markProviderDeployments(kube: KubeClient): Promise<void> {
  const list = await listObjects(kube, {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    labelSelector: 'clusterctl.cluster.x-k8s.io',
  });
  for (const d of list.items) {
    const status = (d['status'] ?? {}) as {
      observedGeneration?: number;
      conditions?: { type: string; status: string }[];
    };
    const available = status.conditions?.some((c) => c.type === 'Available' && c.status === 'True');
    if (available && status.observedGeneration === d.metadata.generation) continue;
    await markAvailable(kube, d.metadata.namespace ?? '', d.metadata.name ?? '').catch(() => undefined);
  }
}

type Summary = {
  readonly exists: boolean;
  readonly installedVersion?: string | undefined;
  readonly contract?: string | undefined;
  readonly conditions: readonly { type: string; status: string; reason: string; message: string }[];
};

async function summarise(kube: KubeClient, ref: Ref): Promise<Summary> {
  const p = (await findObject(kube, { apiVersion: operatorApiVersion, ...ref })) as Provider | undefined;
  if (!p) return { exists: false, conditions: [] };
  return {
    exists: true,
    installedVersion: p.status?.installedVersion,
    contract: p.status?.contract,
    conditions: (p.status?.conditions ?? [])
      .map((c) => ({ type: c.type, status: c.status, reason: c.reason ?? '', message: c.message ?? '' }))
      .sort((a, b) => a.type.localeCompare(b.type)),
  };
}

/** Object names by kind in the namespaces (Deployments with their replicas), and events about providers. */
async function listLeftBehind(kube: KubeClient, namespaces: readonly string[]): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const ns of namespaces) {
    for (const kind of ['Deployment', 'ConfigMap', 'Secret', 'ServiceAccount'] as const) {
      const items = (
        await listObjects(kube, { apiVersion: kind === 'Deployment' ? 'apps/v1' : 'v1', kind, namespace: ns })
      ).items;
      out[`${kind} ${ns}`] = items.map((o) => o.metadata.name ?? '').sort();
    }
    const events = (await listObjects(kube, { apiVersion: 'v1', kind: 'Event', namespace: ns })).items;
    out[`Event ${ns}`] = events
      .filter((e) =>
        String((e['involvedObject'] as { apiVersion?: string } | undefined)?.apiVersion).startsWith('operator.'),
      )
      .map((e) => `${String(e['reason'])}`)
      .sort();
  }
  const crds = await listObjects(kube, {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    labelSelector: 'clusterctl.cluster.x-k8s.io',
  });
  out['CustomResourceDefinition'] = crds.items.map((o) => o.metadata.name ?? '').sort();
  return out;
}

/** Runs passes over every provider until a round changes nothing (at most 8 rounds). */
async function settleOurs(kube: KubeClient): Promise<void> {
  for (let round = 0; round < 8; round++) {
    let changed = 0;
    for (const ref of allRefs) {
      // NOTE: the real transport: inside the test's network namespace nothing outside is reachable, as for the operator.
      const outcome = await pass(kube, ref.kind, ref.namespace, ref.name, fetch);
      changed += outcome.changed.length;
    }
    await markProviderDeployments(kube);
    if (changed === 0) return;
  }
}

/** Waits until the operator's view of `refs` has changed since `before` and held still for 2.5 s (8 s if it never changes). */
async function settleOperator(
  kube: KubeClient,
  refs: readonly Ref[],
  before: string,
  timeoutMs = 60_000,
): Promise<void> {
  const start = Date.now();
  let last = '';
  let since = Date.now();
  for (;;) {
    await markProviderDeployments(kube);
    const snap = JSON.stringify(await Promise.all(refs.map((r) => summarise(kube, r))));
    if (snap !== last) {
      last = snap;
      since = Date.now();
    }
    const still = Date.now() - since;
    const quiet = timeoutMs > 60_000 ? timeoutMs : 8000;
    if ((snap !== before && still >= 2500) || still >= quiet || Date.now() - start > timeoutMs) return;
    await new Promise((r) => setTimeout(r, 250));
  }
}

type Diff = { readonly key: string; readonly detail: string };

/** What differs between our summary and the operator's; the operator's `%s` (unformatted) stands for the name. */
function compareSummaries(ref: Ref, ours: Summary, theirs: Summary): Diff[] {
  const who = refName(ref);
  const diffs: Diff[] = [];
  if (ours.exists !== theirs.exists)
    diffs.push({ key: `${who}: exists`, detail: `ours ${ours.exists}, operator ${theirs.exists}` });
  if (!ours.exists || !theirs.exists) return diffs;
  for (const field of ['installedVersion', 'contract'] as const) {
    if (ours[field] !== theirs[field])
      diffs.push({ key: `${who}: ${field}`, detail: `ours ${ours[field] ?? '-'}, operator ${theirs[field] ?? '-'}` });
  }
  for (const t of theirs.conditions) {
    const o = ours.conditions.find((c) => c.type === t.type);
    if (!o) {
      diffs.push({ key: `${who}: ${t.type} missing`, detail: `operator ${t.status} ${t.reason} "${t.message}"` });
      continue;
    }
    if (o.status !== t.status)
      diffs.push({ key: `${who}: ${t.type}.status`, detail: `ours ${o.status}, operator ${t.status}` });
    if (o.reason !== t.reason)
      diffs.push({ key: `${who}: ${t.type}.reason`, detail: `ours ${o.reason}, operator ${t.reason}` });
    const expected = t.message.replaceAll('%s', ref.name);
    if (!o.message.includes(expected))
      diffs.push({ key: `${who}: ${t.type}.message`, detail: `ours "${o.message}", operator "${t.message}"` });
  }
  for (const o of ours.conditions) {
    if (!theirs.conditions.some((c) => c.type === o.type))
      diffs.push({ key: `${who}: ${o.type} extra`, detail: `ours ${o.status} ${o.reason} "${o.message}"` });
  }
  return diffs;
}

function compareLeftBehind(ours: Record<string, string[]>, theirs: Record<string, string[]>): Diff[] {
  const diffs: Diff[] = [];
  for (const key of [...new Set([...Object.keys(ours), ...Object.keys(theirs)])].sort()) {
    const a = ours[key] ?? [];
    const b = theirs[key] ?? [];
    if (JSON.stringify(a) !== JSON.stringify(b)) {
      const onlyOurs = a.filter((x) => !b.includes(x));
      const onlyTheirs = b.filter((x) => !a.includes(x));
      diffs.push({
        key: `objects ${key}`,
        detail: `only ours [${onlyOurs.join(', ')}], only operator [${onlyTheirs.join(', ')}]`,
      });
    }
  }
  return diffs;
}

type Step = {
  readonly name: string;
  /** Part of the quick subset that `npm test` runs. */
  readonly quick?: boolean;
  readonly act: (kube: KubeClient) => Promise<void>;
  readonly observe: readonly Ref[];
  readonly namespaces: readonly string[];
  /** Expected differences, by key, with the reason they are deliberate. */
  readonly deliberate?: Readonly<Record<string, string>>;
  /** How long the operator may take (default 60 s; its GitHub client retries for a minute). */
  readonly settleMs?: number;
};

const everyStep = process.env['OPERATOR_FAILURES'] === 'all';

const varsSpec = (v: string, secret = 'partial', extra: ProviderSpec = {}): ProviderSpec => ({
  version: v,
  fetchConfig: selectorOf('infra', v),
  ...withVars('capv-system', secret),
  ...extra,
});

/** The keys of every difference a provider shows when one side installed it and the other refused it. */
function refusedInstall(ref: Ref, condition: string, reason: string): Record<string, string> {
  const who = refName(ref);
  return {
    [`${who}: installedVersion`]: reason,
    [`${who}: contract`]: reason,
    [`${who}: ${condition}.status`]: reason,
    [`${who}: ${condition}.reason`]: reason,
    [`${who}: ${condition}.message`]: reason,
    [`${who}: ProviderInstalled missing`]: reason,
    [`${who}: Ready missing`]: reason,
  };
}

function objectsOf(namespaces: readonly string[], kinds: readonly string[], reason: string): Record<string, string> {
  return Object.fromEntries(namespaces.flatMap((ns) => kinds.map((k) => [`objects ${k} ${ns}`, reason])));
}

function conditionDiffers(ref: Ref, condition: string, reason: string): Record<string, string> {
  const who = refName(ref);
  return Object.fromEntries(['status', 'reason', 'message'].map((f) => [`${who}: ${condition}.${f}`, reason]));
}

const why = {
  newerContract:
    "the operator installs a provider without checking its contract against the core provider's (a v1beta2 provider beside a v1beta1 Cluster API); ours refuses it as clusterctl init does, and installs it once the core provider accepts its contract",
  v1beta1Upgrade:
    "the clusterctl library inside the operator (v1.13) only upgrades when the core provider's target contract is v1beta2, so a management cluster on v1beta1 cannot upgrade any provider; ours upgrades within the contract",
  pause:
    "ours changes the core provider's contract only with every provider paused (the proposal's rule, so no controller runs against CRDs of another contract); the operator has no pause and upgrades at once",
  goSelector:
    'the operator prints the selector as a Go struct dump (&LabelSelector{MatchLabels:map[string]string{...}}); ours in kubectl syntax after the same words',
  staleAfterUpgrade:
    'operator bug: after an upgrade its Install phase is skipped, so a ProviderInstalled False from an earlier failure stays although the new version is installed; ours reports it installed',
  staleAfterCache:
    "operator bug: the spec is back to the one its cache holds, so ApplyFromCache re-applies and ends the reconcile before any condition is written: the failure's condition stays; ours clears it",
  transport:
    "the transport's own words differ (Go's resolver error vs Node's); condition type, status and reason agree and both name the URL",
  deleteGuard:
    "ours keeps a provider while a workload Cluster uses it (Deleting True, WaitingForClustersDeletion, the proposal's guard); the operator deletes its components at once",
} as const;

const steps: readonly Step[] = [
  {
    name: 'missing core provider: an infrastructure provider waits',
    quick: true,
    act: (kube) => applyProvider(kube, infra, infraSpec('capf-system', 'v1.0.0')),
    observe: [infra],
    namespaces: ['capf-system'],
  },
  {
    name: 'recovery: the core provider installs, then the waiting provider',
    quick: true,
    // NOTE: on v1beta1 when the contract-change steps follow, else directly on v1beta2 (where the later steps are).
    act: (kube) => applyProvider(kube, core, coreSpec(everyStep ? 'v1.0.0' : 'v2.0.0')),
    observe: [core, infra],
    namespaces: ['capi-system', 'capf-system'],
  },
  {
    name: 'a provider on a newer contract (v1beta2) than the core provider (v1beta1)',
    deliberate: {
      ...refusedInstall(newer, 'PreflightCheckPassed', why.newerContract),
      ...objectsOf(['capn-system'], ['ConfigMap', 'Deployment', 'Secret', 'ServiceAccount'], why.newerContract),
    },
    act: (kube) =>
      applyProvider(kube, newer, {
        version: 'v2.0.0',
        fetchConfig: selectorOf('newer', 'v2.0.0'),
        ...withVars('capn-system'),
      }),
    observe: [newer],
    namespaces: ['capn-system'],
  },
  {
    name: 'upgrade within v1beta1 while the core provider is on v1beta1',
    deliberate: {
      [`${refName(infra)}: installedVersion`]: why.v1beta1Upgrade,
      ...conditionDiffers(infra, 'ProviderUpgraded', why.v1beta1Upgrade),
    },
    act: (kube) => applyProvider(kube, infra, infraSpec('capf-system', 'v1.0.1')),
    observe: [infra],
    namespaces: ['capf-system'],
  },
  {
    name: 'core provider across contracts (v1beta1 to v1beta2) without pause',
    deliberate: {
      [`${refName(core)}: installedVersion`]: why.pause,
      [`${refName(core)}: contract`]: why.pause,
      ...conditionDiffers(core, 'PreflightCheckPassed', why.pause),
      [`${refName(core)}: ProviderUpgraded missing`]: why.pause,
      ...objectsOf(['capi-system'], ['Secret'], why.pause),
      ...refusedInstall(newer, 'PreflightCheckPassed', why.newerContract),
      ...objectsOf(['capn-system'], ['ConfigMap', 'Deployment', 'Secret', 'ServiceAccount'], why.newerContract),
    },
    act: (kube) => applyProvider(kube, core, coreSpec('v2.0.0')),
    observe: [core, infra, newer],
    namespaces: ['capi-system', 'capf-system', 'capn-system'],
  },
  {
    name: 'the same with every provider paused',
    act: async (kube) => {
      for (const r of allRefs) await setPaused(kube, r, true);
    },
    observe: [core, infra, newer],
    namespaces: ['capi-system', 'capf-system', 'capn-system'],
  },
  {
    name: 'recovery: every provider unpaused',
    act: async (kube) => {
      for (const r of allRefs) await setPaused(kube, r, false);
    },
    observe: [core, infra, newer],
    namespaces: ['capi-system', 'capf-system', 'capn-system'],
  },
  {
    name: 'duplicate name across namespaces',
    quick: true,
    act: (kube) => applyProvider(kube, infraDup, infraSpec('capf-dup', 'v1.0.1')),
    observe: [infraDup, infra],
    namespaces: ['capf-dup', 'capf-system'],
  },
  {
    name: 'recovery: the duplicate deleted',
    quick: true,
    act: (kube) => deleteProvider(kube, infraDup),
    observe: [infraDup, infra],
    namespaces: ['capf-dup', 'capf-system'],
  },
  {
    name: 'a second CoreProvider',
    quick: true,
    act: (kube) => applyProvider(kube, coreDup, coreSpec('v2.0.0')),
    observe: [coreDup, core],
    namespaces: ['capi-dup', 'capi-system'],
  },
  {
    name: 'recovery: the second CoreProvider deleted',
    quick: true,
    act: (kube) => deleteProvider(kube, coreDup),
    observe: [coreDup, core],
    namespaces: ['capi-dup', 'capi-system'],
  },
  {
    name: 'release on an unsupported (older) contract',
    quick: true,
    act: (kube) => applyProvider(kube, old, bootSpec('v0.4.7')),
    observe: [old],
    namespaces: ['capo-system'],
  },
  {
    name: "version not in the metadata's release series",
    quick: true,
    act: (kube) => applyProvider(kube, old, bootSpec('v0.5.0')),
    observe: [old],
    namespaces: ['capo-system'],
  },
  {
    name: 'recovery: a supported release',
    quick: true,
    act: (kube) => applyProvider(kube, old, bootSpec('v2.0.0')),
    observe: [old],
    namespaces: ['capo-system'],
  },
  {
    name: 'ConfigMap release without the selector label',
    deliberate: { [`${refName(old)}: ProviderInstalled.message`]: why.goSelector },
    quick: true,
    act: (kube) => applyProvider(kube, old, bootSpec('v2.0.1')),
    observe: [old],
    namespaces: ['capo-system'],
  },
  {
    name: 'recovery: the label added (an upgrade within v1beta2)',
    deliberate: conditionDiffers(old, 'ProviderInstalled', why.staleAfterUpgrade),
    quick: true,
    act: (kube) => seedRelease(kube, 'capo-system', 'infrastructure', 'boot', 'v2.0.1'),
    observe: [old],
    namespaces: ['capo-system'],
  },
  {
    name: 'missing variables',
    quick: true,
    act: (kube) => applyProvider(kube, vars, varsSpec('v1.0.0')),
    observe: [vars],
    namespaces: ['capv-system'],
  },
  {
    name: 'recovery: the variable added to the config Secret',
    quick: true,
    act: (kube) => createSecret(kube, 'capv-system', 'partial', { FAKE_REGION: 'eu-1', FAKE_TOKEN: 't0k3n' }),
    observe: [vars],
    namespaces: ['capv-system'],
  },
  {
    name: 'additionalArgs conflicting with an argument of the manager',
    quick: true,
    act: (kube) =>
      applyProvider(
        kube,
        vars,
        varsSpec('v1.0.0', 'partial', { manager: { additionalArgs: { '--feature-gates': 'Extra=true' } } }),
      ),
    observe: [vars],
    namespaces: ['capv-system'],
  },
  {
    name: 'recovery: additionalArgs removed',
    deliberate: conditionDiffers(vars, 'ProviderInstalled', why.staleAfterCache),
    quick: true,
    act: (kube) => applyProvider(kube, vars, varsSpec('v1.0.0')),
    observe: [vars],
    namespaces: ['capv-system'],
  },
  {
    name: 'unreachable OCI registry',
    deliberate: { [`${refName(vars)}: ProviderInstalled.message`]: why.transport },
    quick: true,
    act: (kube) =>
      applyProvider(kube, vars, {
        version: 'v1.0.1',
        fetchConfig: { oci: 'ghcr.io/example/vars:v1.0.1' },
        ...withVars('capv-system', 'partial'),
      }),
    observe: [vars],
    namespaces: ['capv-system'],
  },
  {
    name: 'release URL on a host other than GitHub and GitLab',
    quick: true,
    act: (kube) =>
      applyProvider(kube, vars, {
        version: 'v1.0.1',
        fetchConfig: { url: 'https://releases.example.com/vars/v1.0.1/control-plane-components.yaml' },
        ...withVars('capv-system', 'partial'),
      }),
    observe: [vars],
    namespaces: ['capv-system'],
  },
  {
    name: 'unreachable release URL (GitHub)',
    settleMs: 180_000,
    deliberate: { [`${refName(vars)}: ProviderInstalled.message`]: why.transport },
    act: (kube) =>
      applyProvider(kube, vars, {
        version: 'v1.0.1',
        fetchConfig: {
          url: 'https://github.com/example/cluster-api-provider-vars/releases/latest/control-plane-components.yaml',
        },
        ...withVars('capv-system', 'partial'),
      }),
    observe: [vars],
    namespaces: ['capv-system'],
  },
  {
    name: 'recovery: back to the ConfigMap release (an upgrade within v1beta1)',
    deliberate: conditionDiffers(vars, 'ProviderInstalled', why.staleAfterUpgrade),
    settleMs: 180_000,
    quick: true,
    act: (kube) => applyProvider(kube, vars, varsSpec('v1.0.1')),
    observe: [vars],
    namespaces: ['capv-system'],
  },
  {
    name: 'an infrastructure provider across contracts (v1beta1 to v1beta2)',
    act: (kube) => applyProvider(kube, infra, infraSpec('capf-system', 'v2.0.0')),
    observe: [infra],
    namespaces: ['capf-system'],
  },
  {
    name: 'downgrade',
    act: (kube) => applyProvider(kube, infra, infraSpec('capf-system', 'v1.0.1')),
    observe: [infra],
    namespaces: ['capf-system'],
  },
  {
    name: 'recovery: the installed version requested again',
    deliberate: conditionDiffers(infra, 'PreflightCheckPassed', why.staleAfterCache),
    act: (kube) => applyProvider(kube, infra, infraSpec('capf-system', 'v2.0.0')),
    observe: [infra],
    namespaces: ['capf-system'],
  },
  {
    name: 'a patch release lower than the installed one',
    deliberate: conditionDiffers(vars, 'ProviderInstalled', why.staleAfterUpgrade),
    act: (kube) => applyProvider(kube, vars, varsSpec('v1.0.0')),
    observe: [vars],
    namespaces: ['capv-system'],
  },
  {
    name: 'core provider upgrade within v1beta2',
    act: (kube) => applyProvider(kube, core, coreSpec('v2.0.1')),
    observe: [core],
    namespaces: ['capi-system'],
  },
  {
    name: 'deletion while a Cluster uses the provider',
    deliberate: {
      [`${refName(vars)}: exists`]: why.deleteGuard,
      ...objectsOf(['capv-system'], ['ConfigMap', 'Deployment', 'ServiceAccount'], why.deleteGuard),
    },
    // NOTE: vars applied the shared fake CRD last (the patch-release step): the CRD's API group is its own.
    act: async (kube) => {
      await applyObject(kube, workloadCluster, { fieldManager: userManager });
      await deleteProvider(kube, vars);
    },
    observe: [vars],
    namespaces: ['capv-system'],
  },
  {
    name: 'recovery: the Cluster deleted',
    act: (kube) =>
      deleteObject(kube, {
        apiVersion: 'cluster.x-k8s.io/v1beta2',
        kind: 'Cluster',
        namespace: 'default',
        name: 'w1',
      }).then(() => undefined),
    observe: [vars],
    namespaces: ['capv-system'],
  },
];

const out = process.env['OPERATOR_FAILURES_OUT'];

describe('failure paths beside the Cluster API Operator itself', { timeout: 900_000 }, () => {
  let a: TestCluster;
  let b: TestCluster;
  let operator: CapiOperator | undefined;

  before(async () => {
    [a, b] = await Promise.all([
      startManagementCluster({ name: 'operator-fail-a' }),
      startManagementCluster({ name: 'operator-fail-b' }),
    ]);
    await Promise.all([seed(a.kube), seed(b.kube)]);
    operator = await startCapiOperator(b, { extraArgs: ['--watch-configsecret', '--watch-configmap'] });
  });
  after(async () => {
    await operator?.stop();
    await Promise.all([a?.stop(), b?.stop()]);
  });

  for (const step of steps.filter((s) => everyStep || s.quick)) {
    test(step.name, async () => {
      const before = JSON.stringify(await Promise.all(step.observe.map((r) => summarise(b.kube, r))));
      await step.act(a.kube);
      await step.act(b.kube);
      await settleOurs(a.kube);
      await settleOperator(b.kube, step.observe, before, step.settleMs);
      const diffs: Diff[] = [];
      const rows: Record<string, { ours: Summary; operator: Summary }> = {};
      for (const ref of step.observe) {
        const [ours, theirs] = [await summarise(a.kube, ref), await summarise(b.kube, ref)];
        rows[refName(ref)] = { ours, operator: theirs };
        diffs.push(...compareSummaries(ref, ours, theirs));
      }
      diffs.push(
        ...compareLeftBehind(
          await listLeftBehind(a.kube, step.namespaces),
          await listLeftBehind(b.kube, step.namespaces),
        ),
      );
      if (out)
        appendFileSync(out, `${JSON.stringify({ step: step.name, rows, diffs, deliberate: step.deliberate ?? {} })}\n`);
      const unexpected = diffs.filter((d) => !(step.deliberate && d.key in step.deliberate));
      const gone = Object.keys(step.deliberate ?? {}).filter((k) => !diffs.some((d) => d.key === k));
      assert.deepEqual(
        { unexpected, gone },
        { unexpected: [], gone: [] },
        `${step.name}\n${operator?.process.tail(15) ?? ''}`,
      );
    });
  }
});
