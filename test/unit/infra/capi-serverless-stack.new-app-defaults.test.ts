// What a new CDK app has and a platform team expects: the recommended feature flags of the aws-cdk-lib in use, tags
// on every resource that takes them, deletion protection on the state table (off only when a test stack says so).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, test } from 'node:test';
import { CfnResource, Stack, TagManager } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { CapiServerlessStack } from '../../../infra/capi-serverless-stack.ts';
import { cdkJsonContext, createTestApp } from '../../support/builders/test-app.ts';

const require = createRequire(import.meta.url);
// NOTE: the list `cdk init` writes for this aws-cdk-lib (equal to cx-api's CURRENTLY_RECOMMENDED_FLAGS).
const recommended = JSON.parse(
  readFileSync(require.resolve('aws-cdk-lib/recommended-feature-flags.json'), 'utf8'),
) as Record<string, unknown>;

const eksCluster = { name: 'mgmt', endpoint: 'https://ABC.gr7.eu-west-1.eks.amazonaws.com', caData: 'Y2E=' };

describe('what a new app has', () => {
  test('cdk.json sets every feature flag aws-cdk-lib recommends for a new app, at its recommended value', () => {
    assert.ok(Object.keys(recommended).length > 50);
    const missing = Object.entries(recommended)
      .filter(([flag, value]) => JSON.stringify(cdkJsonContext[flag]) !== JSON.stringify(value))
      .map(([flag]) => flag);
    assert.deepEqual(missing, []);
  });

  const variants = [
    { name: 'kubeconfig secret', props: { kubeconfigSecretName: 'mgmt-kubeconfig' } },
    {
      name: 'private network',
      props: {
        env: { account: '111111111111', region: 'eu-west-1' },
        eksCluster,
        privateNetwork: {
          vpcId: 'vpc-0123456789abcdef0',
          availabilityZones: ['eu-west-1a'],
          privateSubnetIds: ['subnet-0aaaaaaaaaaaaaaa1'],
          privateSubnetRouteTableIds: ['rtb-0aaaaaaaaaaaaaaa1'],
        },
      },
    },
  ];
  for (const v of variants) {
    test(`every resource that takes tags carries app=capi-serverless and the stack name (${v.name})`, () => {
      const app = createTestApp();
      const stack = new CapiServerlessStack(app, 'Tagged', { ...v.props, stackName: 'capi-staging' });
      const resources = (
        Template.fromStack(stack).toJSON() as { Resources: Record<string, { Properties?: { Tags?: unknown } }> }
      ).Resources;
      const taggable = stack.node
        .findAll()
        .filter((c): c is CfnResource => CfnResource.isCfnResource(c) && TagManager.isTaggable(c));
      assert.ok(taggable.length >= 15, `${taggable.length} taggable resources`);
      for (const r of taggable) {
        const id = Stack.of(r).getLogicalId(r);
        const tags = JSON.stringify(resources[id]?.Properties?.Tags ?? null);
        assert.ok(
          tags.includes('"app"') && tags.includes('"capi-serverless"') && tags.includes('"capi-staging"'),
          `${r.cfnResourceType} ${id}: ${tags}`,
        );
      }
      // NOTE: the stack's own tags, which CloudFormation also puts on what it creates.
      assert.deepEqual(app.synth().getStackByName('capi-staging').tags, {
        app: 'capi-serverless',
        'capi-serverless:stack': 'capi-staging',
      });
    });
  }

  test('the state table has deletion protection and is retained by default', () => {
    const template = Template.fromStack(
      new CapiServerlessStack(createTestApp(), 'Protected', { kubeconfigSecretName: 'mgmt-kubeconfig' }),
    );
    template.hasResource('AWS::DynamoDB::Table', {
      Properties: { DeletionProtectionEnabled: true },
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
    });
  });

  test('tableDeletionProtection=false (a test stack) turns it off and lets cdk destroy delete the table', () => {
    const template = Template.fromStack(
      new CapiServerlessStack(createTestApp(), 'Disposable', {
        kubeconfigSecretName: 'mgmt-kubeconfig',
        tableDeletionProtection: false,
      }),
    );
    template.hasResource('AWS::DynamoDB::Table', {
      Properties: { DeletionProtectionEnabled: false },
      DeletionPolicy: 'Delete',
    });
  });

  test('with the flags, tags and protection, cdk-nag still finds nothing unacknowledged', () => {
    for (const v of variants) {
      const stack = new CapiServerlessStack(createTestApp(), 'Nag', v.props);
      for (const pack of [new AwsSolutionsChecks(), new ServerlessChecks()]) {
        const findings = pack
          .validateScope(stack)
          .violations.map((f) => `${f.ruleName} at ${f.violatingResources.map((r) => r.constructPath ?? '').join()}`);
        assert.deepEqual(findings, [], `${v.name}, ${pack.readPackName}`);
      }
    }
  });
});
