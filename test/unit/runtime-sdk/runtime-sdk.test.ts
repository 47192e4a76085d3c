// Pure parts of the Runtime SDK client: handler paths, discovery defaulting and validation as upstream, the
// ExtensionConfig status, and which handlers a hook call goes to.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ExtensionConfig } from '#shared/api/runtime-extension.ts';
import { ValidationError } from '#shared/errors/index.ts';
import {
  computeDiscoveredHandlers,
  computeExtensionConfigStatus,
  computeHookRegistrations,
  findHandler,
  hookPath,
} from '#shared/runtime-sdk/index.ts';

const hooksApi = 'hooks.runtime.cluster.x-k8s.io/v1alpha1';

function extensionConfig(name: string, extra: Partial<ExtensionConfig> = {}): ExtensionConfig {
  return Object.freeze({
    apiVersion: 'runtime.cluster.x-k8s.io/v1beta2',
    kind: 'ExtensionConfig',
    metadata: { name, generation: 1 },
    spec: { clientConfig: { url: 'https://127.0.0.1:9443' } },
    ...extra,
  }) as ExtensionConfig;
}

describe('hookPath', () => {
  const cases = [
    { name: 'puts discovery at the hook path', hook: 'Discovery', handler: undefined, want: `/${hooksApi}/discovery` },
    {
      name: 'lower-cases the hook and the handler name',
      hook: 'GeneratePatches',
      handler: 'Generate-Patches',
      want: `/${hooksApi}/generatepatches/generate-patches`,
    },
  ] as const;
  for (const c of cases) test(c.name, () => assert.equal(hookPath(c.hook, c.handler), c.want));
});

describe('computeDiscoveredHandlers', () => {
  const config = extensionConfig('test-extension');
  test('defaults failurePolicy to Fail and timeoutSeconds to 10 and names handlers after the ExtensionConfig', () => {
    const handlers = computeDiscoveredHandlers(config, {
      status: 'Success',
      handlers: [
        { name: 'before-cluster-create', requestHook: { apiVersion: hooksApi, hook: 'BeforeClusterCreate' } },
        {
          name: 'generate-patches',
          requestHook: { apiVersion: hooksApi, hook: 'GeneratePatches' },
          timeoutSeconds: 5,
          failurePolicy: 'Ignore',
        },
      ],
    });
    assert.deepEqual(handlers, [
      {
        name: 'before-cluster-create.test-extension',
        requestHook: { apiVersion: hooksApi, hook: 'BeforeClusterCreate' },
        timeoutSeconds: 10,
        failurePolicy: 'Fail',
      },
      {
        name: 'generate-patches.test-extension',
        requestHook: { apiVersion: hooksApi, hook: 'GeneratePatches' },
        timeoutSeconds: 5,
        failurePolicy: 'Ignore',
      },
    ]);
  });

  const invalid = [
    {
      name: 'refuses two handlers with one name',
      handlers: [
        { name: 'a', requestHook: { apiVersion: hooksApi, hook: 'BeforeClusterCreate' } },
        { name: 'a', requestHook: { apiVersion: hooksApi, hook: 'BeforeClusterDelete' } },
      ],
      says: 'duplicate name for handler a found',
    },
    {
      name: 'refuses a name that is not a DNS-1123 label',
      handlers: [{ name: 'Not_A_Label', requestHook: { apiVersion: hooksApi, hook: 'BeforeClusterCreate' } }],
      says: 'handler name Not_A_Label is not valid',
    },
    {
      name: 'refuses a timeout above 30 seconds',
      handlers: [{ name: 'a', requestHook: { apiVersion: hooksApi, hook: 'GeneratePatches' }, timeoutSeconds: 31 }],
      says: 'timeoutSeconds 31 must be between 0 and 30',
    },
    {
      name: 'refuses an unknown failure policy',
      handlers: [{ name: 'a', requestHook: { apiVersion: hooksApi, hook: 'GeneratePatches' }, failurePolicy: 'Maybe' }],
      says: 'failurePolicy Maybe must equal "Ignore" or "Fail"',
    },
    {
      name: 'refuses a hook that is not in the catalog',
      handlers: [{ name: 'a', requestHook: { apiVersion: hooksApi, hook: 'BeforeLunch' } }],
      says: `requestHook ${hooksApi}/BeforeLunch is not in the Runtime SDK catalog`,
    },
  ];
  for (const c of invalid) {
    test(c.name, () => {
      assert.throws(
        () => computeDiscoveredHandlers(config, { status: 'Success', handlers: c.handlers }),
        (err: unknown) =>
          err instanceof ValidationError &&
          err.message.includes(c.says) &&
          err.objectName === 'test-extension' &&
          err.reason === 'DiscoveryFailed',
      );
    });
  }
});

describe('computeExtensionConfigStatus', () => {
  const handlers = [
    {
      name: 'a.ext',
      requestHook: { apiVersion: hooksApi, hook: 'BeforeClusterCreate' },
      timeoutSeconds: 10,
      failurePolicy: 'Fail' as const,
    },
  ];
  test('records the handlers and Discovered=True with both condition shapes', () => {
    const status = computeExtensionConfigStatus(extensionConfig('ext'), { ok: true, handlers }, 'T1');
    assert.deepEqual(status, {
      handlers,
      conditions: [
        {
          type: 'Discovered',
          status: 'True',
          observedGeneration: 1,
          lastTransitionTime: 'T1',
          reason: 'Discovered',
          message: '',
        },
      ],
      deprecated: { v1beta1: { conditions: [{ type: 'Discovered', status: 'True', lastTransitionTime: 'T1' }] } },
    });
  });
  test('keeps the handlers found before when discovery fails, and says why', () => {
    const before = extensionConfig('ext', { status: { handlers } });
    const status = computeExtensionConfigStatus(before, { ok: false, error: 'connection refused' }, 'T2');
    assert.deepEqual(status.handlers, handlers);
    assert.deepEqual(status.conditions[0], {
      type: 'Discovered',
      status: 'False',
      observedGeneration: 1,
      lastTransitionTime: 'T2',
      reason: 'NotDiscovered',
      message: 'Error in discovery: connection refused',
    });
  });
  test('keeps lastTransitionTime while the status does not change', () => {
    const first = computeExtensionConfigStatus(extensionConfig('ext'), { ok: true, handlers }, 'T1');
    const again = computeExtensionConfigStatus(
      extensionConfig('ext', { status: { handlers, conditions: first.conditions } }),
      { ok: true, handlers },
      'T9',
    );
    assert.equal(again.conditions[0]?.lastTransitionTime, 'T1');
  });
});

describe('computeHookRegistrations', () => {
  const discovered = (name: string, hook: string, extra: Partial<ExtensionConfig> = {}) =>
    extensionConfig(name, {
      ...extra,
      status: {
        handlers: [
          { name: `h.${name}`, requestHook: { apiVersion: hooksApi, hook }, timeoutSeconds: 10, failurePolicy: 'Fail' },
        ],
        conditions: [
          { type: 'Discovered', status: 'True', lastTransitionTime: 'T', reason: 'Discovered', message: '' },
        ],
      },
    });
  const configs = [
    discovered('zeta', 'BeforeClusterCreate'),
    discovered('alpha', 'BeforeClusterCreate'),
    discovered('other', 'BeforeClusterDelete'),
    discovered('prod-only', 'BeforeClusterCreate', {
      spec: { clientConfig: { url: 'https://x' }, namespaceSelector: { matchLabels: { env: 'prod' } } },
    }),
    extensionConfig('never-discovered', {
      status: {
        handlers: [{ name: 'h.never-discovered', requestHook: { apiVersion: hooksApi, hook: 'BeforeClusterCreate' } }],
      },
    }),
  ];
  test('returns the hook handlers of discovered extensions whose namespace selector matches, by name', () => {
    assert.deepEqual(
      computeHookRegistrations(configs, 'BeforeClusterCreate', { env: 'dev' }).map((r) => r.handler.name),
      ['h.alpha', 'h.zeta'],
    );
    assert.deepEqual(
      computeHookRegistrations(configs, 'BeforeClusterCreate', { env: 'prod' }).map((r) => r.handler.name),
      ['h.alpha', 'h.prod-only', 'h.zeta'],
    );
  });
  test('finds a handler by its full name only on a discovered extension', () => {
    assert.equal(findHandler(configs, 'h.other')?.extensionConfig.metadata.name, 'other');
    assert.equal(findHandler(configs, 'h.never-discovered'), undefined);
  });
});
