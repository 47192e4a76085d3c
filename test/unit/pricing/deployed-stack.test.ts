// The cost model prices what is deployed: both variants' synthesized templates hold no resource type it has no price
// (or stated reason to be free) for, the facts it prices are read from the template, and every metric the functions
// may publish has a price.
import assert from 'node:assert/strict';
import { controllers } from '#shared/checkpoint/table.ts';
import { describe, test } from 'node:test';
import {
  awsPrices,
  computeMarginalCost,
  defaultChangeMix,
  measuredProfile,
  readDeployedStack,
  resourcePricing,
  type CfnTemplate,
  type MeasuredProfile,
} from '#shared/pricing/index.ts';
import { synthesizeStack } from '#shared/pricing/synthesize-stack.ts';
import { emittedMetrics } from '#shared/runtime/emitted-metrics.ts';

const templates = { public: synthesizeStack('public'), private: synthesizeStack('private') };

describe('the deployed stack, as priced', () => {
  for (const [variant, template] of Object.entries(templates))
    test(`the ${variant} template has no resource type the model does not price or call free with a reason`, () => {
      assert.deepEqual(readDeployedStack(template).unpriced, []);
      for (const [type, how] of Object.entries(resourcePricing))
        assert.ok('priced' in how ? how.priced : how.free, `${type} says how it is priced or why it is free`);
    });

  test('a resource type the model does not know is reported unpriced', () => {
    const grown: CfnTemplate = {
      Resources: { ...templates.public.Resources, Key: { Type: 'AWS::KMS::Key', Properties: {} } },
    };
    assert.deepEqual(readDeployedStack(grown).unpriced, ['AWS::KMS::Key']);
  });

  test('the public variant: two alarms a controller and three more, tracing on every function, a created and a referenced secret, fan-out', () => {
    const d = readDeployedStack(templates.public);
    assert.equal(d.alarms, 2 * controllers.length + 3);
    assert.equal(d.functions.length, controllers.length + 1);
    assert.deepEqual(
      d.functions.map((f) => f.tracing),
      d.functions.map(() => 'Active'),
    );
    assert.deepEqual([d.secretsCreated, d.secretsReferenced], [1, 1]);
    assert.equal(d.fanOutOnBus, true);
    const webhooks = d.functions.filter((f) => f.role === 'webhooks');
    assert.deepEqual(
      webhooks.map((f) => [f.memoryGb, f.secretsRead]),
      [[1, 2]],
    );
    assert.deepEqual(d.table.globalSecondaryIndexes, ['due']);
    assert.equal(d.table.pointInTimeRecovery, true);
    for (const f of d.functions) assert.equal(f.logRetentionDays, 30);
    // NOTE: an hourly sweep per controller (730 h a month); requeued passes get one-time schedules instead of ticks.
    assert.deepEqual(
      d.functions.filter((f) => f.role === 'controller').map((f) => f.scheduledPerMonth),
      controllers.map(() => 730),
    );
    assert.equal(d.wakeUpSchedules, true);
  });

  test('the private variant: tracing off, no kubeconfig secret, the token read at run time through the store endpoint, no fan-out', () => {
    const d = readDeployedStack(templates.private);
    assert.ok(d.functions.every((f) => f.tracing !== 'Active'));
    assert.deepEqual([d.secretsCreated, d.secretsReferenced], [1, 0]);
    assert.deepEqual(
      d.functions.filter((f) => f.secretsRead > 0).map((f) => f.role),
      ['webhooks'],
    );
    assert.equal(d.fanOutOnBus, false);
    assert.equal(d.wakeUpSchedules, false, 'no Scheduler API from private subnets: the 5-minute ticks stay');
    assert.deepEqual(
      d.functions.filter((f) => f.role === 'controller').map((f) => f.scheduledPerMonth),
      controllers.map(() => 8_760),
    );
    assert.ok(
      d.interfaceEndpoints > 0,
      'the token store is reached through an interface endpoint, priced per zone-hour',
    );
  });

  test('an interface endpoint is counted once per zone (subnet) it sits in', () => {
    const endpoints = Object.values(templates.private.Resources).filter(
      (r) => r.Type === 'AWS::EC2::VPCEndpoint' && r.Properties?.['VpcEndpointType'] === 'Interface',
    );
    const subnets = endpoints.map((r) => (r.Properties?.['SubnetIds'] as unknown[] | undefined)?.length ?? 0);
    assert.ok(
      subnets.some((n) => n > 1),
      'the private variant puts its endpoint in several zones',
    );
    assert.equal(
      readDeployedStack(templates.private).interfaceEndpoints,
      subnets.reduce((a, b) => a + b, 0),
    );
  });

  test('every metric the functions may publish is priced: one metric-hour per occurrence, at most every hour', () => {
    const deployed = readDeployedStack(templates.public);
    const failing: MeasuredProfile = {
      ...measuredProfile,
      changes: Object.fromEntries(
        Object.entries(measuredProfile.changes).map(([t, f]) => [
          t,
          f === 'not measured' ? f : { ...f, passErrors: 1 },
        ]),
      ) as MeasuredProfile['changes'],
    };
    const metricsLine = (profile: MeasuredProfile) =>
      computeMarginalCost({
        deployed,
        profile,
        clusters: 10_000,
        mix: defaultChangeMix,
        userType: 'operator',
        forwarderRequests: { cpu: 0.02, memoryMiB: 64 },
        prices: awsPrices,
      }).lines.find((l) => l.item === 'CloudWatch custom metrics')?.usd;
    const passErrorMetrics = Object.values(emittedMetrics).filter((m) => m.occursOn === 'pass error').length;
    // NOTE: with errors every hour each pass-error metric is billed the whole month; the rejected-event one is not.
    assert.ok(
      Math.abs((metricsLine(failing) ?? 0) - passErrorMetrics * awsPrices.cloudWatchCustomMetricPerMonth) < 1e-9,
    );
    assert.ok(passErrorMetrics < Object.keys(emittedMetrics).length);
  });
});
