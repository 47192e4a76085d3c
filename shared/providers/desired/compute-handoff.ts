// The handoff configuration (docs/beside-upstream.md), which the providers pass applies by default
// on top of the processed components so that upstream's managers leave topology and ClusterResourceSets to
// capi-serverless: the core manager's ClusterTopology gate off, the gate on for providers whose template webhooks check
// it (kubeadm control plane, Docker), matchConditions on three core validating webhooks, a ValidatingAdmissionPolicy
// refusing the core manager's writes to ClusterResourceSets, and one holding a topology Cluster's deletion for its
// BeforeClusterDelete hooks. The same functions build the harness's proven handoff.
import { isDeepStrictEqual } from 'node:util';
import type { Provider, ProviderKind } from '#shared/api/operator/v1alpha2/provider.ts';
import type { ComponentObject } from '#shared/providers/desired/parse-components-yaml.ts';
import {
  beforeClusterDeletePolicyBaseName,
  computeBeforeClusterDeletePolicy,
} from '#shared/providers/desired/compute-before-cluster-delete-policy.ts';

/** Opt-out: `management.cluster.x-k8s.io/handoff: disabled` on a provider object installs it as the operator would. */
export const handoffAnnotation = 'management.cluster.x-k8s.io/handoff';
export const handoffDisabled = 'disabled';
/** Marks a components cache Secret written with the handoff applied (so an opt-out re-renders from the source). */
export const handoffAppliedValue = 'applied';
/** Base name of the ClusterResourceSet policy and its binding (prefixed with the core provider's namespace). */
export const handoffPolicyBaseName = 'capi-serverless-clusterresourceset-handoff';
/** The feature gate that registers upstream's topology controllers (core) or lets template webhooks accept (others). */
export const clusterTopologyGate = 'ClusterTopology';

type MatchCondition = { readonly name: string; readonly expression: string };

/**
 * matchConditions per core validating webhook: the Cluster validator skips Clusters with `spec.topology` (with the gate
 * off it refuses them all), the ClusterClass validator sees no request (with the gate off it refuses every create and
 * update, and every delete too: its "class in use" check lists Clusters through an index the core manager registers
 * only with the gate on, so it answers "Index with name field:spec.topology.classRef does not exist"; capi-serverless's
 * own ClusterClass webhook refuses deleting a class in use), and the ExtensionConfig validator only sees DELETE (it
 * allows every delete): capi-serverless runs the Runtime SDK with upstream's RuntimeSDK gate off, and with the gate
 * off that validator refuses every ExtensionConfig.
 */
export const handoffWebhookConditions: Readonly<Record<string, readonly MatchCondition[]>> = {
  'validation.cluster.cluster.x-k8s.io': [
    {
      name: 'capi-serverless-owns-topology',
      expression: "request.operation == 'DELETE' || !has(object.spec.topology)",
    },
  ],
  'validation.clusterclass.cluster.x-k8s.io': [{ name: 'capi-serverless-owns-clusterclass', expression: 'false' }],
  'validation.extensionconfig.runtime.cluster.x-k8s.io': [
    { name: 'capi-serverless-owns-extensionconfig', expression: "request.operation == 'DELETE'" },
  ],
};

/**
 * Whether the providers pass applies the handoff to a provider: always, unless it carries
 * `management.cluster.x-k8s.io/handoff: disabled`.
 *
 * @example
 * isHandoffEnabled({ metadata: { annotations: { 'management.cluster.x-k8s.io/handoff': 'disabled' } } }); // false
 */
export function isHandoffEnabled(provider: Pick<Provider, 'metadata'>): boolean {
  return provider.metadata.annotations?.[handoffAnnotation] !== handoffDisabled;
}

/** `<namespace>-capi-serverless-clusterresourceset-handoff`: clusterctl deletes cluster-scoped objects so prefixed. */
export function computeHandoffPolicyName(namespace: string): string {
  return `${namespace}-${handoffPolicyBaseName}`;
}

/** `<namespace>-capi-serverless-before-cluster-delete-handoff`, prefixed as the ClusterResourceSet policy. */
export function computeBeforeClusterDeletePolicyName(namespace: string): string {
  return `${namespace}-${beforeClusterDeletePolicyBaseName}`;
}

/** The user a ServiceAccount authenticates as. */
export function computeServiceAccountUser(namespace: string, serviceAccount: string): string {
  return `system:serviceaccount:${namespace}:${serviceAccount}`;
}

/**
 * The ValidatingAdmissionPolicy and its binding (Deny) refusing `user` (the core manager) any CREATE, UPDATE or DELETE
 * of ClusterResourceSets, their status and ClusterResourceSetBindings: upstream's ClusterResourceSet controllers are
 * always registered, and their first write (their finalizer, which capi-serverless never puts on and takes away, see
 * shared/addons/desired/finalizers.ts) is refused, so they never apply anything.
 *
 * @example
 * computeClusterResourceSetHandoffPolicy({ name: 'capi-system-capi-serverless-clusterresourceset-handoff',
 *   user: 'system:serviceaccount:capi-system:capi-manager' }).map((o) => o.kind);
 * // ['ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding']
 */
export function computeClusterResourceSetHandoffPolicy(input: {
  readonly name: string;
  readonly user: string;
  readonly labels?: Readonly<Record<string, string>>;
}): ComponentObject[] {
  const { name, user } = input;
  const metadata = () => ({ name, ...(input.labels ? { labels: { ...input.labels } } : {}) });
  return [
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: metadata(),
      spec: {
        failurePolicy: 'Fail',
        matchConstraints: {
          resourceRules: [
            {
              apiGroups: ['addons.cluster.x-k8s.io'],
              apiVersions: ['*'],
              operations: ['CREATE', 'UPDATE', 'DELETE'],
              resources: ['clusterresourcesets', 'clusterresourcesets/status', 'clusterresourcesetbindings'],
            },
          ],
        },
        matchConditions: [{ name: 'core-manager', expression: `request.userInfo.username == '${user}'` }],
        validations: [
          {
            expression: 'false',
            message:
              'ClusterResourceSets are reconciled by capi-serverless: upstream Cluster API core manager may not write them',
            reason: 'Forbidden',
          },
        ],
      },
    },
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: metadata(),
      spec: { policyName: name, validationActions: ['Deny'] },
    },
  ];
}

/**
 * A ValidatingWebhookConfiguration with the handoff matchConditions on the core webhooks it contains (others as they
 * are). Inputs are not modified.
 *
 * @example
 * computeHandoffWebhooks(coreValidatingWebhooks).webhooks[i].matchConditions;
 * // [{ name: 'capi-serverless-owns-topology', expression: "request.operation == 'DELETE' || !has(object.spec.topology)" }]
 */
export function computeHandoffWebhooks<T extends { readonly kind: string }>(config: T): T {
  const webhooks = (config as { webhooks?: unknown }).webhooks;
  if (config.kind !== 'ValidatingWebhookConfiguration' || !Array.isArray(webhooks)) return config;
  return {
    ...config,
    webhooks: webhooks.map((w: { name?: string }) => {
      const conditions = w.name === undefined ? undefined : handoffWebhookConditions[w.name];
      return conditions ? { ...w, matchConditions: conditions.map((c) => ({ ...c })) } : w;
    }),
  };
}

/**
 * `args` with `gate` set to `value` in the `--feature-gates=` argument, in place (order kept), when that argument
 * names the gate; otherwise `args` itself.
 *
 * @example
 * computeFeatureGateArgs(['--feature-gates=MachinePool=true,ClusterTopology=false'], 'ClusterTopology', true);
 * // ['--feature-gates=MachinePool=true,ClusterTopology=true']
 */
export function computeFeatureGateArgs(args: readonly string[], gate: string, value: boolean): readonly string[] {
  const prefix = '--feature-gates=';
  const i = args.findIndex((a) => a.startsWith(prefix));
  if (i < 0) return args;
  const gates = (args[i] ?? '').slice(prefix.length).split(',');
  if (!gates.some((g) => g.split('=')[0]?.trim() === gate)) return args;
  const updated = gates.map((g) => (g.split('=')[0]?.trim() === gate ? `${gate}=${value}` : g)).join(',');
  return args.map((a, k) => (k === i ? `${prefix}${updated}` : a));
}

type Container = { name?: string; args?: string[]; [key: string]: unknown };
type PodSpec = { containers?: Container[]; serviceAccountName?: string; [key: string]: unknown };

function podSpecOf(deployment: ComponentObject): PodSpec | undefined {
  const spec = deployment['spec'] as { template?: { spec?: PodSpec } } | undefined;
  return spec?.template?.spec;
}

function withGate(deployment: ComponentObject, value: boolean): ComponentObject {
  const pod = podSpecOf(deployment);
  if (!pod?.containers) return deployment;
  let changed = false;
  const containers = pod.containers.map((c) => {
    if (c.name !== 'manager' || !c.args) return c;
    const args = computeFeatureGateArgs(c.args, clusterTopologyGate, value);
    if (args === c.args) return c;
    changed = true;
    return { ...c, args: [...args] };
  });
  if (!changed) return deployment;
  const spec = deployment['spec'] as { template: { spec: PodSpec } };
  return { ...deployment, spec: { ...spec, template: { ...spec.template, spec: { ...pod, containers } } } };
}

const isManagerDeployment = (o: ComponentObject) =>
  o.kind === 'Deployment' && (o.metadata.name ?? '').endsWith('-controller-manager');

/** `kind/namespace/name`, to match objects across two lists. */
export function computeObjectKey(o: Pick<ComponentObject, 'kind' | 'metadata'>): string {
  return `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;
}

/**
 * The policy objects for the core manager Deployment of the components (none without a Deployment): the
 * ClusterResourceSet policy and the BeforeClusterDelete policy, each with its binding.
 */
function computeCorePolicy(objects: readonly ComponentObject[]): ComponentObject[] {
  const deployment = objects.find(isManagerDeployment) ?? objects.find((o) => o.kind === 'Deployment');
  const namespace = deployment?.metadata.namespace;
  if (!deployment || !namespace) return [];
  const serviceAccount = podSpecOf(deployment)?.serviceAccountName || 'default';
  const inventory = Object.fromEntries(
    Object.entries(deployment.metadata.labels ?? {}).filter(
      ([k]) => k === 'clusterctl.cluster.x-k8s.io' || k === 'cluster.x-k8s.io/provider',
    ),
  );
  const user = computeServiceAccountUser(namespace, serviceAccount);
  return [
    ...computeClusterResourceSetHandoffPolicy({ name: computeHandoffPolicyName(namespace), user, labels: inventory }),
    ...computeBeforeClusterDeletePolicy({
      name: computeBeforeClusterDeletePolicyName(namespace),
      user,
      labels: inventory,
    }),
  ];
}

/**
 * The components of a provider with the handoff applied, as the last processing step. Core provider: ClusterTopology
 * set to false where the manager's `--feature-gates` names it, the handoff matchConditions on its validating webhooks,
 * and the ClusterResourceSet and BeforeClusterDelete policies and bindings naming the manager Deployment's
 * ServiceAccount (an existing object of that name gets this spec, in place; a new one goes before the first
 * Deployment, so the policies exist before a new manager starts). Other providers: ClusterTopology set to true where the manager's `--feature-gates` names it
 * (upstream v1.14: kubeadm control plane and Docker; the kubeadm bootstrap provider has no such gate). Idempotent;
 * inputs are not modified; unchanged objects are returned as the same references.
 *
 * @example
 * computeHandoffComponents('ControlPlaneProvider', kcpObjects); // the manager now runs with ClusterTopology=true
 */
export function computeHandoffComponents(
  kind: ProviderKind,
  objects: readonly ComponentObject[],
): readonly ComponentObject[] {
  const core = kind === 'CoreProvider';
  const gated = objects.map((o) => (o.kind === 'Deployment' ? withGate(o, !core) : o));
  if (!core) return gated;
  const webhooks = gated.map((o) => computeHandoffWebhooks(o));
  const policy = computeCorePolicy(webhooks);
  let out = [...webhooks];
  for (const p of policy) {
    // NOTE: matched by kind and name only: clusterctl's list of cluster-scoped kinds predates admission policies, so
    // one that came through the operator's additional manifests carries the provider's namespace (ignored by the API
    // server) and owner reference; it is kept as it is.
    const i = out.findIndex((o) => o.kind === p.kind && o.metadata.name === p.metadata.name);
    if (i >= 0) {
      const existing = out[i] as ComponentObject;
      const labels = { ...existing.metadata.labels, ...p.metadata.labels };
      const next = { ...existing, metadata: { ...existing.metadata, labels }, spec: p['spec'] };
      if (!isDeepStrictEqual(next, existing)) out = out.map((o, k) => (k === i ? next : o));
      continue;
    }
    const at = out.findIndex((o) => o.kind === 'Deployment');
    out = at < 0 ? [...out, p] : [...out.slice(0, at), p, ...out.slice(at)];
  }
  return out;
}

/**
 * The objects of `after` that are new or differ from the object of the same kind, namespace and name in `before`.
 *
 * @example
 * listChangedObjects(cached, computeHandoffComponents('CoreProvider', cached)); // the webhooks, policy, binding
 */
export function listChangedObjects(
  before: readonly ComponentObject[],
  after: readonly ComponentObject[],
): ComponentObject[] {
  const byKey = new Map(before.map((o) => [computeObjectKey(o), o]));
  return after.filter((o) => {
    const old = byKey.get(computeObjectKey(o));
    return old === undefined || !isDeepStrictEqual(old, o);
  });
}
