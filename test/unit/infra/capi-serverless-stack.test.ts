// The synthesized CloudFormation template: the table's settings, arm64 functions, routing patterns, tick
// schedules whose input parses as a tick event, dead-letter queues, alarms and least-privilege IAM.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { CapiServerlessStack, tableActions } from '../../../infra/capi-serverless-stack.ts';
import { kubeconfigSecretExtensionPort } from '#shared/runtime/config.ts';
import { parseRuntimeEvent } from '#shared/runtime/events.ts';

// NOTE: an empty bundling-stacks list skips esbuild here; `npx cdk synth` bundles for real.
const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
const stack = new CapiServerlessStack(app, 'Test', { kubeconfigSecretName: 'mgmt-kubeconfig', tickMinutes: 5 });
const template = Template.fromStack(stack);

type Resource = { Properties: Record<string, unknown> };
const resources = (type: string) => Object.values(template.findResources(type)) as Resource[];

describe('CapiServerlessStack', () => {
  test('the state table is on-demand with pk/sk keys, TTL on expiresAt and point-in-time recovery', () => {
    template.resourceCountIs('AWS::DynamoDB::Table', 1);
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
    });
  });

  test('the state table has the keys-only due index the ticks query', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      GlobalSecondaryIndexes: [
        {
          IndexName: 'due',
          KeySchema: [
            { AttributeName: 'dueShard', KeyType: 'HASH' },
            { AttributeName: 'dueAtMs', KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'KEYS_ONLY' },
        },
      ],
    });
  });

  test('the three controller functions run on arm64 with the table name and the kubeconfig secret', () => {
    const fns = resources('AWS::Lambda::Function').filter(
      (f) =>
        f.Properties['Handler'] === 'index.handler' &&
        (f.Properties['Environment'] as { Variables: Record<string, unknown> }).Variables['POWERTOOLS_SERVICE_NAME'] !==
          'capi-serverless-webhooks',
    );
    assert.equal(fns.length, 3);
    for (const fn of fns) {
      assert.deepEqual(fn.Properties['Architectures'], ['arm64']);
      assert.match(String(fn.Properties['Runtime']), /^nodejs(2[0-9])\.x$/);
      const env = (fn.Properties['Environment'] as { Variables: Record<string, unknown> }).Variables;
      assert.ok(env['TABLE_NAME'], 'TABLE_NAME is set');
      assert.equal(env['KUBECONFIG_SECRET_ARN'], 'mgmt-kubeconfig');
      assert.ok(fn.Properties['DeadLetterConfig'], 'failed async invocations go to a DLQ');
      assert.deepEqual(fn.Properties['TracingConfig'], { Mode: 'Active' }, 'Powertools Tracer segments reach X-Ray');
      assert.equal(env['POWERTOOLS_METRICS_NAMESPACE'], 'CapiServerless');
    }
  });

  test('with a kubeconfig secret, every function reads it through the Parameters and Secrets extension', () => {
    const fns = resources('AWS::Lambda::Function').filter((f) => f.Properties['Handler'] === 'index.handler');
    assert.equal(fns.length, 4, 'three controllers and the webhooks');
    for (const fn of fns) {
      // NOTE: a region-agnostic stack picks the layer ARN from a per-region mapping at deploy time.
      const layers = fn.Properties['Layers'] as [{ 'Fn::FindInMap': [string, unknown, string] }];
      const [map, , key] = layers[0]['Fn::FindInMap'];
      assert.match(key, /arm64$/);
      const arn = JSON.stringify((template.toJSON() as { Mappings: Record<string, unknown> }).Mappings[map]);
      assert.match(arn, /layer:AWS-Parameters-and-Secrets-Lambda-Extension-Arm64:/);
      const env = (fn.Properties['Environment'] as { Variables: Record<string, unknown> }).Variables;
      assert.equal(env['PARAMETERS_SECRETS_EXTENSION_HTTP_PORT'], String(kubeconfigSecretExtensionPort));
      assert.equal(env['PARAMETERS_SECRETS_EXTENSION_CACHE_ENABLED'], 'true');
      assert.ok(env['KUBECONFIG_SECRET_ARN'], 'the secret to read is named');
    }
    const secretReads = resources('AWS::IAM::Policy')
      .flatMap(
        (p) =>
          (p.Properties['PolicyDocument'] as { Statement: { Action: string | string[]; Resource: unknown }[] })
            .Statement,
      )
      .filter((st) => [st.Action].flat().includes('secretsmanager:GetSecretValue'));
    assert.equal(secretReads.length, 4);
    for (const st of secretReads) assert.match(JSON.stringify(st.Resource), /:secret:mgmt-kubeconfig-\?\?\?\?\?\?/);
  });

  test('the extension layer is the arm64 build for the stack’s region', () => {
    const regional = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const withRegion = new CapiServerlessStack(regional, 'Regional', {
      env: { account: '111111111111', region: 'eu-west-1' },
      kubeconfigSecretName: 'mgmt-kubeconfig',
    });
    const layers = Object.values(Template.fromStack(withRegion).findResources('AWS::Lambda::Function')).map((f) =>
      JSON.stringify((f as Resource).Properties['Layers']),
    );
    assert.ok(layers.length >= 3);
    for (const l of layers) {
      assert.match(
        l,
        /^\["arn:aws:lambda:eu-west-1:\d{12}:layer:AWS-Parameters-and-Secrets-Lambda-Extension-Arm64:\d+"\]$/,
      );
    }
  });

  test('without a kubeconfig secret no function carries the extension', () => {
    const plain = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const fns = Object.values(
      Template.fromStack(new CapiServerlessStack(plain, 'Plain')).findResources('AWS::Lambda::Function'),
    ) as Resource[];
    assert.ok(fns.length >= 4);
    for (const fn of fns) assert.equal(fn.Properties['Layers'], undefined);
  });

  test('the admission webhooks function is served by a Function URL and never retried', () => {
    const fns = resources('AWS::Lambda::Function').filter(
      (f) =>
        (f.Properties['Environment'] as { Variables: Record<string, unknown> } | undefined)?.Variables[
          'POWERTOOLS_SERVICE_NAME'
        ] === 'capi-serverless-webhooks',
    );
    assert.equal(fns.length, 1);
    assert.deepEqual(fns[0]!.Properties['Architectures'], ['arm64']);
    template.resourceCountIs('AWS::Lambda::Url', 1);
    template.hasResourceProperties('AWS::Lambda::Url', { AuthType: 'NONE' });
  });

  const patterns = [
    {
      name: 'routes Clusters, ClusterClasses and every *Template kind to topology',
      kinds: ['Cluster', 'ClusterClass', 'ExtensionConfig', { suffix: 'Template' }],
    },
    {
      name: 'routes ClusterResourceSets and their ConfigMaps and Secrets to addons',
      kinds: ['Cluster', 'ClusterResourceSet', 'ClusterResourceSetBinding', 'ConfigMap', 'Secret'],
    },
    {
      name: 'routes the provider kinds to providers',
      kinds: Match.arrayWith(['CoreProvider', 'InfrastructureProvider', 'ConfigMap']),
    },
  ];
  for (const p of patterns) {
    test(p.name, () => {
      template.hasResourceProperties('AWS::Events::Rule', {
        EventPattern: {
          source: ['capi-serverless.forwarder'],
          'detail-type': ['Object Changed'],
          detail: { kind: p.kinds },
        },
        Targets: [Match.objectLike({ DeadLetterConfig: Match.anyValue(), RetryPolicy: Match.anyValue() })],
      });
    });
  }

  test('each controller has a tick schedule whose input is a valid tick event for it', () => {
    const schedules = resources('AWS::Scheduler::Schedule');
    assert.equal(schedules.length, 3);
    const controllers = schedules.map((s) => {
      assert.equal(s.Properties['ScheduleExpression'], 'rate(5 minutes)');
      const input = (s.Properties['Target'] as { Input: string }).Input;
      const event = parseRuntimeEvent(JSON.parse(input.replaceAll('<aws.scheduler.', '<')));
      assert.equal(event['detail-type'], 'Tick');
      return event['detail-type'] === 'Tick' ? event.detail.controller : '';
    });
    assert.deepEqual(controllers.sort(), ['addons', 'providers', 'topology']);
  });

  test('dead-letter queues and alarms on errors and DLQ depth exist for every function', () => {
    template.resourceCountIs('AWS::SQS::Queue', 3);
    const alarms = resources('AWS::CloudWatch::Alarm');
    assert.equal(alarms.filter((a) => a.Properties['MetricName'] === 'Errors').length, 3);
    assert.equal(alarms.filter((a) => a.Properties['MetricName'] === 'ApproximateNumberOfMessagesVisible').length, 3);
  });

  test('function roles get exactly the table actions a pass and a tick use, on the table and its indexes only', () => {
    const statements = resources('AWS::IAM::Policy').flatMap(
      (p) =>
        (p.Properties['PolicyDocument'] as { Statement: { Action: string | string[]; Resource: unknown }[] }).Statement,
    );
    const dynamo = statements.filter((s) => [s.Action].flat().some((a) => a.startsWith('dynamodb:')));
    assert.equal(dynamo.length, 3);
    for (const s of dynamo) {
      assert.deepEqual([s.Action].flat().sort(), [...tableActions].sort());
      assert.ok(!JSON.stringify(s.Resource).includes('"*"'), 'no wildcard resource');
      assert.ok(JSON.stringify(s.Resource).includes('/index/*'), 'the due index is queryable');
    }
    assert.ok(!statements.some((s) => [s.Action].flat().includes('*')), 'no wildcard action');
  });

  test('the forwarder policy only puts events from the forwarder source on the bus', () => {
    template.hasResourceProperties('AWS::IAM::ManagedPolicy', {
      PolicyDocument: {
        Statement: [
          {
            Action: 'events:PutEvents',
            Effect: 'Allow',
            Resource: { 'Fn::GetAtt': [Match.stringLikeRegexp('^Bus'), 'Arn'] },
            Condition: { StringEquals: { 'events:source': 'capi-serverless.forwarder' } },
          },
        ],
      },
    });
  });
});
