// The webhook manifests rendered for a URL, and the construct the stack adds (synthesized without bundling).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { loadWebhookConfigurations } from '../../../../infra/webhooks/webhook-manifests.ts';
import { WebhooksFunction } from '../../../../infra/webhooks/webhooks-function.ts';

type Webhook = {
  name: string;
  failurePolicy: string;
  timeoutSeconds: number;
  sideEffects: string;
  admissionReviewVersions: string[];
  clientConfig: { url: string; caBundle?: string };
  rules: { resources: string[]; operations: string[] }[];
};

describe('loadWebhookConfigurations', () => {
  const [validating, mutating] = loadWebhookConfigurations({ baseUrl: 'https://abc.example/tok/', caBundle: 'Q0E=' });
  const hooks = (o: unknown) => (o as { webhooks: Webhook[] }).webhooks;

  test('renders a validating and a mutating configuration', () => {
    assert.equal(validating?.kind, 'ValidatingWebhookConfiguration');
    assert.equal(mutating?.kind, 'MutatingWebhookConfiguration');
  });

  test('points every webhook at its mode with the CA bundle, v1 reviews, no side effects and a 10s timeout', () => {
    for (const [object, mode] of [
      [validating, 'validate'],
      [mutating, 'mutate'],
    ] as const) {
      for (const hook of hooks(object)) {
        assert.equal(hook.clientConfig.url, `https://abc.example/tok/${mode}`);
        assert.equal(hook.clientConfig.caBundle, 'Q0E=');
        assert.deepEqual(hook.admissionReviewVersions, ['v1']);
        assert.equal(hook.sideEffects, 'None');
        assert.equal(hook.timeoutSeconds, 10);
      }
    }
  });

  const policies: [string, string, string][] = [
    ['validation.cluster.cluster.x-k8s.io', 'Fail', 'validating'],
    ['validation.clusterclass.cluster.x-k8s.io', 'Fail', 'validating'],
    ['validation.clusterresourceset.addons.cluster.x-k8s.io', 'Fail', 'validating'],
    ['validation.clusterresourcesetbinding.addons.cluster.x-k8s.io', 'Fail', 'validating'],
    ['validation.providers.operator.cluster.x-k8s.io', 'Ignore', 'validating'],
    ['validation.extensionconfig.runtime.cluster.x-k8s.io', 'Fail', 'validating'],
    ['default.extensionconfig.runtime.cluster.x-k8s.io', 'Ignore', 'mutating'],
    ['default.cluster.cluster.x-k8s.io', 'Fail', 'mutating'],
    ['default.clusterclass.cluster.x-k8s.io', 'Ignore', 'mutating'],
    ['default.clusterresourceset.addons.cluster.x-k8s.io', 'Ignore', 'mutating'],
  ];
  for (const [name, policy, which] of policies) {
    test(`${name} fails ${policy === 'Fail' ? 'closed' : 'open'}`, () => {
      const hook = hooks(which === 'validating' ? validating : mutating).find((h) => h.name === name);
      assert.equal(hook?.failurePolicy, policy);
    });
  }

  test('matches DELETE only for ClusterClasses, and never a status subresource', () => {
    for (const hook of [...hooks(validating), ...hooks(mutating)]) {
      for (const rule of hook.rules) {
        assert.ok(rule.resources.every((r) => !r.includes('/')));
        assert.equal(rule.operations.includes('DELETE'), hook.name === 'validation.clusterclass.cluster.x-k8s.io');
      }
    }
  });

  test('refuses a base URL with a query', () => {
    assert.throws(() => loadWebhookConfigurations({ baseUrl: 'https://abc.example/?token=x' }), /without query/);
  });
});

describe('WebhooksFunction', () => {
  // NOTE: an empty bundling-stacks list skips esbuild here; `npx cdk synth` bundles for real.
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, 'Test');
  new WebhooksFunction(stack, 'Webhooks');
  const template = Template.fromStack(stack);

  test('a public Function URL in front of an arm64 function that times out before the webhooks do', () => {
    template.hasResourceProperties('AWS::Lambda::Url', { AuthType: 'NONE' });
    template.hasResourceProperties('AWS::Lambda::Function', {
      Architectures: ['arm64'],
      Timeout: 9,
      Environment: { Variables: Match.objectLike({ WEBHOOK_TOKEN_KUBE_SECRET: Match.anyValue() }) },
    });
  });
});
