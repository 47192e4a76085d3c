// The App the infra tests synthesize in: cdk.json's context (the feature flags `npx cdk synth` runs with) and no
// esbuild (an empty bundling-stacks list skips bundling; `npx cdk synth` bundles for real).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';

const cdkJson = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', '..', 'cdk.json'), 'utf8')) as {
  context: Record<string, unknown>;
};

/** cdk.json's context, as `npx cdk synth` reads it. */
export const cdkJsonContext: Readonly<Record<string, unknown>> = cdkJson.context;

/**
 * An App with cdk.json's context plus `context`, without bundling.
 *
 * @example
 * const stack = new CapiServerlessStack(createTestApp(), 'Test', { kubeconfigSecretName: 'mgmt-kubeconfig' });
 */
export function createTestApp(context: Readonly<Record<string, unknown>> = {}): App {
  return new App({ context: { ...cdkJsonContext, 'aws:cdk:bundling-stacks': [], ...context } });
}
