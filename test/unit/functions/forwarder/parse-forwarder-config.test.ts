import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ForwarderConfigError, parseForwarderConfig } from '#functions/forwarder/parse-forwarder-config.ts';

const base = Object.freeze({ EVENT_BUS_NAME: 'capi-serverless', AWS_REGION: 'eu-west-1' });

describe('parseForwarderConfig', () => {
  test('defaults: port 8080, 500 ms window, ClusterResourceSet Secrets only, wedged after 5 minutes, heartbeat in capi-serverless-system', () => {
    assert.deepEqual(parseForwarderConfig(base), {
      eventBusName: 'capi-serverless',
      region: 'eu-west-1',
      endpoint: undefined,
      coalesceMs: 500,
      secrets: { scope: 'resource-set' },
      httpPort: 8080,
      wedgedAfterMs: 300_000,
      podNamespace: 'capi-serverless-system',
      podName: 'capi-serverless-forwarder',
    });
  });

  test('reads every setting', () => {
    const config = parseForwarderConfig({
      ...base,
      AWS_ENDPOINT_URL_EVENTBRIDGE: 'http://127.0.0.1:4010',
      COALESCE_MS: '1500',
      SECRET_SCOPE: 'all',
      SECRET_LABEL_SELECTOR: 'crs=true',
      FORWARDER_HTTP_PORT: '9090',
      FORWARDER_WEDGED_AFTER_SECONDS: '60',
    });
    assert.equal(config.endpoint, 'http://127.0.0.1:4010');
    assert.equal(config.coalesceMs, 1500);
    assert.deepEqual(config.secrets, { scope: 'all', labelSelector: 'crs=true' });
    assert.equal(config.httpPort, 9090);
    assert.equal(config.wedgedAfterMs, 60_000);
  });

  test('takes AWS_DEFAULT_REGION when AWS_REGION is unset', () => {
    assert.equal(parseForwarderConfig({ EVENT_BUS_NAME: 'b', AWS_DEFAULT_REGION: 'us-west-2' }).region, 'us-west-2');
  });

  const bad: [string, Record<string, string>, string, RegExp][] = [
    ['names a missing bus', { AWS_REGION: 'eu-west-1' }, 'EVENT_BUS_NAME', /^EVENT_BUS_NAME must be set$/],
    ['names a missing region', { EVENT_BUS_NAME: 'b' }, 'AWS_REGION', /AWS_REGION or AWS_DEFAULT_REGION must be set/],
    ['refuses a window above 2 s', { ...base, COALESCE_MS: '5000' }, 'COALESCE_MS', /from 0 to 2000, got "5000"/],
    ['refuses a port that is not a number', { ...base, FORWARDER_HTTP_PORT: 'http' }, 'FORWARDER_HTTP_PORT', /"http"/],
    ['refuses an unknown Secret scope', { ...base, SECRET_SCOPE: 'some' }, 'SECRET_SCOPE', /resource-set or all/],
  ];
  for (const [name, env, variable, message] of bad)
    test(name, () => {
      assert.throws(
        () => parseForwarderConfig(env),
        (err: unknown) =>
          err instanceof ForwarderConfigError && err.fieldPath === variable && message.test(err.message),
      );
    });
});
