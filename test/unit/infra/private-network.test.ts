// The private variant of the stack: functions in the cluster's private subnets with nothing that bills by the hour
// (no NAT gateway, no interface endpoint: the webhook token is read through the API server), DynamoDB through a
// gateway endpoint, EKS tokens instead of a kubeconfig secret, tracing off; and the combinations that cannot work
// refused.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createTestApp } from '../../support/builders/test-app.ts';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { CapiServerlessStack, type CapiServerlessStackProps } from '../../../infra/capi-serverless-stack.ts';

type Resource = { Properties: Record<string, unknown> };

const eksCluster = { name: 'mgmt', endpoint: 'https://ABC.gr7.eu-west-1.eks.amazonaws.com', caData: 'Y2E=' };
const privateNetwork = {
  vpcId: 'vpc-0123456789abcdef0',
  availabilityZones: ['eu-west-1a', 'eu-west-1b'],
  privateSubnetIds: ['subnet-0aaaaaaaaaaaaaaa1', 'subnet-0bbbbbbbbbbbbbbb2'],
  privateSubnetRouteTableIds: ['rtb-0aaaaaaaaaaaaaaa1', 'rtb-0bbbbbbbbbbbbbbb2'],
};

function synth(props: CapiServerlessStackProps): { stack: CapiServerlessStack; template: Template } {
  const app = createTestApp();
  const stack = new CapiServerlessStack(app, 'Private', {
    env: { account: '111111111111', region: 'eu-west-1' },
    ...props,
  });
  return { stack, template: Template.fromStack(stack) };
}

describe('the private variant of the stack', () => {
  const { stack, template } = synth({ eksCluster, privateNetwork });
  const resources = (type: string) => Object.values(template.findResources(type)) as Resource[];

  test('has no NAT gateway, no interface endpoint, and a DynamoDB gateway endpoint on the given route tables', () => {
    template.resourceCountIs('AWS::EC2::NatGateway', 0);
    template.resourceCountIs('AWS::EC2::InternetGateway', 0);
    assert.deepEqual(
      resources('AWS::EC2::VPCEndpoint').filter((e) => e.Properties['VpcEndpointType'] === 'Interface'),
      [],
      'nothing billed by the hour',
    );
    const endpoints = resources('AWS::EC2::VPCEndpoint').filter((e) => e.Properties['VpcEndpointType'] === 'Gateway');
    assert.equal(endpoints.length, 1);
    assert.equal(endpoints[0]?.Properties['VpcEndpointType'], 'Gateway');
    assert.match(JSON.stringify(endpoints[0]?.Properties['ServiceName']), /dynamodb/);
    assert.deepEqual(endpoints[0]?.Properties['RouteTableIds'], privateNetwork.privateSubnetRouteTableIds);
  });

  test('has no one-time schedules (the Scheduler API would need an endpoint) and keeps a 5-minute tick', () => {
    template.resourceCountIs('AWS::Scheduler::ScheduleGroup', 0);
    const ticks = resources('AWS::Scheduler::Schedule');
    assert.equal(ticks.length, 4);
    for (const t of ticks) assert.equal(t.Properties['ScheduleExpression'], 'rate(5 minutes)');
    for (const fn of resources('AWS::Lambda::Function')) {
      const vars = (fn.Properties['Environment'] as { Variables?: Record<string, unknown> } | undefined)?.Variables;
      assert.equal(vars?.['SCHEDULE_GROUP_NAME'], undefined);
    }
  });

  test('attaches every function to the private subnets with a security group that allows HTTPS out only', () => {
    const fns = resources('AWS::Lambda::Function').filter((f) => f.Properties['Handler'] === 'index.handler');
    assert.equal(fns.length, 5, 'four controllers and the webhooks');
    for (const fn of fns) {
      const vpcConfig = fn.Properties['VpcConfig'] as { SubnetIds: string[] } | undefined;
      assert.deepEqual(vpcConfig?.SubnetIds, privateNetwork.privateSubnetIds);
      assert.notDeepEqual(fn.Properties['TracingConfig'], { Mode: 'Active' }, 'no X-Ray without an endpoint');
    }
    const groups = resources('AWS::EC2::SecurityGroup').filter((g) =>
      String(g.Properties['GroupDescription']).startsWith('capi-serverless functions'),
    );
    assert.equal(groups.length, 1);
    assert.deepEqual(
      (groups[0]?.Properties['SecurityGroupEgress'] as { IpProtocol: string; FromPort: number; ToPort: number }[]).map(
        (r) => [r.IpProtocol, r.FromPort, r.ToPort],
      ),
      [['tcp', 443, 443]],
    );
  });

  test('reaches the cluster with EKS tokens: no kubeconfig secret, no extension, the token read through the API server', () => {
    const fns = resources('AWS::Lambda::Function').filter((f) => f.Properties['Handler'] === 'index.handler');
    for (const fn of fns) {
      const env = (fn.Properties['Environment'] as { Variables: Record<string, unknown> }).Variables;
      assert.equal(env['EKS_CLUSTER_NAME'], 'mgmt');
      assert.equal(env['KUBECONFIG_SECRET_ARN'], undefined);
      assert.equal(env['WEBHOOK_PATH_TOKEN'], undefined, 'no token in the environment');
      const webhooks = env['POWERTOOLS_SERVICE_NAME'] === 'capi-serverless-webhooks';
      assert.equal(fn.Properties['Layers'], undefined, 'no Parameters and Secrets extension');
      assert.equal(env['WEBHOOK_TOKEN_SECRET_ARN'], undefined);
      assert.equal(env['WEBHOOK_TOKEN_KUBE_SECRET'] !== undefined, webhooks);
    }
  });

  test('does not fan out (PutEvents from private subnets would need an interface endpoint): no bus name, no rule, no grant', () => {
    const fns = resources('AWS::Lambda::Function').filter((f) => f.Properties['Handler'] === 'index.handler');
    for (const fn of fns)
      assert.equal(
        (fn.Properties['Environment'] as { Variables: Record<string, unknown> }).Variables['EVENT_BUS_NAME'],
        undefined,
      );
    assert.ok(!JSON.stringify(template.toJSON()).includes('capi-serverless.fanout'));
  });

  test('passes the cdk-nag AwsSolutions and Serverless packs with only reasoned acknowledgements', () => {
    for (const pack of [new AwsSolutionsChecks(), new ServerlessChecks()]) {
      const report = pack.validateScope(stack);
      const findings = report.violations.map(
        (v) => `${v.ruleName} at ${v.violatingResources.map((r) => r.constructPath ?? '').join(', ')}`,
      );
      assert.deepEqual(findings, [], `${pack.readPackName}: unacknowledged findings`);
    }
  });

  const refused = [
    {
      name: 'refuses a kubeconfig secret in private subnets (it would need a Secrets Manager interface endpoint)',
      props: { eksCluster, privateNetwork, kubeconfigSecretName: 'kubeconfig' },
      says: /setting kubeconfigSecretName: with vpcId \(private subnets\) use eksClusterName/,
    },
    {
      name: 'refuses X-Ray tracing in private subnets (it would need an X-Ray interface endpoint)',
      props: { eksCluster, privateNetwork, tracing: true },
      says: /setting tracing: X-Ray tracing from private subnets needs an X-Ray interface endpoint/,
    },
    {
      name: 'refuses private subnets without an EKS cluster',
      props: { privateNetwork },
      says: /setting vpcId: private subnets need eksClusterName/,
    },
    {
      name: 'refuses a subnet list that does not match the zones',
      props: { eksCluster, privateNetwork: { ...privateNetwork, privateSubnetIds: ['subnet-0aaaaaaaaaaaaaaa1'] } },
      says: /setting privateSubnetIds: give one private subnet per availability zone \(2 zones, 1 subnets\)/,
    },
  ];
  for (const c of refused) test(c.name, () => assert.throws(() => synth(c.props), c.says));
});
