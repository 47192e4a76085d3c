// The CDK app: `npx cdk synth` (offline, no Docker) or `npx cdk deploy`. Context (all optional): stackName (the stack's
// id and CloudFormation name, default CapiServerless; one install per name), kubeconfigSecretName,
// tickMinutes, webhookTokenSecretName, webhookReservedConcurrency, alarmTopicArn, logRetentionDays,
// providerFetchAllowedHosts and providerGitlabHosts (comma-separated), eksClusterName + eksClusterEndpoint +
// eksClusterCaData, and for private subnets vpcId + availabilityZones + privateSubnetIds +
// privateSubnetRouteTableIds (comma-separated, one per zone) [+ securityGroupIds]. cdk-nag's
// AwsSolutions and Serverless packs validate the synthesized app (synth fails on a finding not acknowledged).
import { App, Validations } from 'aws-cdk-lib';
import * as logs from 'aws-cdk-lib/aws-logs';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { CapiServerlessStack } from './capi-serverless-stack.ts';

const app = new App();
const text = (key: string): string | undefined => {
  const value: unknown = app.node.tryGetContext(key);
  return typeof value === 'string' && value ? value : undefined;
};
const number = (key: string): number | undefined => {
  const value: unknown = app.node.tryGetContext(key);
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0)
    throw new Error(`context ${key} must be a non-negative integer, got ${String(value)}`);
  return n;
};
const retentionDays = number('logRetentionDays');
if (retentionDays !== undefined && !Object.values(logs.RetentionDays).includes(retentionDays))
  throw new Error(`context logRetentionDays must be one of CloudWatch's retention periods (1, 3, 5, 7, 14, 30, ...)`);
const kubeconfigSecretName = text('kubeconfigSecretName');
const tickMinutes = number('tickMinutes');
const webhookTokenSecretName = text('webhookTokenSecretName');
const webhookReservedConcurrency = number('webhookReservedConcurrency');
const alarmTopicArn = text('alarmTopicArn');
const list = (key: string): string[] | undefined =>
  text(key)
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
const providerFetchAllowedHosts = list('providerFetchAllowedHosts');
const providerGitlabHosts = list('providerGitlabHosts');
const eksClusterName = text('eksClusterName');
const eksClusterEndpoint = text('eksClusterEndpoint');
const eksClusterCaData = text('eksClusterCaData');
const vpcId = text('vpcId');
const securityGroupIds = list('securityGroupIds');
new CapiServerlessStack(app, text('stackName') ?? 'CapiServerless', {
  ...(eksClusterName && eksClusterEndpoint && eksClusterCaData
    ? { eksCluster: { name: eksClusterName, endpoint: eksClusterEndpoint, caData: eksClusterCaData } }
    : {}),
  ...(vpcId
    ? {
        privateNetwork: {
          vpcId,
          availabilityZones: list('availabilityZones') ?? [],
          privateSubnetIds: list('privateSubnetIds') ?? [],
          privateSubnetRouteTableIds: list('privateSubnetRouteTableIds') ?? [],
          ...(securityGroupIds ? { securityGroupIds } : {}),
        },
      }
    : {}),
  ...(kubeconfigSecretName ? { kubeconfigSecretName } : {}),
  ...(tickMinutes === undefined ? {} : { tickMinutes }),
  ...(webhookTokenSecretName ? { webhookTokenSecretName } : {}),
  ...(webhookReservedConcurrency === undefined ? {} : { webhookReservedConcurrency }),
  ...(alarmTopicArn ? { alarmTopicArn } : {}),
  ...(retentionDays === undefined ? {} : { logRetention: retentionDays as logs.RetentionDays }),
  ...(providerFetchAllowedHosts ? { providerFetchAllowedHosts } : {}),
  ...(providerGitlabHosts ? { providerGitlabHosts } : {}),
});
Validations.of(app).addPlugins(new AwsSolutionsChecks(app), new ServerlessChecks(app));
app.synth();
