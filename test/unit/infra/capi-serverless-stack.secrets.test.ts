// Nothing secret in any Lambda environment, in every variant: the webhooks' path token is read at run time, by
// default from a Kubernetes Secret through the API server (no extension, no AWS secret, no interface endpoint), or
// from a given store (a Secrets Manager secret, or an SSM SecureString parameter) through the Parameters and Secrets
// extension; in private subnets a store needs an interface endpoint.
import assert from 'node:assert/strict';
import { controllers } from '#shared/checkpoint/table.ts';
import { describe, test } from 'node:test';
import { Template } from 'aws-cdk-lib/assertions';
import { CapiServerlessStack, type CapiServerlessStackProps } from '../../../infra/capi-serverless-stack.ts';
import { createTestApp } from '../../support/builders/test-app.ts';

type Resource = { Properties: Record<string, unknown> };

const eksCluster = { name: 'mgmt', endpoint: 'https://ABC.gr7.eu-west-1.eks.amazonaws.com', caData: 'Y2E=' };
const privateNetwork = {
  vpcId: 'vpc-0123456789abcdef0',
  availabilityZones: ['eu-west-1a', 'eu-west-1b'],
  privateSubnetIds: ['subnet-0aaaaaaaaaaaaaaa1', 'subnet-0bbbbbbbbbbbbbbb2'],
  privateSubnetRouteTableIds: ['rtb-0aaaaaaaaaaaaaaa1', 'rtb-0bbbbbbbbbbbbbbb2'],
};
const env = { account: '111111111111', region: 'eu-west-1' };

const variants: { name: string; props: CapiServerlessStackProps; store: 'kube' | 'secret' | 'parameter' }[] = [
  { name: 'kubeconfig secret', props: { kubeconfigSecretName: 'mgmt-kubeconfig' }, store: 'kube' },
  { name: 'EKS cluster', props: { eksCluster }, store: 'kube' },
  {
    name: 'EKS cluster, token in Secrets Manager',
    props: { eksCluster, webhookTokenSecretName: 'webhook-token' },
    store: 'secret',
  },
  {
    name: 'EKS cluster, token in SSM',
    props: { eksCluster, webhookTokenParameterName: '/capi/token' },
    store: 'parameter',
  },
  { name: 'private network', props: { env, eksCluster, privateNetwork }, store: 'kube' },
  {
    name: 'private network, token in SSM',
    props: { env, eksCluster, privateNetwork, webhookTokenParameterName: '/capi/token' },
    store: 'parameter',
  },
];

const synth = (props: CapiServerlessStackProps) =>
  Template.fromStack(new CapiServerlessStack(createTestApp(), 'S', props));
const functionsOf = (t: Template) =>
  (Object.values(t.findResources('AWS::Lambda::Function')) as Resource[]).filter(
    (f) => f.Properties['Handler'] === 'index.handler',
  );
const envOf = (f: Resource) => (f.Properties['Environment'] as { Variables: Record<string, unknown> }).Variables;

describe('secrets stay out of the Lambda environment', () => {
  for (const v of variants) {
    test(`no function environment variable holds a secret or token (${v.name})`, () => {
      const t = synth(v.props);
      const fns = functionsOf(t);
      assert.equal(fns.length, controllers.length + 1);
      for (const fn of fns)
        for (const [key, value] of Object.entries(envOf(fn))) {
          const text = JSON.stringify(value);
          assert.doesNotMatch(text, /\{\{resolve:/, `${key}: no dynamic reference resolved into the environment`);
          assert.doesNotMatch(text, /SecretString|secretValue/i, key);
          // NOTE: the extension's own settings (port, cache, TTLs) name no secret.
          const extensionSetting = /^(PARAMETERS_SECRETS_EXTENSION_|SECRETS_MANAGER_|SSM_)/.test(key);
          if (/TOKEN|SECRET|PASSWORD|CREDENTIAL/.test(key) && !extensionSetting)
            assert.match(key, /_(ARN|NAME|CACHE_MS|KUBE_SECRET)$/, `${key} names where a secret is, never holds one`);
          if (key.endsWith('_KUBE_SECRET')) assert.match(String(value), /^[a-z0-9-]+\/[a-z0-9.-]+$/, key);
        }
    });

    test(`the webhooks function reads the token at run time from its store (${v.name})`, () => {
      const t = synth(v.props);
      const webhooks = functionsOf(t).find((f) => envOf(f)['POWERTOOLS_SERVICE_NAME'] === 'capi-serverless-webhooks');
      const vars = envOf(webhooks!);
      assert.equal(vars['WEBHOOK_PATH_TOKEN'], undefined);
      const policies = JSON.stringify(t.findResources('AWS::IAM::Policy'));
      t.resourceCountIs('AWS::SecretsManager::Secret', 0);
      t.resourceCountIs('AWS::SSM::Parameter', 0);
      if (v.store === 'kube') {
        assert.equal(vars['WEBHOOK_TOKEN_KUBE_SECRET'], 'capi-serverless-system/capi-serverless-webhook-token');
        assert.equal(vars['WEBHOOK_TOKEN_SECRET_ARN'], undefined);
        assert.equal(vars['WEBHOOK_TOKEN_PARAMETER_NAME'], undefined);
        assert.equal(
          webhooks?.Properties['Layers'] !== undefined,
          v.props.kubeconfigSecretName !== undefined,
          'the extension only for a kubeconfig secret',
        );
      } else {
        assert.ok(webhooks?.Properties['Layers'], 'the Parameters and Secrets extension');
        assert.equal(vars['WEBHOOK_TOKEN_KUBE_SECRET'], undefined);
      }
      if (v.store === 'secret') {
        assert.ok(vars['WEBHOOK_TOKEN_SECRET_ARN']);
        assert.match(policies, /secretsmanager:GetSecretValue/);
      }
      if (v.store === 'parameter') {
        assert.equal(vars['WEBHOOK_TOKEN_PARAMETER_NAME'], '/capi/token');
        assert.equal(vars['WEBHOOK_TOKEN_SECRET_ARN'], undefined);
        assert.match(policies, /ssm:GetParameter"/);
        assert.match(policies, /:parameter\/capi\/token/);
      }
      if (v.props.privateNetwork) {
        const interfaces = (Object.values(t.findResources('AWS::EC2::VPCEndpoint')) as Resource[]).filter(
          (e) => e.Properties['VpcEndpointType'] === 'Interface',
        );
        if (v.store === 'kube') assert.equal(interfaces.length, 0, 'the token comes through the API server');
        else {
          assert.equal(interfaces.length, 1, 'one interface endpoint: the token store');
          assert.match(
            JSON.stringify(interfaces[0]?.Properties['ServiceName']),
            v.store === 'secret' ? /secretsmanager/ : /\.ssm"/,
          );
          assert.equal(interfaces[0]?.Properties['PrivateDnsEnabled'], true);
        }
      }
    });
  }

  test('secretStoreEndpoint=false (the VPC has one) creates no interface endpoint for a token store', () => {
    const t = synth({
      env,
      eksCluster,
      webhookTokenParameterName: '/capi/token',
      privateNetwork: { ...privateNetwork, secretStoreEndpoint: false },
    });
    const types = (Object.values(t.findResources('AWS::EC2::VPCEndpoint')) as Resource[]).map(
      (e) => e.Properties['VpcEndpointType'],
    );
    assert.deepEqual(types, ['Gateway']);
  });
});
