// ExtensionConfig admission rules (upstream v1.14, RuntimeSDK gate on) and Go's url.ParseRequestURI as they read it.
// The same rules are compared with upstream's own webhook code in test/integration/oracles/admission-oracle.test.ts.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import jsonpatch from 'fast-json-patch';
import type { Operation } from 'fast-json-patch';
import { formatFieldError } from '#shared/topology/variables/index.ts';
import type { WebhookReader } from '#shared/webhooks/current/webhook-reader.ts';
import { reviewAdmission } from '#shared/webhooks/review-admission.ts';
import {
  computeExtensionConfigDefaults,
  labelSelectorError,
  validateExtensionConfig,
  type AdmittedExtensionConfig,
} from '#shared/webhooks/rules/extension-config-rules.ts';
import { parseRequestURI } from '#shared/webhooks/rules/parse-request-uri.ts';
import { deepFreeze } from '#test/builders/topology.ts';

describe('parseRequestURI (Go net/url.ParseRequestURI)', () => {
  const cases: [string, string, string | { scheme: string }][] = [
    ['accepts an https URL with port and path', 'https://ext.example:8443/hooks', { scheme: 'https' }],
    ['lower-cases the scheme', 'HTTPS://ext.example', { scheme: 'https' }],
    ['accepts an absolute path', '/hooks/v1', { scheme: '' }],
    ['accepts a bracketed IPv6 host', 'https://[::1]:8443/', { scheme: 'https' }],
    ['reads a rootless URI as opaque', 'mailto:ops@example.com', { scheme: 'mailto' }],
    ['refuses a host and path without scheme', 'ext.example/hooks', 'invalid URI for request'],
    ['refuses a leading colon', ':8443/hooks', 'missing protocol scheme'],
    ['refuses a control character', 'https://ext.example/\n', 'net/url: invalid control character in URL'],
    ['refuses a space in the host', 'https://ext example/', 'invalid character " " in host name'],
    ['refuses a port that is not a number', 'https://ext.example:https/', 'invalid port ":https" after host'],
    ['refuses a second colon in an https host', 'https://a:1:2/', 'invalid port ":1:2" after host'],
    ['refuses a bad escape in the path', 'https://ext.example/%zz', 'invalid URL escape "%zz"'],
    ['refuses an escaped ASCII byte in the host', 'https://ext%2Eexample/', 'invalid URL escape "%2E"'],
    ['refuses a bracket missing its end', 'https://[::1/', "missing ']' in host"],
    ['refuses a bracket after the start of the host', 'https://a[::1]/', 'invalid IP-literal'],
    ['refuses a space in the userinfo', 'https://a b@ext.example/', 'net/url: invalid userinfo'],
  ];
  for (const [name, raw, want] of cases) {
    test(name, () => {
      const got = parseRequestURI(raw);
      if (typeof want === 'string')
        assert.deepEqual(got, { ok: false, error: `parse ${JSON.stringify(raw)}: ${want}` });
      else assert.deepEqual(got, { ok: true, scheme: want.scheme });
    });
  }
});

describe('labelSelectorError (metav1.LabelSelectorAsSelector)', () => {
  test('accepts an empty selector and valid requirements', () => {
    assert.equal(labelSelectorError({}), undefined);
    assert.equal(
      labelSelectorError({
        matchLabels: { env: 'prod' },
        matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'In', values: ['default'] }],
      }),
      undefined,
    );
  });

  test('aggregates several problems of one requirement', () => {
    assert.equal(
      labelSelectorError({ matchExpressions: [{ key: 'a b', operator: 'NotIn' }] }),
      "[key: Invalid value: \"a b\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), values: Invalid value: null: for 'in', 'notin' operators, values set can't be empty]",
    );
  });
});

const ec = (spec: AdmittedExtensionConfig['spec'], name = 'ext'): AdmittedExtensionConfig =>
  deepFreeze({ metadata: { name }, spec });

describe('validateExtensionConfig', () => {
  const cases: [string, AdmittedExtensionConfig, string[]][] = [
    ['admits an https URL', ec({ clientConfig: { url: 'https://ext.example' }, namespaceSelector: {} }), []],
    [
      'refuses an http URL',
      ec({ clientConfig: { url: 'http://ext.example' }, namespaceSelector: {} }),
      [
        `spec.clientConfig.url: Invalid value: "http://ext.example": 'https' is the only allowed URL scheme, e.g. https://example.com`,
      ],
    ],
    [
      'refuses neither url nor an empty service, and a missing selector',
      ec({ clientConfig: { service: {} } }),
      [
        'spec.clientConfig: Required value: either url or service must be defined',
        'spec.namespaceSelector: Required value: must be defined',
      ],
    ],
    [
      'refuses a port out of range',
      ec({ clientConfig: { service: { name: 'ext', namespace: 'ns', port: 70000 } }, namespaceSelector: {} }),
      ['spec.clientConfig.service.port: Invalid value: 70000: must be between 1 and 65535, inclusive'],
    ],
    [
      'refuses a name with dots',
      ec({ clientConfig: { url: 'https://ext.example' }, namespaceSelector: {} }, 'a.b'),
      [
        'metadata.name: Invalid value: "a.b": ExtensionConfig name should be a valid DNS1123 label name: [must not contain dots]',
      ],
    ],
  ];
  for (const [name, object, want] of cases) {
    test(name, () => {
      assert.deepEqual(validateExtensionConfig(object).map(formatFieldError), want);
    });
  }
});

describe('ExtensionConfig defaulting', () => {
  test('sets namespaceSelector {} and a service port 443, without touching the input', () => {
    const raw = deepFreeze({ spec: { clientConfig: { service: { name: 'ext', namespace: 'ns' } } } });
    assert.deepEqual(computeExtensionConfigDefaults(raw), {
      spec: { clientConfig: { service: { name: 'ext', namespace: 'ns', port: 443 } }, namespaceSelector: {} },
    });
  });

  test('leaves a set port, a set selector and an undefined service alone', () => {
    const raw = deepFreeze({
      spec: { clientConfig: { url: 'https://x', service: {} }, namespaceSelector: { matchLabels: { a: 'b' } } },
    });
    assert.deepEqual(computeExtensionConfigDefaults(raw), raw);
  });
});

describe('reviewAdmission of ExtensionConfigs', () => {
  const reader = {} as WebhookReader;
  const review = (operation: 'CREATE' | 'UPDATE' | 'DELETE', object: unknown) => ({
    apiVersion: 'admission.k8s.io/v1' as const,
    kind: 'AdmissionReview' as const,
    request: {
      uid: 'u1',
      kind: { group: 'runtime.cluster.x-k8s.io', version: 'v1beta2', kind: 'ExtensionConfig' },
      resource: { group: 'runtime.cluster.x-k8s.io', version: 'v1beta2', resource: 'extensionconfigs' },
      name: 'ext',
      operation,
      object,
      oldObject: object,
    },
  });
  const object = {
    apiVersion: 'runtime.cluster.x-k8s.io/v1beta2',
    kind: 'ExtensionConfig',
    metadata: { name: 'ext' },
    spec: { clientConfig: { url: 'http://ext.example' } },
  };

  test('validate refuses with a 422 naming the ExtensionConfig and its field', async () => {
    const { response } = await reviewAdmission({ reader }, 'validate', review('UPDATE', object));
    assert.equal(response.allowed, false);
    assert.equal(response.status?.code, 422);
    assert.match(response.status?.message ?? '', /^ExtensionConfig\.runtime\.cluster\.x-k8s\.io "ext" is invalid: \[/);
    assert.deepEqual(
      response.status?.details?.causes?.map((c) => c.field),
      ['spec.clientConfig.url', 'spec.namespaceSelector'],
    );
  });

  test('validate allows DELETE', async () => {
    const { response } = await reviewAdmission({ reader }, 'validate', review('DELETE', object));
    assert.equal(response.allowed, true);
  });

  test('mutate patches only the defaulted field', async () => {
    const { response } = await reviewAdmission({ reader }, 'mutate', review('CREATE', object));
    const patch = JSON.parse(Buffer.from(response.patch ?? '', 'base64').toString()) as Operation[];
    assert.deepEqual(patch, [{ op: 'add', path: '/spec/namespaceSelector', value: {} }]);
    assert.deepEqual(jsonpatch.applyPatch(structuredClone(object), patch).newDocument.spec, {
      clientConfig: { url: 'http://ext.example' },
      namespaceSelector: {},
    });
  });
});
