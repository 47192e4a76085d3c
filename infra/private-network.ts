// The private path to a management cluster whose API endpoint is private or CIDR-restricted, with nothing that bills
// by the hour: the functions attach to the cluster's VPC subnets and need no egress to the internet. They talk to
// the API server and workload clusters inside the VPC, to DynamoDB through a gateway endpoint (free), and to nothing
// else: EKS tokens are signed locally from the function's role (EKS access entries), X-Ray tracing is off (it would
// need an interface endpoint or NAT). The one exception is the webhooks' path token, read at run time from its store
// (never put in the environment): an interface endpoint of Secrets Manager or SSM, created here unless the VPC has one.
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import { Construct } from 'constructs';

export type PrivateNetworkProps = {
  readonly vpcId: string;
  readonly availabilityZones: readonly string[];
  /** Subnets the functions attach to (one per zone, in the order of `availabilityZones`). */
  readonly privateSubnetIds: readonly string[];
  /** Route tables of those subnets, which the DynamoDB gateway endpoint is added to. */
  readonly privateSubnetRouteTableIds: readonly string[];
  /** Security groups of the functions; unset: one is created allowing HTTPS out only. */
  readonly securityGroupIds?: readonly string[];
  /** Create the DynamoDB gateway endpoint (default true; false when the VPC already routes DynamoDB through one). */
  readonly createDynamoDbEndpoint?: boolean;
  /**
   * Create an interface endpoint (private DNS) for the webhook token's store, Secrets Manager or SSM (default true;
   * false when the VPC already has one). It bills by the hour per zone, the one such cost of this variant.
   */
  readonly secretStoreEndpoint?: boolean;
};

/** Where the webhooks' path token is kept. */
export type SecretStore = 'secretsmanager' | 'ssm';

/** What a function needs to attach to the private network (spread into its props). */
export type FunctionNetworkProps = {
  readonly vpc: ec2.IVpc;
  readonly vpcSubnets: ec2.SubnetSelection;
  readonly securityGroups: ec2.ISecurityGroup[];
};

export class PrivateNetwork extends Construct {
  readonly vpc: ec2.IVpc;
  readonly functionProps: FunctionNetworkProps;
  private readonly subnets: ec2.ISubnet[];
  private readonly createsSecretStoreEndpoint: boolean;

  constructor(scope: Construct, id: string, props: PrivateNetworkProps) {
    super(scope, id);
    const zones = props.availabilityZones.length;
    if (zones === 0 || props.privateSubnetIds.length !== zones || props.privateSubnetRouteTableIds.length !== zones) {
      throw new Error(
        'privateNetwork: give one private subnet and one route table per availability zone ' +
          `(${zones} zones, ${props.privateSubnetIds.length} subnets, ${props.privateSubnetRouteTableIds.length} route tables)`,
      );
    }
    this.vpc = ec2.Vpc.fromVpcAttributes(this, 'Vpc', {
      vpcId: props.vpcId,
      availabilityZones: [...props.availabilityZones],
      privateSubnetIds: [...props.privateSubnetIds],
      privateSubnetRouteTableIds: [...props.privateSubnetRouteTableIds],
    });
    const subnets = props.privateSubnetIds.map((subnetId, i) =>
      ec2.Subnet.fromSubnetAttributes(this, `Subnet${i}`, {
        subnetId,
        availabilityZone: props.availabilityZones[i] ?? '',
        routeTableId: props.privateSubnetRouteTableIds[i] ?? '',
      }),
    );
    if (props.createDynamoDbEndpoint ?? true) {
      new ec2.GatewayVpcEndpoint(this, 'DynamoDbEndpoint', {
        vpc: this.vpc,
        service: ec2.GatewayVpcEndpointAwsService.DYNAMODB,
        subnets: [{ subnets }],
      });
    }
    let securityGroups: ec2.ISecurityGroup[];
    if (props.securityGroupIds?.length) {
      securityGroups = props.securityGroupIds.map((sg, i) => ec2.SecurityGroup.fromSecurityGroupId(this, `Sg${i}`, sg));
    } else {
      const sg = new ec2.SecurityGroup(this, 'FunctionsSg', {
        vpc: this.vpc,
        description: 'capi-serverless functions: HTTPS out only (API servers in the VPC, DynamoDB gateway endpoint)',
        allowAllOutbound: false,
      });
      // NOTE: DynamoDB's addresses are a regional prefix list known only at deploy time; without a NAT or internet
      // gateway route, HTTPS out reaches only what is in the VPC and the gateway endpoint's prefix list anyway.
      sg.addEgressRule(ec2.Peer.anyIpv4(), ec2.Port.tcp(443), 'HTTPS: API servers in the VPC, DynamoDB endpoint');
      securityGroups = [sg];
    }
    this.functionProps = { vpc: this.vpc, vpcSubnets: { subnets }, securityGroups };
    this.subnets = subnets;
    this.createsSecretStoreEndpoint = props.secretStoreEndpoint ?? true;
  }

  /**
   * The interface endpoint the webhooks function reads its token through, reachable from the functions' security
   * groups on 443 only (none when `secretStoreEndpoint` is false).
   *
   * @example
   * network.addSecretStoreEndpoint('secretsmanager');
   */
  addSecretStoreEndpoint(store: SecretStore): ec2.InterfaceVpcEndpoint | undefined {
    if (!this.createsSecretStoreEndpoint) return undefined;
    const endpoint = new ec2.InterfaceVpcEndpoint(this, 'SecretStoreEndpoint', {
      vpc: this.vpc,
      service:
        store === 'ssm' ? ec2.InterfaceVpcEndpointAwsService.SSM : ec2.InterfaceVpcEndpointAwsService.SECRETS_MANAGER,
      subnets: { subnets: this.subnets },
      privateDnsEnabled: true,
      open: false,
    });
    for (const sg of this.functionProps.securityGroups)
      endpoint.connections.allowFrom(sg, ec2.Port.tcp(443), 'HTTPS from the capi-serverless functions');
    return endpoint;
  }
}
