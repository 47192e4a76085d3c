// The CDK app: `npx cdk synth` (offline, no Docker) or `npx cdk deploy`, configured with CDK context (`-c key=value`
// or cdk.json; every key and its check in infra/settings.ts, a bad value fails synth naming it): a credential source
// (kubeconfigSecretName, or eksClusterName + eksClusterEndpoint + eksClusterCaData) and optionally stackName (the
// stack's id and CloudFormation name, default CapiServerless; one install per name), sweepMinutes,
// webhookTokenSecretName or webhookTokenParameterName (SSM SecureString), webhookReservedConcurrency, alarmTopicArn,
// logRetentionDays, providerFetchAllowedHosts and providerGitlabHosts (comma-separated), extensionConfigDiscovery
// (upstream when upstream's core manager runs with RuntimeSDK on, docs/beside-upstream.md), tableDeletionProtection
// (false for test stacks only), forwarderNamespace and forwarderServiceAccount (EKS Pod Identity; podIdentityAgent
// installs its add-on; forwarderIdentity=irsa with oidcIssuer for IRSA instead), and for private
// subnets vpcId + availabilityZones + privateSubnetIds + privateSubnetRouteTableIds (comma-separated, one per zone)
// [+ securityGroupIds, secretStoreEndpoint=false when the VPC has a Secrets Manager/SSM interface endpoint]. cdk-nag's
// AwsSolutions and Serverless packs validate the synthesized app (synth fails on a finding not acknowledged). A key
// that looks like a setting but is none (a typo) fails synth too.
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { CapiServerlessStack } from './capi-serverless-stack.ts';
import { checkUnknownSettings, computeStackSettings, StackSettingError } from './settings.ts';

const app = new App();
try {
  checkUnknownSettings(Object.keys(app.node.getAllContext() as Record<string, unknown>));
  const { stackName, props } = computeStackSettings((key) => app.node.tryGetContext(key));
  new CapiServerlessStack(app, stackName, props);
} catch (err) {
  // NOTE: a bad setting is the user's to fix: its message alone, not a source line and a stack.
  if (!(err instanceof StackSettingError)) throw err;
  process.stderr.write(`${err.message}\n`);
  process.exit(1);
}
Validations.of(app).addPlugins(new AwsSolutionsChecks(app), new ServerlessChecks(app));
app.synth();
