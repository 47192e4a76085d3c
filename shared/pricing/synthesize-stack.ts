// The deployed stack as the cost model sees it: the CloudFormation template of infra/'s stack class, synthesized in
// process (no esbuild bundling, no AWS call) for each deployment variant docs/deploy.md documents.
import { App } from 'aws-cdk-lib';
import { CapiServerlessStack, type CapiServerlessStackProps } from '../../infra/capi-serverless-stack.ts';

/** A CloudFormation template: its resources by logical id. */
export type CfnTemplate = {
  readonly Resources: Readonly<
    Record<string, { readonly Type: string; readonly Properties?: Record<string, unknown> }>
  >;
};

const eksCluster = { name: 'mgmt', endpoint: 'https://EXAMPLE.gr7.us-east-1.eks.amazonaws.com', caData: 'Y2E=' };

/**
 * The deployment variants priced (docs/deploy.md), both with the defaults: EKS access entries (no kubeconfig secret),
 * the webhook token in a Kubernetes Secret, tracing off. What differs is the network and fan-out.
 */
export const stackVariants = {
  /** `npx cdk deploy -c eksClusterName=… -c eksClusterEndpoint=… -c eksClusterCaData=…`: public (or CIDR-allowed) endpoint, fan-out on the bus. */
  public: { eksCluster },
  /** Private subnets + EKS access entries: no egress, no fan-out over the bus. */
  private: {
    eksCluster,
    privateNetwork: {
      vpcId: 'vpc-0123456789abcdef0',
      availabilityZones: ['us-east-1a', 'us-east-1b'],
      privateSubnetIds: ['subnet-0aaaaaaaaaaaaaaa1', 'subnet-0bbbbbbbbbbbbbbb2'],
      privateSubnetRouteTableIds: ['rtb-0aaaaaaaaaaaaaaa1', 'rtb-0bbbbbbbbbbbbbbb2'],
    },
  },
} as const satisfies Record<string, CapiServerlessStackProps>;

export type StackVariant = keyof typeof stackVariants;

/**
 * The template of one variant (a few seconds: aws-cdk-lib builds the whole construct tree).
 *
 * @example
 * const template = synthesizeStack('public');
 * Object.values(template.Resources).filter((r) => r.Type === 'AWS::CloudWatch::Alarm').length; // 1
 */
export function synthesizeStack(variant: StackVariant): CfnTemplate {
  // NOTE: an empty bundling-stacks list skips esbuild; the template is the same apart from the code assets.
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const props: CapiServerlessStackProps = {
    env: { account: '111111111111', region: 'us-east-1' },
    ...structuredClone(stackVariants[variant]),
  };
  const stack = new CapiServerlessStack(app, `CapiServerless-${variant}`, props);
  return app.synth().getStackByName(stack.stackName).template as CfnTemplate;
}
