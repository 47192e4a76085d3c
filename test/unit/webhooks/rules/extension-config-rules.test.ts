// ExtensionConfig admission rules (upstream v1.14, RuntimeSDK gate on).
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
import { deepFreeze } from '#test/support/builders/topology.ts';

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
