// The Cluster API Operator's components cache and applied-spec hash, computed as the operator computes them, so a
// provider it installed is recognised as unchanged and the operator recognises ours:
// - cache: Secret `<type>-<name>-<version>-cache` in the provider's namespace, owned by the provider, key `cache`
//   holding the processed objects as a JSON array (keys sorted), gzip-compressed (annotation
//   `provider.cluster.x-k8s.io/compressed: "true"`) when the components file is over 1 MiB;
// - hash: lowercase hex SHA-256 over Go JSON of, in order, the provider spec, the config Secret's data (when
//   referenced), the selector ConfigMap's data and binaryData (when selected), the cache Secret's data and the
//   operator's clusterctl config file (`""` without one); written on both the provider and the cache Secret.
import { gunzipSync, gzipSync } from 'node:zlib';
import { operatorApiVersion } from '#shared/api/operator/v1alpha2/provider.ts';
import type { Provider } from '#shared/api/operator/v1alpha2/provider.ts';
import { describeObject } from '#shared/errors/index.ts';
import { computeSha256 } from '#shared/hash/sha256.ts';
import { handoffAnnotation, handoffAppliedValue } from '#shared/providers/desired/compute-handoff.ts';
import type { ComponentObject } from '#shared/providers/desired/parse-components-yaml.ts';
import { ProviderComponentsError, ProviderReason } from '#shared/providers/desired/provider-components-error.ts';
import {
  computeGoBytesMapJson,
  computeGoProviderSpecJson,
  formatGoJsonString,
} from '#shared/providers/desired/go-json-provider-spec.ts';

/** Key of the cache Secret holding the objects. */
export const componentsCacheKey = 'cache';
/** Upstream `CompressedAnnotation`. */
export const compressedAnnotation = 'provider.cluster.x-k8s.io/compressed';
/** Upstream `maxConfigMapSize`: components files above it are cached compressed. */
export const maxUncompressedComponents = 1024 * 1024;
/** Ours: the contract of the cached version, so a re-apply from the cache needs no metadata.yaml. */
export const cacheContractAnnotation = 'management.cluster.x-k8s.io/contract';

/** A Secret as read from the API server: `data` values are base64. */
export type SecretObject = {
  apiVersion?: string;
  kind?: string;
  metadata: { name?: string; namespace?: string; annotations?: Record<string, string>; [key: string]: unknown };
  data?: Record<string, string>;
  [key: string]: unknown;
};

/** Upstream `ProviderCacheName`: `<type>-<name>-<spec.version>-cache`. */
export function computeComponentsCacheName(typeWord: string, provider: Provider): string {
  return `${typeWord}-${provider.metadata.name ?? ''}-${provider.spec?.version ?? ''}-cache`;
}

/** Go JSON of an unstructured object (maps marshal with sorted keys, strings HTML-escaped). */
function formatGoUnstructured(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return `[${v.map(formatGoUnstructured).join(',')}]`;
  if (typeof v === 'object') {
    const o = v as Record<string, unknown>;
    const keys = Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${formatGoJsonString(k)}:${formatGoUnstructured(o[k])}`).join(',')}}`;
  }
  if (typeof v === 'string') return formatGoJsonString(v);
  return JSON.stringify(v);
}

export type ComponentsCacheInput = {
  readonly provider: Provider;
  /** Upstream `GetType()` of the provider kind (`core`, `infrastructure`, …). */
  readonly typeWord: string;
  /** Processed objects, in install order. */
  readonly objects: readonly ComponentObject[];
  /** Size of the raw components file, which decides compression as upstream. */
  readonly componentsSize: number;
  readonly contract?: string | undefined;
  /** Marks the cache as holding components with the handoff applied (`handoffAppliedValue`). */
  readonly handoffApplied?: boolean;
};

/**
 * The cache Secret (without the hash annotation) for a provider version: upstream's name, owner, key and format,
 * with the Namespace object appended when the components have none (upstream `addNamespaceIfMissing`).
 *
 * @example
 * computeComponentsCacheSecret({ provider, typeWord: 'core', objects, componentsSize: 1000 }).metadata.name; // 'core-cluster-api-v1.9.0-cache'
 */
export function computeComponentsCacheSecret(input: ComponentsCacheInput): SecretObject {
  const { provider } = input;
  const namespace = provider.metadata.namespace ?? '';
  const objects: unknown[] = [...input.objects];
  if (!input.objects.some((o) => o.kind === 'Namespace')) {
    objects.push({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
  }
  const json = formatGoUnstructured(objects);
  const compress = input.componentsSize > maxUncompressedComponents;
  const bytes = compress ? gzipSync(Buffer.from(json, 'utf8')) : Buffer.from(json, 'utf8');
  const annotations: Record<string, string> = {};
  if (compress) annotations[compressedAnnotation] = 'true';
  if (input.contract) annotations[cacheContractAnnotation] = input.contract;
  if (input.handoffApplied) annotations[handoffAnnotation] = handoffAppliedValue;
  const { uid, name } = provider.metadata;
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: computeComponentsCacheName(input.typeWord, provider),
      namespace,
      annotations,
      ownerReferences: [{ apiVersion: operatorApiVersion, kind: provider.kind, name: name ?? '', uid: uid ?? '' }],
    },
    data: { [componentsCacheKey]: bytes.toString('base64') },
  };
}

/** The objects of a cache Secret (every data key, as upstream applies them all); errors name the Secret. */
export function parseComponentsCache(secret: SecretObject): ComponentObject[] {
  const who = describeObject('Secret', secret.metadata.namespace, secret.metadata.name);
  const compressed = secret.metadata.annotations?.[compressedAnnotation] === 'true';
  const out: ComponentObject[] = [];
  for (const key of Object.keys(secret.data ?? {}).sort()) {
    let raw = Buffer.from(secret.data?.[key] ?? '', 'base64');
    try {
      if (compressed) raw = gunzipSync(raw);
      const parsed: unknown = JSON.parse(raw.toString('utf8'));
      if (!Array.isArray(parsed)) throw new Error('not a JSON array of objects');
      out.push(...(parsed as ComponentObject[]));
    } catch (err) {
      throw new ProviderComponentsError(
        `failed to read the components cache ${who} key ${key}: ${err instanceof Error ? err.message : String(err)}`,
        { reason: ProviderReason.ComponentsFetchError },
        { cause: err },
      );
    }
  }
  return out;
}

export type OperatorHashInput = {
  readonly spec: unknown;
  /** `data` of the config Secret when the provider references one (undefined data: an empty Secret). */
  readonly configSecret?: { readonly data?: Readonly<Record<string, string>> | undefined } | undefined;
  /** The one ConfigMap the provider's selector matches, when it has a selector and one matches. */
  readonly configMap?:
    | {
        readonly data?: Readonly<Record<string, string>> | undefined;
        readonly binaryData?: Readonly<Record<string, string>> | undefined;
      }
    | undefined;
  /** `data` of the cache Secret as stored. */
  readonly cacheData: Readonly<Record<string, string>> | undefined;
  /** The operator's clusterctl config file, when it ran with one. */
  readonly configFile?: string;
};

/**
 * The applied-spec hash exactly as the Cluster API Operator writes it (`setCacheHash`): bare lowercase hex.
 *
 * @example
 * computeOperatorHash({ spec: { version: 'v1.9.0' }, cacheData: { cache: 'W10=' } }); // 'c0ffee…' (64 hex digits)
 */
export function computeOperatorHash(input: OperatorHashInput): string {
  const parts = [computeGoProviderSpecJson(input.spec)];
  if (input.configSecret) parts.push(computeGoBytesMapJson(input.configSecret.data));
  if (input.configMap) {
    parts.push(computeGoBytesMapJson(input.configMap.data), computeGoBytesMapJson(input.configMap.binaryData));
  }
  parts.push(computeGoBytesMapJson(input.cacheData));
  parts.push(formatGoJsonString(Buffer.from(input.configFile ?? '', 'utf8').toString('base64')));
  return computeSha256(parts.join(''));
}
