// Table test: ExtensionConfig admission and the external-patch checks of ClusterClass admission against upstream
// Cluster API v1.14's own webhook code (sigs.k8s.io/cluster-api/core/webhooks/admission, ClusterTopology and
// RuntimeSDK gates on), run by the Go oracle. Each case must get the same verdict, the same Status message byte for
// byte and the same causes (type, field, message); the table "Admission of external patches and
// ExtensionConfigs" in docs/runtime-sdk.md is checked against this table row by row.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import jsonpatch from 'fast-json-patch';
import type { Operation } from 'fast-json-patch';
import type { ClusterClass, ClusterClassPatch } from '#shared/api/core/v1beta2/cluster-class.ts';
import type { AdmissionReview, AdmissionStatus } from '#shared/webhooks/admission-review.ts';
import type { WebhookReader } from '#shared/webhooks/current/webhook-reader.ts';
import { reviewAdmission, type AdmissionMode } from '#shared/webhooks/review-admission.ts';
import { ClusterClassBuilder } from '#test/support/builders/topology.ts';
import { startGoOracle, type AdmissionAnswer, type GoOracle } from '#test/support/oracles/go-oracle.ts';

/** A table row with its cells trimmed (prettier pads the docs page's columns). */
const normalizeRow = (row: string) =>
  row
    .split(/(?<!\\)\|/)
    .map((cell) => cell.trim())
    .join('|');
const docRows = new Set(
  readFileSync(new URL('../../../docs/runtime-sdk.md', import.meta.url), 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .map(normalizeRow),
);

/**
 * Creating these reads nothing: a reader that is called fails the test. Forgetting a cached class (what an admitted
 * ClusterClass write does) reads nothing, so it is allowed.
 */
const reader = new Proxy({} as WebhookReader, {
  get: (_, name) =>
    name === 'forgetClusterClass'
      ? () => undefined
      : () => Promise.reject(new Error(`unexpected lookup ${String(name)}`)),
});

type Case = {
  /** The input, as the docs table names it. */
  readonly input: string;
  readonly object: Record<string, unknown>;
  /** The verdict both must reach, and the full message of a refusal (the docs table's last column). */
  readonly verdict: 'admitted' | 'refused';
  readonly message?: string;
};

function extensionConfig(spec: Record<string, unknown>, name = 'ext'): Record<string, unknown> {
  return { apiVersion: 'runtime.cluster.x-k8s.io/v1beta2', kind: 'ExtensionConfig', metadata: { name }, spec };
}
const url = (u: string) => ({ clientConfig: { url: u }, namespaceSelector: {} });
const service = (s: Record<string, unknown>) => ({ clientConfig: { service: s }, namespaceSelector: {} });
const selector = (namespaceSelector: unknown) => ({ clientConfig: { url: 'https://ext.example' }, namespaceSelector });
const ec = 'ExtensionConfig.runtime.cluster.x-k8s.io "ext" is invalid: ';

const dns1123 =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const dns1035 =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

const extensionConfigCases: readonly Case[] = [
  {
    input: 'https `url`, `namespaceSelector: {}`',
    object: extensionConfig(url('https://ext.example:8443/hooks')),
    verdict: 'admitted',
  },
  {
    input: '`service` with name, namespace, path `/hooks`, port 8443',
    object: extensionConfig(service({ name: 'ext', namespace: 'ext-system', path: '/hooks', port: 8443 })),
    verdict: 'admitted',
  },
  {
    input: 'neither `url` nor `service`',
    object: extensionConfig({ clientConfig: {}, namespaceSelector: {} }),
    verdict: 'refused',
    message: `${ec}spec.clientConfig: Required value: either url or service must be defined`,
  },
  {
    input: 'both `url` and `service`',
    object: extensionConfig({
      clientConfig: { url: 'https://ext.example', service: { name: 'ext', namespace: 'ext-system' } },
      namespaceSelector: {},
    }),
    verdict: 'refused',
    message: `${ec}spec.clientConfig: Forbidden: only one of url or service can be defined`,
  },
  {
    input: '`url: http://ext.example`',
    object: extensionConfig(url('http://ext.example')),
    verdict: 'refused',
    message: `${ec}spec.clientConfig.url: Invalid value: "http://ext.example": 'https' is the only allowed URL scheme, e.g. https://example.com`,
  },
  {
    input: '`url: ext.example/hooks` (no scheme)',
    object: extensionConfig(url('ext.example/hooks')),
    verdict: 'refused',
    message: `${ec}spec.clientConfig.url: Invalid value: "ext.example/hooks": must be a valid URL, e.g. https://example.com: parse "ext.example/hooks": invalid URI for request`,
  },
  {
    input: '`url: https://ext example/` (space in host)',
    object: extensionConfig(url('https://ext example/')),
    verdict: 'refused',
    message: `${ec}spec.clientConfig.url: Invalid value: "https://ext example/": must be a valid URL, e.g. https://example.com: parse "https://ext example/": invalid character " " in host name`,
  },
  {
    input: '`url: https://ext.example:https/`',
    object: extensionConfig(url('https://ext.example:https/')),
    verdict: 'refused',
    message: `${ec}spec.clientConfig.url: Invalid value: "https://ext.example:https/": must be a valid URL, e.g. https://example.com: parse "https://ext.example:https/": invalid port ":https" after host`,
  },
  {
    input: '`url: https://ext.example/%zz`',
    object: extensionConfig(url('https://ext.example/%zz')),
    verdict: 'refused',
    message: `${ec}spec.clientConfig.url: Invalid value: "https://ext.example/%zz": must be a valid URL, e.g. https://example.com: parse "https://ext.example/%zz": invalid URL escape "%zz"`,
  },
  {
    input: 'name `ext.example` (dots)',
    object: extensionConfig(url('https://ext.example'), 'ext.example'),
    verdict: 'refused',
    message:
      'ExtensionConfig.runtime.cluster.x-k8s.io "ext.example" is invalid: metadata.name: Invalid value: "ext.example": ExtensionConfig name should be a valid DNS1123 label name: [must not contain dots]',
  },
  {
    input: 'name `Ext` (upper case)',
    object: extensionConfig(url('https://ext.example'), 'Ext'),
    verdict: 'refused',
    message: `ExtensionConfig.runtime.cluster.x-k8s.io "Ext" is invalid: metadata.name: Invalid value: "Ext": ExtensionConfig name should be a valid DNS1123 label name: [${dns1123}]`,
  },
  {
    input: '`service.name: 1-ext`',
    object: extensionConfig(service({ name: '1-ext', namespace: 'ext-system' })),
    verdict: 'refused',
    message: `${ec}spec.clientConfig.service.name: Invalid value: "1-ext": ${dns1035}`,
  },
  {
    input: '`service.namespace: Ext_System`',
    object: extensionConfig(service({ name: 'ext', namespace: 'Ext_System' })),
    verdict: 'refused',
    message: `${ec}spec.clientConfig.service.namespace: Invalid value: "Ext_System": ${dns1123}`,
  },
  {
    input: '`service` without name',
    object: extensionConfig(service({ namespace: 'ext-system' })),
    verdict: 'refused',
    message: `${ec}[spec.clientConfig.service.name: Required value: must not be empty, spec.clientConfig.service.name: Invalid value: "": ${dns1035}]`,
  },
  {
    input: '`service.path: hooks` (relative)',
    object: extensionConfig(service({ name: 'ext', namespace: 'ext-system', path: 'hooks' })),
    verdict: 'refused',
    message: `${ec}[spec.clientConfig.service.path: Invalid value: "hooks": must be a valid URL path e.g. /path/to/hook: parse "hooks": invalid URI for request, spec.clientConfig.service.path: Invalid value: "hooks": must start with "/" to be a valid URL path]`,
  },
  {
    input: '`service.port: 0`',
    object: extensionConfig(service({ name: 'ext', namespace: 'ext-system', port: 0 })),
    verdict: 'refused',
    message: `${ec}spec.clientConfig.service.port: Invalid value: 0: must be between 1 and 65535, inclusive`,
  },
  {
    input: '`service.port: 65536`',
    object: extensionConfig(service({ name: 'ext', namespace: 'ext-system', port: 65536 })),
    verdict: 'refused',
    message: `${ec}spec.clientConfig.service.port: Invalid value: 65536: must be between 1 and 65535, inclusive`,
  },
  {
    input: 'no `namespaceSelector` (validation alone; defaulting sets `{}`)',
    object: extensionConfig({ clientConfig: { url: 'https://ext.example' } }),
    verdict: 'refused',
    message: `${ec}spec.namespaceSelector: Required value: must be defined`,
  },
  {
    input: '`namespaceSelector` operator `Is`',
    object: extensionConfig(selector({ matchExpressions: [{ key: 'env', operator: 'Is', values: ['a'] }] })),
    verdict: 'refused',
    message: `${ec}spec.namespaceSelector: Invalid value: {"matchExpressions":[{"key":"env","operator":"Is","values":["a"]}]}: "Is" is not a valid label selector operator`,
  },
  {
    input: '`namespaceSelector` `In` without values',
    object: extensionConfig(selector({ matchExpressions: [{ key: 'env', operator: 'In' }] })),
    verdict: 'refused',
    message: `${ec}spec.namespaceSelector: Invalid value: {"matchExpressions":[{"key":"env","operator":"In"}]}: values: Invalid value: null: for 'in', 'notin' operators, values set can't be empty`,
  },
  {
    input: '`namespaceSelector` `Exists` with values',
    object: extensionConfig(selector({ matchExpressions: [{ key: 'env', operator: 'Exists', values: ['a'] }] })),
    verdict: 'refused',
    message: `${ec}spec.namespaceSelector: Invalid value: {"matchExpressions":[{"key":"env","operator":"Exists","values":["a"]}]}: values: Invalid value: ["a"]: values set must be empty for exists and does not exist`,
  },
  {
    input: '`namespaceSelector.matchLabels` value `a b`',
    object: extensionConfig(selector({ matchLabels: { env: 'a b' } })),
    verdict: 'refused',
    message: `${ec}spec.namespaceSelector: Invalid value: {"matchLabels":{"env":"a b"}}: values[0][env]: Invalid value: "a b": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
  },
];

/** An external patch in the class the builder makes (its templates are valid for upstream too). */
function clusterClass(patches: readonly Record<string, unknown>[], name = 'cc'): Record<string, unknown> {
  const cc = new ClusterClassBuilder(name).patches(patches as unknown as ClusterClassPatch[]).build();
  return cc as unknown as Record<string, unknown>;
}
const base: ClusterClass = new ClusterClassBuilder('cc').build();
const infraRef = base.spec.infrastructure.templateRef;
const definitions = [
  {
    selector: { apiVersion: infraRef.apiVersion, kind: infraRef.kind, matchResources: { infrastructureCluster: true } },
    jsonPatches: [{ op: 'add', path: '/spec/template/spec/region', value: 'eu-west-1' }],
  },
];
const cc = 'ClusterClass.cluster.x-k8s.io "cc" is invalid: ';

const clusterClassCases: readonly Case[] = [
  {
    input: '`external.generatePatchesExtension` only',
    object: clusterClass([{ name: 'ext', external: { generatePatchesExtension: 'generate-patches.ext' } }]),
    verdict: 'admitted',
  },
  {
    input: '`external.validateTopologyExtension` only',
    object: clusterClass([{ name: 'ext', external: { validateTopologyExtension: 'validate-topology.ext' } }]),
    verdict: 'admitted',
  },
  {
    input: 'an extension no ExtensionConfig registers (`generate-patches.missing`)',
    object: clusterClass([{ name: 'ext', external: { generatePatchesExtension: 'generate-patches.missing' } }]),
    verdict: 'admitted',
  },
  {
    input: '`external.discoverVariablesExtension` only',
    object: clusterClass([{ name: 'ext', external: { discoverVariablesExtension: 'discover-variables.ext' } }]),
    verdict: 'refused',
    message: `${cc}spec.patches[0].external: Invalid value: {"discoverVariablesExtension":"discover-variables.ext"}: one of validateTopologyExtension and generatePatchesExtension must be defined`,
  },
  {
    input: '`external: {}`',
    object: clusterClass([{ name: 'ext', external: {} }]),
    verdict: 'refused',
    message: `${cc}spec.patches[0].external: Invalid value: {}: one of validateTopologyExtension and generatePatchesExtension must be defined`,
  },
  {
    input: '`external.settings` only',
    object: clusterClass([{ name: 'ext', external: { settings: { b: '2', a: '1' } } }]),
    verdict: 'refused',
    message: `${cc}spec.patches[0].external: Invalid value: {"settings":{"a":"1","b":"2"}}: one of validateTopologyExtension and generatePatchesExtension must be defined`,
  },
  {
    input: 'neither `definitions` nor `external`',
    object: clusterClass([{ name: 'ext' }]),
    verdict: 'refused',
    message: `${cc}spec.patches[0]: Required value: one of definitions or external must be defined`,
  },
  {
    input: 'both `definitions` and `external`',
    object: clusterClass([
      { name: 'ext', definitions, external: { generatePatchesExtension: 'generate-patches.ext' } },
    ]),
    verdict: 'refused',
    message: `${cc}spec.patches[0]: Invalid value: {"name":"ext","definitions":[{"selector":{"apiVersion":"${infraRef.apiVersion}","kind":"${infraRef.kind}","matchResources":{"infrastructureCluster":true}},"jsonPatches":[{"op":"add","path":"/spec/template/spec/region","value":"eu-west-1"}]}],"external":{"generatePatchesExtension":"generate-patches.ext"}}: only one of definitions or external can be defined`,
  },
  {
    input: 'external patch named `inline`',
    object: clusterClass([{ name: 'inline', external: { generatePatchesExtension: 'generate-patches.ext' } }]),
    verdict: 'refused',
    message: `${cc}spec.patches[0].name: Required value: "inline" can not be used as the name of a patch`,
  },
  {
    input: 'two external patches named `ext`',
    object: clusterClass([
      { name: 'ext', external: { generatePatchesExtension: 'generate-patches.ext' } },
      { name: 'ext', external: { validateTopologyExtension: 'validate-topology.ext' } },
    ]),
    verdict: 'refused',
    message: `${cc}spec.patches[1].name: Invalid value: "ext": patch names must be unique. Patch with name "ext" is defined more than once`,
  },
  {
    input: 'external patch with `enabledIf: "{{ .cpu "`',
    object: clusterClass([
      { name: 'ext', enabledIf: '{{ .cpu ', external: { generatePatchesExtension: 'generate-patches.ext' } },
    ]),
    verdict: 'refused',
    message: `${cc}spec.patches[0].enabledIf: Invalid value: "{{ .cpu ": template can not be parsed: template: enabledIf:1: unclosed action`,
  },
];

type Verdict = { readonly allowed: boolean; readonly message?: string; readonly causes?: readonly string[] };

function causesOf(status: AdmissionStatus | undefined): string[] {
  return (status?.details?.causes ?? []).map((c) => `${c.reason} ${c.field ?? ''}: ${c.message}`);
}

async function ours(mode: AdmissionMode, kind: string, group: string, object: Record<string, unknown>) {
  const review: AdmissionReview = {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: 'u1',
      kind: { group, version: 'v1beta2', kind },
      resource: { group, version: 'v1beta2', resource: `${kind.toLowerCase()}s` },
      name: (object['metadata'] as { name: string }).name,
      ...(kind === 'ClusterClass' ? { namespace: 'default' } : {}),
      operation: 'CREATE',
      object: structuredClone(object),
    },
  };
  return (await reviewAdmission({ reader }, mode, review)).response;
}

async function ourVerdict(kind: string, group: string, object: Record<string, unknown>): Promise<Verdict> {
  const response = await ours('validate', kind, group, object);
  if (response.allowed) return { allowed: true };
  return { allowed: false, message: response.status?.message ?? '', causes: causesOf(response.status) };
}

function upstreamVerdict(answer: AdmissionAnswer): Verdict {
  const a = answer.admission;
  assert.ok(a, `the oracle did not answer: ${JSON.stringify(answer)}`);
  if (a.allowed) return { allowed: true };
  return {
    allowed: false,
    message: a.message ?? '',
    causes: (a.causes ?? []).map((c) => `${c.type} ${c.field}: ${c.message}`),
  };
}

/** The docs table row of a case: input → upstream v1.14 verdict → capi-serverless verdict → full message. */
function docRow(input: string, upstream: Verdict, ourVerdict: Verdict): string {
  const word = (v: Verdict) => (v.allowed ? 'admitted' : 'refused');
  const message = upstream.message ? `\`${upstream.message.replaceAll('|', '\\|')}\`` : '—';
  return `| ${input} | ${word(upstream)} | ${word(ourVerdict)} | ${message} |`;
}

let go: GoOracle;
before(() => {
  go = startGoOracle();
});
after(() => go.close());

describe('ExtensionConfig admission against upstream v1.14 (core/webhooks/admission, RuntimeSDK on)', () => {
  for (const c of extensionConfigCases) {
    test(`${c.verdict}: ${c.input}`, async () => {
      const upstream = upstreamVerdict(await go.ask({ op: 'validateExtensionConfig', object: c.object }));
      const mine = await ourVerdict('ExtensionConfig', 'runtime.cluster.x-k8s.io', c.object);
      assert.deepEqual(mine, upstream);
      assert.equal(upstream.allowed, c.verdict === 'admitted');
      assert.equal(upstream.message, c.message);
      const row = docRow(c.input, upstream, mine);
      assert.ok(docRows.has(normalizeRow(row)), `docs/runtime-sdk.md row missing: ${row}`);
    });
  }

  // More of Go's url.ParseRequestURI through upstream's webhook (not in the docs table).
  const urls = [
    'HTTPS://ext.example',
    'https://[::1]:8443/',
    'https://[::1/',
    'https://a[::1]/',
    'https://[127.0.0.1]/',
    'https://ext%2Eexample/',
    'https://ext.example:8443:1/',
    'https://a b@ext.example/',
    'https://user:p%zz@ext.example/',
    'https://ext.example/\n',
    ':8443/hooks',
    'mailto:ops@example.com',
    'https:/hooks',
    'https://ext.example?x=1',
    'https://ext.example/#frag',
    'https://ext.example/%e2%82%ac',
    '/hooks',
  ];
  for (const u of urls) {
    test(`url ${JSON.stringify(u)}: the same verdict and message`, async () => {
      const object = extensionConfig(url(u));
      const upstream = upstreamVerdict(await go.ask({ op: 'validateExtensionConfig', object }));
      assert.deepEqual(await ourVerdict('ExtensionConfig', 'runtime.cluster.x-k8s.io', object), upstream);
    });
  }

  const defaulting: [string, Record<string, unknown>][] = [
    [
      'a service without port gets 443 and an unset selector `{}`',
      extensionConfig({ clientConfig: { service: { name: 'ext', namespace: 'ns' } } }),
    ],
    ['a url config with a selector is left as it is', extensionConfig(selector({ matchLabels: { env: 'prod' } }))],
    [
      'an empty service is not defaulted',
      extensionConfig({ clientConfig: { url: 'https://ext.example', service: {} } }),
    ],
  ];
  for (const [name, object] of defaulting) {
    test(`defaulting: ${name}`, async () => {
      const answer = await go.ask({ op: 'defaultExtensionConfig', object });
      const response = await ours('mutate', 'ExtensionConfig', 'runtime.cluster.x-k8s.io', object);
      assert.ok(response.allowed);
      const patch = response.patchType
        ? (JSON.parse(Buffer.from(response.patch ?? '', 'base64').toString()) as Operation[])
        : [];
      const defaulted = jsonpatch.applyPatch(structuredClone(object), patch, false, false).newDocument;
      // NOTE: Go drops an empty `service: {}` when it marshals (omitzero); the defaulted fields are compared.
      const fields = (o: unknown) => {
        const spec = (o as { spec: Record<string, unknown> }).spec;
        const svc = (spec['clientConfig'] as { service?: { port?: number } } | undefined)?.service;
        return { namespaceSelector: spec['namespaceSelector'], port: svc?.port };
      };
      assert.deepEqual(fields(defaulted), fields(answer.admission?.object));
    });
  }
});

describe('ClusterClass external patches against upstream v1.14 (core/webhooks/admission, RuntimeSDK on)', () => {
  for (const c of clusterClassCases) {
    test(`${c.verdict}: ${c.input}`, async () => {
      const upstream = upstreamVerdict(await go.ask({ op: 'validateClusterClass', object: c.object }));
      const mine = await ourVerdict('ClusterClass', 'cluster.x-k8s.io', c.object);
      assert.deepEqual(mine, upstream);
      assert.equal(upstream.allowed, c.verdict === 'admitted');
      assert.equal(upstream.message, c.message);
      const row = docRow(c.input, upstream, mine);
      assert.ok(docRows.has(normalizeRow(row)), `docs/runtime-sdk.md row missing: ${row}`);
    });
  }
});
