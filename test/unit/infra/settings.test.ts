// Every setting is checked at synth: a bad one fails with a message naming it, never deploys to fail at run time.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createTestApp } from '../../support/builders/test-app.ts';
import { Template } from 'aws-cdk-lib/assertions';
import { CapiServerlessStack } from '../../../infra/capi-serverless-stack.ts';
import {
  checkUnknownSettings,
  computeStackSettings,
  StackSettingError,
  type SettingKey,
} from '../../../infra/settings.ts';

type Context = Partial<Record<SettingKey, unknown>>;

/** What `cdk synth -c …` does: settings from context, then the stack. */
function synthFromContext(context: Context): Template {
  const app = createTestApp(context);
  const { stackName, props } = computeStackSettings((key) => app.node.tryGetContext(key));
  return Template.fromStack(new CapiServerlessStack(app, stackName, props));
}

const kubeconfig = { kubeconfigSecretName: 'mgmt-kubeconfig' };
const eks = {
  eksClusterName: 'mgmt',
  eksClusterEndpoint: 'https://ABC.gr7.eu-west-1.eks.amazonaws.com',
  eksClusterCaData: 'Y2E=',
};
const vpc = {
  ...eks,
  vpcId: 'vpc-0123456789abcdef0',
  availabilityZones: 'eu-west-1a,eu-west-1b',
  privateSubnetIds: 'subnet-0aaaaaaaaaaaaaaa1,subnet-0bbbbbbbbbbbbbbb2',
  privateSubnetRouteTableIds: 'rtb-0aaaaaaaaaaaaaaa1,rtb-0bbbbbbbbbbbbbbb2',
};

const bad: { name: string; context: Context; setting: SettingKey; says: RegExp }[] = [
  {
    name: 'no credential source at all',
    context: {},
    setting: 'kubeconfigSecretName',
    says: /no credential source for the management cluster: set kubeconfigSecretName .* or eksClusterName/,
  },
  {
    name: 'eksClusterName alone',
    context: { eksClusterName: 'mgmt' },
    setting: 'eksClusterName',
    says: /needs eksClusterName, eksClusterEndpoint and eksClusterCaData together; missing eksClusterEndpoint and eksClusterCaData/,
  },
  {
    name: 'eksClusterName and eksClusterEndpoint without the CA data',
    context: { eksClusterName: 'mgmt', eksClusterEndpoint: eks.eksClusterEndpoint },
    setting: 'eksClusterName',
    says: /missing eksClusterCaData/,
  },
  {
    name: 'an EKS endpoint that is not https',
    context: { ...eks, eksClusterEndpoint: 'http://ABC.gr7.eu-west-1.eks.amazonaws.com' },
    setting: 'eksClusterEndpoint',
    says: /must be the cluster's https:\/\/ API endpoint/,
  },
  {
    name: 'controllerConcurrency=0 (no pass could run)',
    context: { ...kubeconfig, controllerConcurrency: '0' },
    setting: 'controllerConcurrency',
    says: /must be a whole number from 1 to 1000, got "0"/,
  },
  {
    name: 'a controllerConcurrency that reserves more than Lambda leaves unreserved',
    context: { ...kubeconfig, controllerConcurrency: '250' },
    setting: 'controllerConcurrency',
    says: /would reserve 1100 concurrent executions \(4 controllers × 250 \+ webhooks 100\); .* at most 900/,
  },
  {
    name: 'more provisioned than reserved webhook concurrency',
    context: { ...kubeconfig, webhookReservedConcurrency: '5', webhookProvisionedConcurrency: '6' },
    setting: 'webhookProvisionedConcurrency',
    says: /must not exceed webhookReservedConcurrency \(5\).* got 6/,
  },
  {
    name: 'a webhookProvisionedConcurrency that is not a whole number',
    context: { ...kubeconfig, webhookProvisionedConcurrency: '2.5' },
    setting: 'webhookProvisionedConcurrency',
    says: /must be a whole number from 1 to 1000, got "2.5"/,
  },
  {
    name: 'webhookReservedConcurrency=0 (every Cluster write would be refused)',
    context: { ...kubeconfig, webhookReservedConcurrency: '0' },
    setting: 'webhookReservedConcurrency',
    says: /must be a whole number from 1 to 1000, got "0"/,
  },
  {
    name: 'a negative webhookReservedConcurrency',
    context: { ...kubeconfig, webhookReservedConcurrency: -3 },
    setting: 'webhookReservedConcurrency',
    says: /from 1 to 1000, got -3/,
  },
  {
    name: 'a fractional webhookReservedConcurrency',
    context: { ...kubeconfig, webhookReservedConcurrency: '2.5' },
    setting: 'webhookReservedConcurrency',
    says: /from 1 to 1000, got "2.5"/,
  },
  {
    name: 'a webhookReservedConcurrency above the account default',
    context: { ...kubeconfig, webhookReservedConcurrency: 5000 },
    setting: 'webhookReservedConcurrency',
    says: /from 1 to 1000/,
  },
  {
    name: 'sweepMinutes=0',
    context: { ...kubeconfig, sweepMinutes: '0' },
    setting: 'sweepMinutes',
    says: /must be a whole number from 1 to 1440, got "0"/,
  },
  {
    name: 'sweepMinutes that is not a number',
    context: { ...kubeconfig, sweepMinutes: 'five' },
    setting: 'sweepMinutes',
    says: /from 1 to 1440, got "five"/,
  },
  {
    name: 'sweepMinutes above a day',
    context: { ...kubeconfig, sweepMinutes: 2000 },
    setting: 'sweepMinutes',
    says: /from 1 to 1440/,
  },
  {
    name: 'tickMinutes, replaced by sweepMinutes',
    context: { ...kubeconfig, tickMinutes: '5' },
    setting: 'tickMinutes',
    says: /was replaced by sweepMinutes \(default 60\)/,
  },
  {
    name: 'a retention CloudWatch Logs does not offer',
    context: { ...kubeconfig, logRetentionDays: '2' },
    setting: 'logRetentionDays',
    says: /must be one of CloudWatch Logs' retention periods/,
  },
  {
    name: 'an alarm topic that is not an SNS ARN',
    context: { ...kubeconfig, alarmTopicArn: 'ops-alarms' },
    setting: 'alarmTopicArn',
    says: /is not an SNS topic ARN/,
  },
  {
    name: 'a download host with a path',
    context: { ...kubeconfig, providerFetchAllowedHosts: 'registry.internal:5000/charts' },
    setting: 'providerFetchAllowedHosts',
    says: /each entry is host or host:port/,
  },
  {
    name: 'a download host with a port out of range',
    context: { ...kubeconfig, providerFetchAllowedHosts: 'registry.internal:70000' },
    setting: 'providerFetchAllowedHosts',
    says: /each entry is host or host:port/,
  },
  {
    name: 'a GitLab host with a scheme',
    context: { ...kubeconfig, providerGitlabHosts: 'https://gitlab.example.com' },
    setting: 'providerGitlabHosts',
    says: /each entry is a host name/,
  },
  {
    name: 'an ExtensionConfig discovery that is neither side',
    context: { ...kubeconfig, extensionConfigDiscovery: 'both' },
    setting: 'extensionConfigDiscovery',
    says: /must be capi-serverless or upstream, got "both"/,
  },
  {
    name: 'tableDeletionProtection that is not a boolean',
    context: { ...kubeconfig, tableDeletionProtection: 'no' },
    setting: 'tableDeletionProtection',
    says: /must be true or false, got "no"/,
  },
  {
    name: 'both a token secret and a token parameter',
    context: { ...kubeconfig, webhookTokenSecretName: 'token', webhookTokenParameterName: '/capi/token' },
    setting: 'webhookTokenParameterName',
    says: /either webhookTokenSecretName or webhookTokenParameterName, not both/,
  },
  {
    name: 'a token Secret that is not namespace/name',
    context: { ...eks, webhookTokenKubeSecret: 'token-only' },
    setting: 'webhookTokenKubeSecret',
    says: /must be <namespace>\/<name> of a Kubernetes Secret, got "token-only"/,
  },
  {
    name: 'a token Secret beside a token store',
    context: { ...eks, webhookTokenKubeSecret: 'ns/token', webhookTokenParameterName: '/capi/token' },
    setting: 'webhookTokenKubeSecret',
    says: /give one token store/,
  },
  {
    name: 'healthAlarm that is not a boolean',
    context: { ...eks, healthAlarm: 'off' },
    setting: 'healthAlarm',
    says: /must be true or false, got "off"/,
  },
  {
    name: 'tracing that is not a boolean',
    context: { ...eks, tracing: 'yes' },
    setting: 'tracing',
    says: /must be true or false, got "yes"/,
  },
  {
    name: 'tracing in private subnets',
    context: { ...vpc, tracing: 'true' },
    setting: 'tracing',
    says: /needs an X-Ray interface endpoint/,
  },
  {
    name: 'secretStoreEndpoint without vpcId',
    context: { ...eks, secretStoreEndpoint: 'false' },
    setting: 'secretStoreEndpoint',
    says: /is only used with vpcId/,
  },
  {
    name: 'a stack name CloudFormation refuses',
    context: { ...kubeconfig, stackName: 'capi_serverless' },
    setting: 'stackName',
    says: /must start with a letter and hold only letters, digits and hyphens/,
  },
  {
    name: 'subnets without vpcId',
    context: { ...eks, privateSubnetIds: 'subnet-0aaaaaaaaaaaaaaa1' },
    setting: 'privateSubnetIds',
    says: /is only used with vpcId/,
  },
  {
    name: 'private subnets with a kubeconfig secret',
    context: { ...vpc, ...kubeconfig },
    setting: 'kubeconfigSecretName',
    says: /use eksClusterName/,
  },
  {
    name: 'one route table for two zones',
    context: { ...vpc, privateSubnetRouteTableIds: 'rtb-0aaaaaaaaaaaaaaa1' },
    setting: 'privateSubnetRouteTableIds',
    says: /one route table per availability zone \(2 zones, 1 route tables\)/,
  },
  {
    name: 'a subnet id that is not one',
    context: { ...vpc, privateSubnetIds: 'subnet-a,subnet-b' },
    setting: 'privateSubnetIds',
    says: /is not a subnet- id: "subnet-a"/,
  },
  {
    name: 'a forwarder identity that is neither',
    context: { ...eks, forwarderIdentity: 'kiam' },
    setting: 'forwarderIdentity',
    says: /must be podIdentity or irsa, got "kiam"/,
  },
  {
    name: 'Pod Identity without an EKS cluster',
    context: { ...kubeconfig, forwarderIdentity: 'podIdentity' },
    setting: 'forwarderIdentity',
    says: /podIdentity needs an EKS cluster/,
  },
  {
    name: 'IRSA without the OIDC issuer',
    context: { ...eks, forwarderIdentity: 'irsa' },
    setting: 'oidcIssuer',
    says: /forwarderIdentity=irsa needs the cluster's OIDC issuer URL \(EKS: aws eks describe-cluster/,
  },
  {
    name: 'an OIDC issuer without IRSA',
    context: { ...eks, oidcIssuer: 'https://oidc.eks.eu-west-1.amazonaws.com/id/ABC' },
    setting: 'oidcIssuer',
    says: /is only used with forwarderIdentity=irsa/,
  },
  {
    name: 'an OIDC issuer that is not an https URL',
    context: { ...eks, forwarderIdentity: 'irsa', oidcIssuer: 'oidc.eks.eu-west-1.amazonaws.com/id/ABC' },
    setting: 'oidcIssuer',
    says: /must be the issuer's https:\/\/ URL without a trailing slash/,
  },
  {
    name: 'the Pod Identity Agent without an EKS cluster',
    context: { ...kubeconfig, podIdentityAgent: 'true' },
    setting: 'podIdentityAgent',
    says: /is only used with EKS Pod Identity/,
  },
  {
    name: 'the Pod Identity Agent with IRSA',
    context: {
      ...eks,
      forwarderIdentity: 'irsa',
      oidcIssuer: 'https://oidc.eks.eu-west-1.amazonaws.com/id/ABC',
      podIdentityAgent: 'true',
    },
    setting: 'podIdentityAgent',
    says: /is only used with EKS Pod Identity/,
  },
  {
    name: 'forwarderImage that is not a boolean',
    context: { ...kubeconfig, forwarderImage: 'yes' },
    setting: 'forwarderImage',
    says: /must be true or false, got "yes"/,
  },
  {
    name: 'an image platform without forwarderImage',
    context: { ...kubeconfig, forwarderImagePlatform: 'linux/arm64' },
    setting: 'forwarderImagePlatform',
    says: /needs forwarderImage=true/,
  },
  {
    name: 'an unknown image platform',
    context: { ...kubeconfig, forwarderImage: 'true', forwarderImagePlatform: 'linux/s390x' },
    setting: 'forwarderImagePlatform',
    says: /must be one of linux\/amd64, linux\/arm64, got "linux\/s390x"/,
  },
];

describe('settings checked at synth', () => {
  for (const c of bad) {
    test(`refuses ${c.name}, naming ${c.setting}`, () => {
      assert.throws(
        () => synthFromContext(c.context),
        (err: unknown) => {
          assert.ok(err instanceof StackSettingError, String(err));
          assert.equal(err.fieldPath, c.setting);
          assert.match(err.message, new RegExp(`^setting ${c.setting}: `));
          assert.match(err.message, c.says);
          return true;
        },
      );
    });
  }

  test('the stack constructor checks props given directly too', () => {
    const app = createTestApp();
    assert.throws(
      () => new CapiServerlessStack(app, 'Direct', {}),
      /setting kubeconfigSecretName: no credential source/,
    );
    assert.throws(
      () => new CapiServerlessStack(app, 'Zero', { ...kubeconfig, webhookReservedConcurrency: 0 }),
      /setting webhookReservedConcurrency: must be a whole number from 1 to 1000, got 0/,
    );
  });

  test('refuses a setting it does not know (a typo), suggesting the one meant', () => {
    for (const [key, says] of [
      ['forwarderImag', /: setting forwarderImag: is not a setting \(did you mean forwarderImage\?\)/],
      ['eksClustrName', /: setting eksClustrName: is not a setting \(did you mean eksClusterName\?\)/],
      ['retention', /: setting retention: is not a setting; the settings are listed in docs\/configuration.md$/],
    ] as const)
      assert.throws(() => checkUnknownSettings(['cli-telemetry', 'eksClusterName', key]), says);
  });

  test('leaves CDK’s own context alone: cdk.json’s feature flags and the keys the CLI sets', () => {
    const app = createTestApp({
      ...kubeconfig,
      'aws:cdk:enable-path-metadata': true,
      'acknowledged-issue-numbers': [],
    });
    checkUnknownSettings(Object.keys(app.node.getAllContext() as Record<string, unknown>));
  });

  const good: { name: string; context: Context }[] = [
    { name: 'a kubeconfig secret', context: { ...kubeconfig, sweepMinutes: '30', webhookReservedConcurrency: '25' } },
    {
      name: 'capacity settings',
      context: {
        ...kubeconfig,
        controllerConcurrency: '20',
        webhookReservedConcurrency: 20,
        webhookProvisionedConcurrency: 20,
      },
    },
    { name: 'an EKS cluster', context: { ...eks, logRetentionDays: 90, stackName: 'capi-staging' } },
    { name: 'the private-network variant', context: vpc },
    {
      name: 'tracing on, and a token Secret of its own',
      context: { ...eks, tracing: 'true', webhookTokenKubeSecret: 'ops/token' },
    },
    { name: 'the forwarder image built at deploy', context: { ...eks, forwarderImage: 'true' } },
    { name: 'no health alarm', context: { ...eks, healthAlarm: 'false' } },
    {
      name: 'IRSA for the forwarder',
      context: { ...eks, forwarderIdentity: 'irsa', oidcIssuer: 'https://oidc.eks.eu-west-1.amazonaws.com/id/ABC' },
    },
    {
      name: 'IRSA on a cluster of its own (a kubeconfig secret)',
      context: { ...kubeconfig, forwarderIdentity: 'irsa', oidcIssuer: 'https://issuer.example.com:8443/mgmt' },
    },
  ];
  for (const c of good)
    test(`accepts ${c.name}`, () => {
      assert.ok(synthFromContext(c.context).toJSON());
    });

  test('numbers from -c (strings) and from cdk.json (numbers) mean the same', () => {
    for (const value of ['25', 25]) {
      synthFromContext({ ...kubeconfig, webhookReservedConcurrency: value }).hasResourceProperties(
        'AWS::Lambda::Function',
        { ReservedConcurrentExecutions: 25 },
      );
    }
  });
});
