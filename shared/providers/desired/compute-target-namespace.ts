// clusterctl's target-namespace fix-ups: every provider component is moved into the target namespace, and the
// references that spell the namespace out (RBAC subjects, webhook services, cert-manager CA injection, certificate
// DNS names) follow.
import type { ErrorFields } from '#shared/errors/index.ts';
import type { ComponentObject } from '#shared/providers/desired/parse-components-yaml.ts';
import { ProviderComponentsError, ProviderReason } from '#shared/providers/desired/provider-components-error.ts';

/** Kinds clusterctl treats as cluster-scoped (`cmd/clusterctl/internal/util/objs.go`); everything else is namespaced. */
export const clusterScopedKinds: ReadonlySet<string> = new Set([
  'Namespace',
  'Node',
  'PersistentVolume',
  'PodSecurityPolicy',
  'CertificateSigningRequest',
  'ClusterRoleBinding',
  'ClusterRole',
  'VolumeAttachment',
  'StorageClass',
  'CSIDriver',
  'CSINode',
  'ValidatingWebhookConfiguration',
  'MutatingWebhookConfiguration',
  'CustomResourceDefinition',
  'PriorityClass',
  'RuntimeClass',
]);

export function isNamespacedKind(kind: string): boolean {
  return !clusterScopedKinds.has(kind);
}

const injectCaFrom = 'cert-manager.io/inject-ca-from';

type Json = Record<string, unknown>;
const isRecord = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function fail(message: string, object: Omit<ErrorFields, 'reason'>): never {
  throw new ProviderComponentsError(message, { ...object, reason: ProviderReason.ComponentsFetchError });
}

/**
 * The namespace the components YAML itself declares (the name of its only Namespace object), or undefined; more than
 * one Namespace object is an error, as in clusterctl.
 */
export function computeDefaultTargetNamespace(
  objs: readonly ComponentObject[],
  provider: Omit<ErrorFields, 'reason'> = {},
): string | undefined {
  const names = objs.filter((o) => o.kind === 'Namespace').map((o) => o.metadata.name ?? '');
  if (names.length > 1) {
    fail(
      'invalid manifest: there should be no more than one resource with Kind Namespace in the provider components yaml',
      provider,
    );
  }
  return names[0];
}

function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const i = apiVersion.lastIndexOf('/');
  return i < 0
    ? { group: '', version: apiVersion }
    : { group: apiVersion.slice(0, i), version: apiVersion.slice(i + 1) };
}

function fixWebhookServices(obj: Json, targetNamespace: string): void {
  const webhooks = obj['webhooks'];
  if (!Array.isArray(webhooks)) return;
  for (const w of webhooks) {
    const service = isRecord(w) && isRecord(w['clientConfig']) ? w['clientConfig']['service'] : undefined;
    if (isRecord(service)) service['namespace'] = targetNamespace;
  }
}

function fixCrdConversionService(obj: Json, version: string, targetNamespace: string): void {
  const conversion = isRecord(obj['spec']) ? obj['spec']['conversion'] : undefined;
  if (!isRecord(conversion)) return;
  const clientConfig =
    version === 'v1beta1'
      ? conversion['webhookClientConfig']
      : isRecord(conversion['webhook'])
        ? conversion['webhook']['clientConfig']
        : undefined;
  const service = isRecord(clientConfig) ? clientConfig['service'] : undefined;
  if (isRecord(service)) service['namespace'] = targetNamespace;
}

function fixObject(input: ComponentObject, targetNamespace: string): ComponentObject {
  const o = structuredClone(input) as ComponentObject;
  const id = { kind: o.kind, ...(o.metadata.name === undefined ? {} : { name: o.metadata.name }) };
  if (o.kind === 'Namespace') o.metadata.name = targetNamespace;
  const originalNamespace = o.metadata.namespace ?? '';
  if (isNamespacedKind(o.kind)) o.metadata.namespace = targetNamespace;
  const { version } = splitApiVersion(o.apiVersion);
  switch (o.kind) {
    case 'ClusterRoleBinding':
    case 'RoleBinding': {
      const subjects = o['subjects'];
      if (Array.isArray(subjects)) {
        for (const s of subjects)
          if (isRecord(s) && typeof s['namespace'] === 'string' && s['namespace'] !== '')
            s['namespace'] = targetNamespace;
      }
      break;
    }
    case 'MutatingWebhookConfiguration':
    case 'ValidatingWebhookConfiguration':
    case 'CustomResourceDefinition': {
      const annotations = o.metadata.annotations;
      const from = annotations?.[injectCaFrom];
      if (annotations && from !== undefined) {
        const parts = from.split('/');
        if (parts.length !== 2)
          fail(`object ${o.kind} ${o.metadata.name ?? ''} does not have a correct value for ${injectCaFrom}`, id);
        annotations[injectCaFrom] = `${targetNamespace}/${parts[1] ?? ''}`;
      }
      if (version !== 'v1' && version !== 'v1beta1') fail(`failed to patch ${version} ${o.kind}`, id);
      if (o.kind === 'CustomResourceDefinition') fixCrdConversionService(o, version, targetNamespace);
      else fixWebhookServices(o, targetNamespace);
      break;
    }
    case 'Certificate': {
      const spec = o['spec'];
      const dnsNames = isRecord(spec) ? spec['dnsNames'] : undefined;
      if (isRecord(spec) && Array.isArray(dnsNames)) {
        if (!dnsNames.every((n) => typeof n === 'string'))
          fail(`failed to get .spec.dnsNames from Certificate ${originalNamespace}/${o.metadata.name ?? ''}`, id);
        // NOTE: clusterctl replaces the first `.<original namespace>.` only, so `svc.<ns>.svc` style names keep the rest.
        spec['dnsNames'] = dnsNames.map((n: string) =>
          n.replace(`.${originalNamespace}.`, () => `.${targetNamespace}.`),
        );
      }
      break;
    }
  }
  return o;
}

/**
 * Moves components into `targetNamespace` the way clusterctl's `fixTargetNamespace` does: the Namespace object is
 * renamed, namespaced objects get the namespace, namespaced RBAC subjects, webhook and CRD-conversion services and
 * `cert-manager.io/inject-ca-from` point at it, and Certificate DNS names swap `.<old>.` for `.<new>.`.
 * A Namespace object is added when the YAML has none. Inputs are not modified.
 *
 * @example
 * computeTargetNamespace(objs, 'capi-system');
 */
export function computeTargetNamespace(objs: readonly ComponentObject[], targetNamespace: string): ComponentObject[] {
  const out = objs.map((o) => fixObject(o, targetNamespace));
  if (!out.some((o) => o.kind === 'Namespace'))
    out.push({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: targetNamespace } });
  return out;
}
