// One ExtensionConfig pass: read it (and the CA bundle its annotation points at), call the extension's discovery
// endpoint, and write the handlers and the Discovered condition to its status, as upstream's ExtensionConfig
// controller does. capi-serverless runs discovery itself: upstream's RuntimeSDK gate stays off (docs/runtime-sdk.md).
import { ExtensionConfig } from '#shared/api/runtime-extension.ts';
import { errorMessage, ValidationError } from '#shared/errors/index.ts';
import { computeStableJson } from '#shared/hash/stable-json.ts';
import { applyObject, applyStatus, findObject, getObject, type KubeClient } from '#shared/kube/index.ts';
import { callDiscovery } from '#shared/runtime-sdk/call-extension.ts';
import { computeDiscoveredHandlers } from '#shared/runtime-sdk/compute-discovered-handlers.ts';
import {
  computeExtensionConfigStatus,
  computeExtensionConfigUnready,
  type DiscoveryResult,
} from '#shared/runtime-sdk/compute-extension-config-status.ts';

/** Annotation naming the `<namespace>/<name>` Secret whose `ca.crt` becomes `spec.clientConfig.caBundle`. */
export const injectCAFromSecretAnnotation = 'runtime.cluster.x-k8s.io/inject-ca-from-secret';

export type ExtensionConfigDeps = {
  readonly kube: KubeClient;
  readonly fieldManager: string;
  readonly now: () => number;
  readonly signal?: AbortSignal;
};

export type ExtensionConfigOutcome = {
  readonly discovered: boolean;
  readonly handlers: readonly string[];
  readonly error?: string;
  readonly changed: readonly string[];
};

/**
 * Discovers one ExtensionConfig and records the result on it.
 *
 * @example
 * const outcome = await reconcileExtensionConfig(deps, 'my-extension');
 */
export async function reconcileExtensionConfig(
  deps: ExtensionConfigDeps,
  name: string,
): Promise<ExtensionConfigOutcome> {
  const object = await getExtensionConfig(deps.kube, name);
  const changed: string[] = [];
  const caBundle = await getInjectedCABundle(deps.kube, object);
  const effective =
    caBundle === undefined || caBundle === object.spec.clientConfig.caBundle
      ? object
      : { ...object, spec: { ...object.spec, clientConfig: { ...object.spec.clientConfig, caBundle } } };
  if (effective !== object) {
    await applyObject(
      deps.kube,
      {
        apiVersion: object.apiVersion,
        kind: 'ExtensionConfig',
        metadata: { name },
        spec: { clientConfig: { caBundle } },
      },
      { fieldManager: deps.fieldManager, force: true },
    );
    changed.push(`injected the CA bundle from ${object.metadata.annotations?.[injectCAFromSecretAnnotation] ?? ''}`);
  }
  let result: DiscoveryResult;
  try {
    const answer = await callDiscovery(deps, effective, deps.signal ? { signal: deps.signal } : {});
    result = { ok: true, handlers: computeDiscoveredHandlers(effective, answer) };
  } catch (err) {
    result = { ok: false, error: errorMessage(err) };
  }
  const status = computeExtensionConfigStatus(
    object,
    result,
    new Date(deps.now()).toISOString().replace(/\.\d+Z$/, 'Z'),
  );
  if (computeStableJson(status) !== computeStableJson(pickStatus(object))) {
    await applyStatus(
      deps.kube,
      { apiVersion: object.apiVersion, kind: 'ExtensionConfig', metadata: { name }, status },
      { fieldManager: deps.fieldManager, force: true },
    );
    changed.push('updated status');
  }
  return {
    discovered: result.ok,
    handlers: status.handlers.map((h) => h.name),
    ...(result.ok ? {} : { error: result.error }),
    changed,
  };
}

/**
 * The pass when upstream's ExtensionConfig controller is the one writer (EXTENSION_CONFIG_DISCOVERY=upstream: the core
 * manager runs with RuntimeSDK on, e.g. for in-place updates): reads the ExtensionConfig and says whether upstream has
 * discovered it at its current generation, as upstream's read-only ExtensionConfig controller (the kubeadm control
 * plane's) validates; writes nothing.
 *
 * @example
 * const { discovered, error } = await checkExtensionConfig({ kube }, 'my-extension');
 */
export async function checkExtensionConfig(
  deps: Pick<ExtensionConfigDeps, 'kube'>,
  name: string,
): Promise<ExtensionConfigOutcome> {
  const object = await getExtensionConfig(deps.kube, name);
  const unready = computeExtensionConfigUnready(object);
  return {
    discovered: unready === undefined,
    handlers: (object.status?.handlers ?? []).map((h) => h.name),
    ...(unready === undefined ? {} : { error: `waiting for upstream's discovery: ${unready}` }),
    changed: [],
  };
}

/** The ExtensionConfig, parsed; names the field a malformed one gets wrong. */
export async function getExtensionConfig(kube: KubeClient, name: string): Promise<ExtensionConfig> {
  const raw = await getObject(kube, { apiVersion: 'runtime.cluster.x-k8s.io/v1beta2', kind: 'ExtensionConfig', name });
  const parsed = ExtensionConfig.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ValidationError(`ExtensionConfig ${name} is invalid: ${issue?.message ?? ''}`, {
      kind: 'ExtensionConfig',
      name,
      fieldPath: issue?.path.join('.') ?? '',
      reason: 'InvalidExtensionConfig',
    });
  }
  return parsed.data;
}

/** The CA bundle (base64) the inject-ca-from-secret annotation points at, or undefined without the annotation. */
async function getInjectedCABundle(kube: KubeClient, object: ExtensionConfig): Promise<string | undefined> {
  const ref = object.metadata.annotations?.[injectCAFromSecretAnnotation];
  if (ref === undefined) return undefined;
  const [namespace, secretName] = ref.split('/', 2);
  const field = `metadata.annotations[${injectCAFromSecretAnnotation}]`;
  if (!namespace || !secretName) {
    throw new ValidationError(
      `failed to reconcile caBundle: secret name "${ref}" must be in the form <namespace>/<name>`,
      { kind: 'ExtensionConfig', name: object.metadata.name ?? '', fieldPath: field, reason: 'InvalidCABundle' },
    );
  }
  const secret = await findObject(kube, { apiVersion: 'v1', kind: 'Secret', namespace, name: secretName });
  const ca = (secret?.['data'] as Record<string, string> | undefined)?.['ca.crt'];
  if (ca === undefined) {
    throw new ValidationError(
      `failed to reconcile caBundle: secret ${ref} ${secret ? 'does not contain a "ca.crt" entry' : 'not found'}`,
      { kind: 'ExtensionConfig', name: object.metadata.name ?? '', fieldPath: field, reason: 'InvalidCABundle' },
    );
  }
  return ca;
}

function pickStatus(object: ExtensionConfig): unknown {
  const s = object.status ?? {};
  return { handlers: s.handlers ?? [], conditions: s.conditions ?? [], deprecated: s['deprecated'] };
}
