// Every function is built one way (infra/function-bundling.ts): an esbuild target that is the runtime's Node major,
// and stack traces mapped back to the sources with --enable-source-maps.
import assert from 'node:assert/strict';
import { controllers } from '#shared/checkpoint/table.ts';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { Template } from 'aws-cdk-lib/assertions';
import { CapiServerlessStack } from '../../../infra/capi-serverless-stack.ts';
import { functionBundling, functionRuntime } from '../../../infra/function-bundling.ts';
import { createTestApp } from '../../support/builders/test-app.ts';

type Resource = { Properties: Record<string, unknown> };
const infraDir = join(import.meta.dirname, '..', '..', '..', 'infra');

describe('function bundling', () => {
  const template = Template.fromStack(
    new CapiServerlessStack(createTestApp(), 'Bundled', { kubeconfigSecretName: 'mgmt-kubeconfig' }),
  );
  const fns = (Object.values(template.findResources('AWS::Lambda::Function')) as Resource[]).filter(
    (f) => f.Properties['Handler'] === 'index.handler',
  );

  test('the esbuild target is the Node major of the runtime', () => {
    assert.equal(functionRuntime.name, 'nodejs22.x');
    assert.equal(functionBundling.target, `node${/^nodejs(\d+)\.x$/.exec(functionRuntime.name)?.[1] ?? ''}`);
    assert.equal(functionBundling.sourceMap, true);
  });

  test('every function runs on that runtime with source maps applied to stack traces', () => {
    assert.equal(fns.length, controllers.length + 1, 'the controllers and the webhooks');
    for (const fn of fns) {
      assert.equal(fn.Properties['Runtime'], functionRuntime.name);
      const env = (fn.Properties['Environment'] as { Variables: Record<string, unknown> }).Variables;
      assert.equal(env['NODE_OPTIONS'], '--enable-source-maps', String(env['POWERTOOLS_SERVICE_NAME']));
    }
  });

  test("every function logs JSON with Lambda's own lines at WARN: no START/END/REPORT per invocation", () => {
    for (const fn of fns) {
      const logging = fn.Properties['LoggingConfig'] as Record<string, unknown> | undefined;
      const env = (fn.Properties['Environment'] as { Variables: Record<string, unknown> }).Variables;
      assert.equal(logging?.['LogFormat'], 'JSON', String(env['POWERTOOLS_SERVICE_NAME']));
      assert.equal(logging?.['SystemLogLevel'], 'WARN', String(env['POWERTOOLS_SERVICE_NAME']));
    }
  });

  test('one bundling configuration: no other file in infra/ sets esbuild options', () => {
    const files = readdirSync(infraDir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    const withBundling = files.filter((f) =>
      /\bbundling:\s*\{|\btarget:\s*'node/.test(readFileSync(join(infraDir, f), 'utf8')),
    );
    assert.deepEqual(withBundling, ['function-bundling.ts']);
  });
});
