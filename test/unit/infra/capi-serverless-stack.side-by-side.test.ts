// Two installs in one account and region (staging beside production): every physical name the templates set comes
// from the stack, so nothing clashes, and the stack's name is what the app is told.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createTestApp } from '../../support/builders/test-app.ts';
import { Template } from 'aws-cdk-lib/assertions';
import { CapiServerlessStack } from '../../../infra/capi-serverless-stack.ts';

type Resource = { Type: string; Properties?: Record<string, unknown> };

/** The property holding each resource type's physical name (unset: CloudFormation generates a unique one). */
const nameProperties: Readonly<Record<string, string>> = {
  'AWS::Events::EventBus': 'Name',
  'AWS::Events::Rule': 'Name',
  'AWS::DynamoDB::Table': 'TableName',
  'AWS::Lambda::Function': 'FunctionName',
  'AWS::Logs::LogGroup': 'LogGroupName',
  'AWS::CloudWatch::Alarm': 'AlarmName',
  'AWS::IAM::Role': 'RoleName',
  'AWS::IAM::ManagedPolicy': 'ManagedPolicyName',
  'AWS::SNS::Topic': 'TopicName',
  'AWS::SQS::Queue': 'QueueName',
  'AWS::Scheduler::Schedule': 'Name',
  'AWS::SecretsManager::Secret': 'Name',
  'AWS::SSM::Parameter': 'Name',
};

function physicalNames(template: Template): string[] {
  const resources = (template.toJSON() as { Resources: Record<string, Resource> }).Resources;
  return Object.values(resources).flatMap((r) => {
    const key = nameProperties[r.Type];
    const name = key === undefined ? undefined : r.Properties?.[key];
    return name === undefined ? [] : [`${r.Type} ${JSON.stringify(name)}`];
  });
}

describe('two stacks side by side in one account and region', () => {
  const app = createTestApp();
  const env = { account: '111111111111', region: 'eu-west-1' };
  const props = { env, kubeconfigSecretName: 'mgmt-kubeconfig' };
  // NOTE: both stacks exist before the first synth (the app synthesizes once).
  const stacks = [
    new CapiServerlessStack(app, 'Staging', { ...props, stackName: 'capi-staging' }),
    new CapiServerlessStack(app, 'Production', { ...props, stackName: 'capi-production' }),
  ];
  const [staging, production] = stacks.map((s) => Template.fromStack(s)) as [Template, Template];

  test('no physical name is set in both templates', () => {
    const clashes = physicalNames(staging).filter((n) => physicalNames(production).includes(n));
    assert.deepEqual(clashes, []);
  });

  test('the event bus is named after its stack', () => {
    staging.hasResourceProperties('AWS::Events::EventBus', { Name: 'capi-staging' });
    production.hasResourceProperties('AWS::Events::EventBus', { Name: 'capi-production' });
  });

  test('no resource is named with the fixed product name', () => {
    for (const t of [staging, production])
      for (const name of physicalNames(t)) assert.doesNotMatch(name, /"capi-serverless"/);
  });

  test('no output is exported (an export name is unique in the account and region)', () => {
    for (const t of [staging, production]) {
      const outputs = (t.toJSON() as { Outputs: Record<string, { Export?: unknown }> }).Outputs;
      assert.deepEqual(
        Object.entries(outputs).filter(([, o]) => o.Export !== undefined),
        [],
      );
    }
  });
});

describe('two EKS installs side by side, each for its own management cluster', () => {
  const app = createTestApp();
  const env = { account: '111111111111', region: 'eu-west-1' };
  const eksCluster = (name: string) => ({
    name,
    endpoint: `https://${name.toUpperCase()}.gr7.eu-west-1.eks.amazonaws.com`,
    caData: 'Y2E=',
  });
  const stacks = [
    new CapiServerlessStack(app, 'Staging', { env, stackName: 'capi-staging', eksCluster: eksCluster('mgmt-staging') }),
    new CapiServerlessStack(app, 'Production', { env, stackName: 'capi-prod', eksCluster: eksCluster('mgmt-prod') }),
  ];
  const [staging, production] = stacks.map((s) => Template.fromStack(s)) as [Template, Template];

  test('no physical name is set in both templates', () => {
    const clashes = physicalNames(staging).filter((n) => physicalNames(production).includes(n));
    assert.deepEqual(clashes, []);
  });

  test('each stack’s access entries and Pod Identity association name its own cluster only', () => {
    for (const [t, cluster] of [
      [staging, 'mgmt-staging'],
      [production, 'mgmt-prod'],
    ] as const) {
      const resources = (t.toJSON() as { Resources: Record<string, Resource> }).Resources;
      const clusterNames = Object.values(resources)
        .filter((r) => r.Type === 'AWS::EKS::AccessEntry' || r.Type === 'AWS::EKS::PodIdentityAssociation')
        .map((r) => r.Properties?.['ClusterName']);
      assert.equal(clusterNames.length, 6, 'five access entries and one association');
      assert.deepEqual([...new Set(clusterNames)], [cluster]);
    }
  });
});
