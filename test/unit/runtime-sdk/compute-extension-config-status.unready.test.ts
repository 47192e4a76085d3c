import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ExtensionConfig } from '#shared/api/runtime-extension.ts';
import { computeExtensionConfigUnready } from '#shared/runtime-sdk/index.ts';

const discovered = (status: string, observedGeneration?: number) => ({
  type: 'Discovered',
  status,
  lastTransitionTime: '2026-11-27T00:00:00Z',
  reason: 'Discovered',
  message: '',
  ...(observedGeneration === undefined ? {} : { observedGeneration }),
});

function extensionConfig(caBundle: string, generation: number, conditions: unknown[]): ExtensionConfig {
  return Object.freeze({
    apiVersion: 'runtime.cluster.x-k8s.io/v1beta2',
    kind: 'ExtensionConfig',
    metadata: { name: 'ext', generation },
    spec: { clientConfig: { url: 'https://ext', caBundle } },
    status: { conditions },
  }) as unknown as ExtensionConfig;
}

describe('computeExtensionConfigUnready (upstream discovers, capi-serverless reads)', () => {
  const cases: [string, ExtensionConfig, RegExp | undefined][] = [
    [
      'usable when Discovered is True at the current generation',
      extensionConfig('Y2E=', 2, [discovered('True', 2)]),
      undefined,
    ],
    ['not without a CA bundle', extensionConfig('', 2, [discovered('True', 2)]), /caBundle is not set/],
    ['not before upstream set the condition', extensionConfig('Y2E=', 1, []), /not yet set/],
    ['not when discovery failed', extensionConfig('Y2E=', 1, [discovered('False', 1)]), /must have status: True/],
    [
      'not when discovered at an older generation',
      extensionConfig('Y2E=', 3, [discovered('True', 2)]),
      /observedGeneration: 3/,
    ],
  ];
  for (const [name, ec, want] of cases) {
    test(name, () => {
      const got = computeExtensionConfigUnready(ec);
      if (want === undefined) assert.equal(got, undefined);
      else assert.match(got ?? '', want);
    });
  }
});
