import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isProviderPaused, providerPausedAnnotation } from '#shared/providers/desired/is-provider-paused.ts';

describe('isProviderPaused', () => {
  const table: [string, { annotations?: Record<string, string>; paused?: boolean }, boolean][] = [
    ['a provider with neither the field nor the annotation runs', {}, false],
    ['spec.paused true pauses (the proposal, CRDs that have the field)', { paused: true }, true],
    ['spec.paused false does not pause', { paused: false }, false],
    [
      'the annotation pauses whatever its value (the operator CRDs have no spec.paused)',
      { annotations: { [providerPausedAnnotation]: '' } },
      true,
    ],
    [
      'the annotation with value "false" still pauses, as Cluster API reads its pause annotation',
      { annotations: { [providerPausedAnnotation]: 'false' } },
      true,
    ],
    ['other annotations do not pause', { annotations: { 'example.com/paused': 'true' } }, false],
  ];
  for (const [name, { annotations, paused }, want] of table)
    test(name, () => {
      const provider = Object.freeze({
        metadata: { name: 'p', namespace: 'ns', ...(annotations ? { annotations } : {}) },
        spec: paused === undefined ? {} : { paused },
      });
      assert.equal(isProviderPaused(provider), want);
    });
});
