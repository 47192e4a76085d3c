// The Cluster API Operator (v0.29.0, built from its module) as the oracle for the failure paths: two twin management
// clusters get the same inputs step by step — A is reconciled by the providers pass, B by the operator — and after
// each step the providers' conditions (type, status, reason; the operator's message contained in ours), installed
// version and contract, the events about them and the objects left in their namespaces are compared. Every
// difference must be listed in the step's `deliberate` map with its reason (docs/incoming/providers.md has the
// table); a difference that appears or goes away fails the step.
//   OPERATOR_FAILURES_SUBSET=quick   only the preflight and fetch steps (the `npm test` subset)
//   OPERATOR_FAILURES_OUT=<file>     writes one JSON line per step (the docs table is made from it)
import assert from 'node:assert/strict';
import { appendFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { operatorApiVersion } from '#shared/api/operator.ts';
import type { Provider, ProviderKind, ProviderSpec } from '#shared/api/operator.ts';
import { applyObject, deleteObject, findObject, listObjects } from '#shared/kube/index.ts';
import type { KubeClient, KubeObject } from '#shared/kube/index.ts';
import { handoffAnnotation } from '#shared/providers/desired/compute-handoff.ts';
import { providerPausedAnnotation } from '#shared/providers/desired/is-provider-paused.ts';
import { startCapiOperator, type CapiOperator } from '#test/harness/capi-operator.ts';
import { startManagementCluster, type TestCluster } from '#test/harness/clusters.ts';
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
const allRefs = [core, infra, infraDup, coreDup, old, vars];
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
  for (const ns of ['capi-system', 'capi-dup', 'capf-system', 'capf-dup', 'capo-system', 'capv-system']) {
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
      const outcome = await pass(kube, ref.kind, ref.namespace, ref.name);
      changed += outcome.changed.length;
    }
    await markProviderDeployments(kube);
    if (changed === 0) return;
  }
}

/** Waits until the operator's view of `refs` has changed since `before` and held still for 2.5 s (8 s if it never changes). */
async function settleOperator(kube: KubeClient, refs: readonly Ref[], before: string): Promise<void> {
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
    if ((snap !== before && still >= 2500) || still >= 8000 || Date.now() - start > 60_000) return;
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
};

const steps: readonly Step[] = [
  {
    name: 'missing core provider: an infrastructure provider waits',
    quick: true,
    act: (kube) => applyProvider(kube, infra, infraSpec('capf-system', 'v1.0.0')),
    observe: [infra],
    namespaces: ['capf-system'],
  },
  {
    name: 'recovery: the core provider (v1beta1) installs, then the waiting provider',
    quick: true,
    act: (kube) => applyProvider(kube, core, coreSpec('v1.0.0')),
    observe: [core, infra],
    namespaces: ['capi-system', 'capf-system'],
  },
  {
    name: 'duplicate name across namespaces',
    quick: true,
    act: (kube) => applyProvider(kube, infraDup, infraSpec('capf-dup', 'v1.0.0')),
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
    quick: true,
    act: (kube) => applyProvider(kube, old, bootSpec('v2.0.1')),
    observe: [old],
    namespaces: ['capo-system'],
  },
  {
    name: 'recovery: the label added (an upgrade within v1beta2)',
    quick: true,
    act: (kube) => seedRelease(kube, 'capo-system', 'infrastructure', 'boot', 'v2.0.1'),
    observe: [old],
    namespaces: ['capo-system'],
  },
  {
    name: 'missing variables',
    quick: true,
    act: (kube) =>
      applyProvider(kube, vars, {
        version: 'v1.0.0',
        fetchConfig: selectorOf('infra', 'v1.0.0'),
        ...withVars('capv-system', 'partial'),
      }),
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
      applyProvider(kube, vars, {
        version: 'v1.0.0',
        fetchConfig: selectorOf('infra', 'v1.0.0'),
        ...withVars('capv-system', 'partial'),
        manager: { additionalArgs: { '--feature-gates': 'Extra=true' } },
      }),
    observe: [vars],
    namespaces: ['capv-system'],
  },
  {
    name: 'recovery: additionalArgs removed',
    quick: true,
    act: (kube) =>
      applyProvider(kube, vars, {
        version: 'v1.0.0',
        fetchConfig: selectorOf('infra', 'v1.0.0'),
        ...withVars('capv-system', 'partial'),
      }),
    observe: [vars],
    namespaces: ['capv-system'],
  },
  {
    name: 'unreachable OCI registry',
    quick: true,
    act: (kube) =>
      applyProvider(kube, vars, {
        version: 'v1.0.1',
        fetchConfig: { oci: '127.0.0.1:1/providers/vars:v1.0.1' },
        ...withVars('capv-system', 'partial'),
      }),
    observe: [vars],
    namespaces: ['capv-system'],
  },
  {
    name: 'recovery: back to the ConfigMap release',
    quick: true,
    act: (kube) =>
      applyProvider(kube, vars, {
        version: 'v1.0.1',
        fetchConfig: selectorOf('infra', 'v1.0.1'),
        ...withVars('capv-system', 'partial'),
      }),
    observe: [vars],
    namespaces: ['capv-system'],
  },
  {
    name: 'upgrade within v1beta1 while the core provider is on v1beta1',
    act: (kube) => applyProvider(kube, infra, infraSpec('capf-system', 'v1.0.1')),
    observe: [infra],
    namespaces: ['capf-system'],
  },
  {
    name: 'core provider across contracts (v1beta1 to v1beta2) without pause',
    act: (kube) => applyProvider(kube, core, coreSpec('v2.0.0')),
    observe: [core, infra],
    namespaces: ['capi-system', 'capf-system'],
  },
  {
    name: 'the same with every provider paused',
    act: async (kube) => {
      for (const r of allRefs) await setPaused(kube, r, true);
    },
    observe: [core, infra],
    namespaces: ['capi-system', 'capf-system'],
  },
  {
    name: 'recovery: every provider unpaused',
    act: async (kube) => {
      for (const r of allRefs) await setPaused(kube, r, false);
    },
    observe: [core, infra],
    namespaces: ['capi-system', 'capf-system'],
  },
  {
    name: 'downgrade',
    act: (kube) => applyProvider(kube, infra, infraSpec('capf-system', 'v1.0.0')),
    observe: [infra],
    namespaces: ['capf-system'],
  },
  {
    name: 'recovery: the installed version requested again',
    act: (kube) => applyProvider(kube, infra, infraSpec('capf-system', 'v1.0.1')),
    observe: [infra],
    namespaces: ['capf-system'],
  },
  {
    name: 'an infrastructure provider across contracts (v1beta1 to v1beta2)',
    act: (kube) => applyProvider(kube, infra, infraSpec('capf-system', 'v2.0.0')),
    observe: [infra],
    namespaces: ['capf-system'],
  },
  {
    name: 'core provider upgrade within v1beta2',
    act: (kube) => applyProvider(kube, core, coreSpec('v2.0.1')),
    observe: [core],
    namespaces: ['capi-system'],
  },
  {
    name: 'deletion while a Cluster uses the provider',
    act: async (kube) => {
      await applyObject(kube, workloadCluster, { fieldManager: userManager });
      await deleteProvider(kube, infra);
    },
    observe: [infra],
    namespaces: ['capf-system'],
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
    observe: [infra],
    namespaces: ['capf-system'],
  },
];

const subset = process.env['OPERATOR_FAILURES_SUBSET'];
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

  for (const step of steps.filter((s) => subset !== 'quick' || s.quick)) {
    test(step.name, async () => {
      const before = JSON.stringify(await Promise.all(step.observe.map((r) => summarise(b.kube, r))));
      await step.act(a.kube);
      await step.act(b.kube);
      await settleOurs(a.kube);
      await settleOperator(b.kube, step.observe, before);
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
