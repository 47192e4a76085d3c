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
import { App } from 'aws-cdk-lib';
import { synthesizeStack } from '#shared/pricing/synthesize-stack.ts';
import { emittedMetrics, healthMetricName, metricsNamespace } from '#shared/runtime/emitted-metrics.ts';
import { CapiServerlessStack } from '../../../infra/capi-serverless-stack.ts';

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

  test('the public variant: one alarm (Unhealthy + the webhooks’ Throttles, two billed metrics), tracing off, no secret, fan-out', () => {
    const d = readDeployedStack(templates.public);
    assert.equal(d.alarms, 2);
    assert.deepEqual(d.alarmedMetrics, [`${metricsNamespace}/${healthMetricName}`, 'AWS/Lambda/Throttles']);
    assert.equal(d.functions.length, controllers.length + 1);
    assert.ok(
      d.functions.every((f) => f.tracing !== 'Active'),
      'no function traces (the template leaves TracingConfig out: PassThrough)',
    );
    assert.deepEqual([d.secretsCreated, d.secretsReferenced], [0, 0]);
    assert.ok(d.functions.every((f) => f.secretsRead === 0));
    assert.equal(d.fanOutOnBus, true);
    assert.equal(d.interfaceEndpoints, 0);
    const webhooks = d.functions.filter((f) => f.role === 'webhooks');
    assert.deepEqual(
      webhooks.map((f) => f.memoryGb),
      [1],
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

  test('the private variant: one alarm (two billed metrics), tracing off, no secret and no interface endpoint, no fan-out', () => {
    const d = readDeployedStack(templates.private);
    assert.equal(d.alarms, 2);
    assert.ok(d.functions.every((f) => f.tracing !== 'Active'));
    assert.deepEqual([d.secretsCreated, d.secretsReferenced], [0, 0]);
    assert.ok(d.functions.every((f) => f.secretsRead === 0));
    assert.equal(d.fanOutOnBus, false);
    assert.equal(d.wakeUpSchedules, false, 'no Scheduler API from private subnets: the 5-minute ticks stay');
    assert.deepEqual(
      d.functions.filter((f) => f.role === 'controller').map((f) => f.scheduledPerMonth),
      controllers.map(() => 8_760),
    );
    assert.equal(d.interfaceEndpoints, 0, 'the token is read through the API server: no endpoint billed by the hour');
  });

  test('opt-ins are priced from the template: tracing, a Secrets Manager token and its endpoint', () => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const stack = new CapiServerlessStack(app, 'OptIns', {
      env: { account: '111111111111', region: 'us-east-1' },
      kubeconfigSecretName: 'mgmt-kubeconfig',
      webhookTokenSecretName: 'webhook-token',
      tracing: true,
    });
    const d = readDeployedStack(app.synth().getStackByName(stack.stackName).template as CfnTemplate);
    assert.ok(d.functions.every((f) => f.tracing === 'Active'));
    assert.deepEqual([d.secretsCreated, d.secretsReferenced], [0, 2], 'the kubeconfig and the token secret');
    assert.deepEqual(
      d.functions.filter((f) => f.role === 'webhooks').map((f) => f.secretsRead),
      [2],
    );
  });

  test('healthAlarm=false leaves the alarm out of the template, and so out of the optional alerting line', () => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const stack = new CapiServerlessStack(app, 'NoAlarm', {
      env: { account: '111111111111', region: 'us-east-1' },
      kubeconfigSecretName: 'mgmt-kubeconfig',
      healthAlarm: false,
    });
    const d = readDeployedStack(app.synth().getStackByName(stack.stackName).template as CfnTemplate);
    assert.deepEqual([d.alarms, d.alarmedMetrics, d.unpriced], [0, [], []]);
    assert.equal(stack.healthAlarm, undefined);
  });

  test("the controllers' memory sizes are read per function: topology and addons at the measured choice", () => {
    const memory = Object.fromEntries(
      readDeployedStack(templates.public).functions.map((f) => [f.name, f.memoryGb * 1024]),
    );
    assert.deepEqual(memory, { topology: 384, addons: 384, providers: 512, rollout: 512, webhooks: 1024 });
  });

  test('a metric-math alarm is billed per metric it reads', () => {
    const grown: CfnTemplate = {
      Resources: {
        ...templates.public.Resources,
        Math: {
          Type: 'AWS::CloudWatch::Alarm',
          Properties: {
            Metrics: [
              { Id: 'a', MetricStat: {} },
              { Id: 'b', MetricStat: {} },
              { Id: 'e', Expression: 'a+b' },
            ],
          },
        },
      },
    };
    // NOTE: the template's own HealthAlarm reads two metrics (Unhealthy and the webhooks' Throttles).
    assert.equal(readDeployedStack(grown).alarms, 2 + 2);
  });

  test('every custom metric an alarm watches is one the functions declare (so it is priced)', () => {
    for (const template of Object.values(templates))
      for (const m of readDeployedStack(template).alarmedMetrics.filter((m) => !m.startsWith('AWS/'))) {
        const [namespace, name] = m.split('/');
        assert.equal(namespace, metricsNamespace);
        assert.ok((name ?? '') in emittedMetrics, m);
      }
  });

  test('an interface endpoint is counted once per zone (subnet) it sits in', () => {
    const zones = (subnets: number): CfnTemplate => ({
      Resources: {
        Endpoint: {
          Type: 'AWS::EC2::VPCEndpoint',
          Properties: {
            VpcEndpointType: 'Interface',
            SubnetIds: Array.from({ length: subnets }, (_, i) => `subnet-${i}`),
          },
        },
        Gateway: { Type: 'AWS::EC2::VPCEndpoint', Properties: { VpcEndpointType: 'Gateway' } },
      },
    });
    assert.equal(readDeployedStack(zones(2)).interfaceEndpoints, 2);
    assert.equal(readDeployedStack(zones(3)).interfaceEndpoints, 3);
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
    // NOTE: `Unhealthy` counts failed passes too.
    const passErrorMetrics = Object.values(emittedMetrics).filter(
      (m) => m.occursOn === 'pass error' || m.occursOn === 'health finding',
    ).length;
    // NOTE: with errors every hour each pass-error metric is billed the whole month; the rejected-event one is not.
    assert.ok(
      Math.abs((metricsLine(failing) ?? 0) - passErrorMetrics * awsPrices.cloudWatchCustomMetricPerMonth) < 1e-9,
    );
    assert.ok(passErrorMetrics < Object.keys(emittedMetrics).length);
  });
});
