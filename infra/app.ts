// The CDK app: `npx cdk synth` (offline, no Docker) or `npx cdk deploy`. Context: kubeconfigSecretName, tickMinutes.
import { App } from 'aws-cdk-lib';
import { CapiServerlessStack } from './capi-serverless-stack.ts';

const app = new App();
const secret: unknown = app.node.tryGetContext('kubeconfigSecretName');
const tick: unknown = app.node.tryGetContext('tickMinutes');
new CapiServerlessStack(app, 'CapiServerless', {
  ...(typeof secret === 'string' && secret ? { kubeconfigSecretName: secret } : {}),
  ...(tick === undefined ? {} : { tickMinutes: Number(tick) }),
});
app.synth();
