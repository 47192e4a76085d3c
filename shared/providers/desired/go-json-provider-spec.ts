// Go `encoding/json` output for an operator `ProviderSpec` decoded into the operator's Go types: fields in the Go
// struct order, `omitempty` as Go applies it (never to struct values), map keys sorted, HTML-safe string escaping,
// durations as Go prints them. The Cluster API Operator hashes exactly these bytes into its applied-spec hash.
import { formatDuration, parseDuration } from '#shared/lang/go/time.ts';

/** How one Go type marshals. `raw` is a Kubernetes type not modelled field by field (keys sorted, as a Go map). */
type Shape =
  | 'string'
  | 'int'
  | 'bool'
  | 'duration'
  | 'raw'
  | { readonly struct: readonly Field[] }
  | { readonly map: Shape }
  | { readonly slice: Shape }
  | { readonly ptr: Shape };

/** `[json name, shape, omitempty]`; a pointer shape is marshalled only when present. */
type Field = readonly [string, Shape, boolean];

const str = 'string';
const ptr = (s: Shape): Shape => ({ ptr: s });
const slice = (s: Shape): Shape => ({ slice: s });
const map = (s: Shape): Shape => ({ map: s });
const struct = (...fields: Field[]): Shape => ({ struct: fields });

const LabelSelector = struct(
  ['matchLabels', map(str), true],
  [
    'matchExpressions',
    slice(struct(['key', str, false], ['operator', str, false], ['values', slice(str), true])),
    true,
  ],
);
const KeyRef = struct(['name', str, true], ['key', str, false], ['optional', ptr('bool'), true]);
const EnvVar = struct(
  ['name', str, false],
  ['value', str, true],
  [
    'valueFrom',
    ptr(
      struct(
        ['fieldRef', ptr(struct(['apiVersion', str, true], ['fieldPath', str, false])), true],
        ['resourceFieldRef', ptr('raw'), true],
        ['configMapKeyRef', ptr(KeyRef), true],
        ['secretKeyRef', ptr(KeyRef), true],
        ['fileKeyRef', ptr('raw'), true],
      ),
    ),
    true,
  ],
);
const Toleration = struct(
  ['key', str, true],
  ['operator', str, true],
  ['value', str, true],
  ['effect', str, true],
  ['tolerationSeconds', ptr('int'), true],
);
// NOTE: quantities are kept as written; Go re-prints them canonically ("0.5" becomes "500m").
const ResourceRequirements = struct(
  ['limits', map(str), true],
  ['requests', map(str), true],
  ['claims', slice(struct(['name', str, false], ['request', str, true])), true],
);
const ContainerSpec = struct(
  ['name', str, false],
  ['imageUrl', ptr(str), true],
  ['args', map(str), true],
  ['env', slice(EnvVar), true],
  ['resources', ptr(ResourceRequirements), true],
  ['command', slice(str), true],
);
const DeploymentSpec = struct(
  ['replicas', ptr('int'), true],
  ['nodeSelector', map(str), true],
  ['tolerations', ptr(slice(Toleration)), true],
  ['affinity', ptr('raw'), true],
  ['containers', slice(ContainerSpec), true],
  ['serviceAccountName', str, true],
  ['imagePullSecrets', slice(struct(['name', str, true])), true],
);
const ManagerSpec = struct(
  ['syncPeriod', ptr('duration'), true],
  [
    'leaderElection',
    ptr(
      struct(
        ['leaderElect', ptr('bool'), false],
        ['leaseDuration', 'duration', false],
        ['renewDeadline', 'duration', false],
        ['retryPeriod', 'duration', false],
        ['resourceLock', str, false],
        ['resourceName', str, false],
        ['resourceNamespace', str, false],
      ),
    ),
    true,
  ],
  ['cacheNamespace', str, true],
  ['gracefulShutDown', ptr('duration'), true],
  [
    'controller',
    ptr(
      struct(
        ['groupKindConcurrency', map('int'), true],
        ['cacheSyncTimeout', ptr('int'), true],
        ['recoverPanic', ptr('bool'), true],
      ),
    ),
    true,
  ],
  [
    'metrics',
    struct(['bindAddress', str, true], ['diagnosticsAddress', str, true], ['insecureDiagnostics', 'bool', true]),
    true,
  ],
  [
    'health',
    struct(
      ['healthProbeBindAddress', str, true],
      ['readinessEndpointName', str, true],
      ['livenessEndpointName', str, true],
    ),
    true,
  ],
  ['webhook', struct(['port', ptr('int'), true], ['host', str, true], ['certDir', str, true]), true],
  ['profilerAddress', str, true],
  ['maxConcurrentReconciles', 'int', true],
  ['verbosity', 'int', true],
  ['featureGates', map('bool'), true],
  ['additionalArgs', map(str), true],
);
const Reference = struct(['name', str, false], ['namespace', str, true]);

/** `ProviderSpec` of `api/v1alpha2/provider_types.go` (every provider kind inlines it). */
const ProviderSpecShape = struct(
  ['version', str, true],
  ['manager', ptr(ManagerSpec), true],
  ['deployment', ptr(DeploymentSpec), true],
  ['configSecret', ptr(Reference), true],
  ['fetchConfig', ptr(struct(['oci', str, true], ['url', str, true], ['selector', ptr(LabelSelector), true])), true],
  ['additionalManifests', ptr(Reference), true],
  ['manifestPatches', slice(str), true],
  [
    'patches',
    slice(
      ptr(
        struct(
          ['patch', str, true],
          [
            'target',
            ptr(
              struct(
                ['group', str, true],
                ['version', str, true],
                ['kind', str, true],
                ['name', str, true],
                ['namespace', str, true],
                ['labelSelector', str, true],
              ),
            ),
            true,
          ],
        ),
      ),
    ),
    true,
  ],
  [
    'additionalDeployments',
    map(struct(['manager', ptr(ManagerSpec), true], ['deployment', ptr(DeploymentSpec), true])),
    true,
  ],
);

/** Go's string escaping: JSON's, plus `<`, `>`, `&`, U+2028 and U+2029 as `\u` escapes. */
export function formatGoJsonString(s: string): string {
  return JSON.stringify(s).replace(/[<>&\u2028\u2029]/gu, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function marshalDuration(v: unknown): string {
  if (v === undefined || v === null) return '"0s"';
  const nanos = typeof v === 'string' ? parseDuration(v) : undefined;
  if (nanos === undefined) return formatGoJsonString(String(v));
  return formatGoJsonString(formatDuration(nanos));
}

function marshalRaw(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return `[${v.map(marshalRaw).join(',')}]`;
  if (typeof v === 'object') {
    const o = v as Record<string, unknown>;
    const keys = Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${formatGoJsonString(k)}:${marshalRaw(o[k])}`).join(',')}}`;
  }
  if (typeof v === 'string') return formatGoJsonString(v);
  return JSON.stringify(v);
}

/** Whether Go's omitempty drops this value of this shape (absent pointers, zero scalars, empty maps and slices). */
function isEmpty(v: unknown, shape: Shape): boolean {
  if (v === undefined || v === null) return typeof shape === 'string' || !('struct' in shape);
  if (typeof shape === 'string') {
    if (shape === 'string') return v === '';
    if (shape === 'int') return v === 0;
    if (shape === 'bool') return v === false;
    return false;
  }
  if ('map' in shape) return Object.keys(v as object).length === 0;
  if ('slice' in shape) return (v as unknown[]).length === 0;
  return false;
}

function marshal(v: unknown, shape: Shape): string {
  if (typeof shape === 'string') {
    switch (shape) {
      case 'string':
        return formatGoJsonString(typeof v === 'string' ? v : '');
      case 'int':
        return typeof v === 'number' ? String(Math.trunc(v)) : '0';
      case 'bool':
        return v === true ? 'true' : 'false';
      case 'duration':
        return marshalDuration(v);
      default:
        return marshalRaw(v);
    }
  }
  if ('ptr' in shape) return v === undefined || v === null ? 'null' : marshal(v, shape.ptr);
  if ('slice' in shape) {
    if (!Array.isArray(v)) return 'null';
    return `[${v.map((e) => marshal(e, shape.slice)).join(',')}]`;
  }
  if ('map' in shape) {
    if (v === undefined || v === null || typeof v !== 'object') return 'null';
    const o = v as Record<string, unknown>;
    const keys = Object.keys(o).sort();
    return `{${keys.map((k) => `${formatGoJsonString(k)}:${marshal(o[k], shape.map)}`).join(',')}}`;
  }
  const o = (v ?? {}) as Record<string, unknown>;
  const parts: string[] = [];
  for (const [name, fieldShape, omitempty] of shape.struct) {
    const fv = o[name];
    if (omitempty && isEmpty(fv, fieldShape)) continue;
    parts.push(`${formatGoJsonString(name)}:${marshal(fv, fieldShape)}`);
  }
  return `{${parts.join(',')}}`;
}

/**
 * The bytes Go's `json.Marshal(provider.GetSpec())` produces in the Cluster API Operator for this spec (as read
 * from the API server). `paused`, which the operator's Go types do not know, is dropped as Go drops unknown fields.
 *
 * @example
 * computeGoProviderSpecJson({ version: 'v1.9.0', manager: {} }); // '{"version":"v1.9.0","manager":{"metrics":{},"health":{},"webhook":{}}}'
 */
export function computeGoProviderSpecJson(spec: unknown): string {
  return marshal(spec ?? {}, ProviderSpecShape);
}

/** Go's `json.Marshal(map[string][]byte)` from Kubernetes' base64 `data`: keys sorted, `null` when absent. */
export function computeGoBytesMapJson(data: Readonly<Record<string, string>> | undefined): string {
  if (data === undefined) return 'null';
  return marshal(data, map(str));
}
