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
});
