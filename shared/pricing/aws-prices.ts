// The published AWS list prices the cost model uses, in one place with their source and date. us-east-1, USD,
// no free tier (the free tier would make the idle figures smaller still).

/** Where the prices come from and when they were recorded. */
export const priceSource = {
  region: 'us-east-1',
  currency: 'USD',
  recordedOn: '2025-06-01',
  note:
    'List prices as published on the AWS pricing pages below on the recorded date (DynamoDB on-demand after the ' +
    '2024-11-01 price reduction). Not re-fetched on the benchmark machine, which has no internet access; check ' +
    'the pages before relying on the figures.',
  pages: [
    'https://aws.amazon.com/lambda/pricing/',
    'https://aws.amazon.com/eventbridge/pricing/',
    'https://aws.amazon.com/dynamodb/pricing/on-demand/',
    'https://aws.amazon.com/cloudwatch/pricing/',
    'https://aws.amazon.com/secrets-manager/pricing/',
    'https://aws.amazon.com/eks/pricing/',
    'https://aws.amazon.com/ec2/pricing/on-demand/',
    'https://aws.amazon.com/ebs/pricing/',
    'https://aws.amazon.com/fargate/pricing/',
    'https://aws.amazon.com/vpc/pricing/',
    'https://aws.amazon.com/privatelink/pricing/',
    'https://aws.amazon.com/xray/pricing/',
    'https://aws.amazon.com/sqs/pricing/',
    'https://aws.amazon.com/systems-manager/pricing/',
  ],
  /** Billing rules the model follows, with where AWS states them. */
  rules: [
    'CloudWatch custom metrics: each unique namespace + name + dimension set is one metric, prorated by the hour and ' +
      "metered only when sent (CloudWatch User Guide, 'Analyzing, optimizing, and reducing CloudWatch costs'); EMF " +
      "logs are charged as log ingestion and archival plus the custom metrics generated ('Embedding metrics within logs').",
    'Lambda: the INIT phase of on-demand ZIP functions on managed runtimes is billed like INVOKE since 2025-08-01 ' +
      "(AWS Compute Blog, 'AWS Lambda standardizes billing for INIT Phase').",
  ],
} as const;

/** Unit prices in USD. */
export const awsPrices = {
  /** Lambda, Arm (Graviton), first 7.5 billion GB-seconds a month. */
  lambdaArmPerGbSecond: 0.0000133334,
  lambdaPerMillionRequests: 0.2,
  /** EventBridge custom events (PutEvents), per million 64 KB chunks. */
  eventBridgePerMillionEvents: 1.0,
  /** EventBridge Scheduler, per million invocations (after 14 million free a month). */
  schedulerPerMillionInvocations: 1.0,
  /** DynamoDB on-demand, Standard table class. */
  dynamoDbPerMillionWriteUnits: 0.625,
  dynamoDbPerMillionReadUnits: 0.125,
  /** CloudWatch standard-resolution metric alarm, per alarm-month. */
  cloudWatchAlarmPerMonth: 0.1,
  /** Secrets Manager, per secret-month (the optional kubeconfig secret). */
  secretsManagerPerSecretMonth: 0.4,
  /** The always-on alternative: an EKS control plane, per hour. */
  eksClusterPerHour: 0.1,
  /** One t3.medium worker node (Linux, on demand), per hour. */
  ec2T3MediumPerHour: 0.0416,
  /** EBS gp3, per GB-month. */
  ebsGp3PerGbMonth: 0.08,
  /** Fargate (Linux/x86), per vCPU-hour and per GB-hour. */
  fargatePerVcpuHour: 0.04048,
  fargatePerGbHour: 0.004445,
  /** CloudWatch Logs ingestion (standard class), per GB. */
  cloudWatchLogsPerGbIngested: 0.5,
  /** X-Ray, per million traces recorded (after 100,000 free a month). */
  xrayPerMillionTraces: 5.0,
  /** NAT gateway, per hour and per GB processed. */
  natGatewayPerHour: 0.045,
  natGatewayPerGb: 0.045,
  /** Interface VPC endpoint (PrivateLink), per endpoint per availability zone per hour, and per GB processed. */
  interfaceEndpointPerAzHour: 0.01,
  interfaceEndpointPerGb: 0.01,
  /** CloudWatch custom metric, per metric-month (first 10,000), prorated by the hour it is sent in. */
  cloudWatchCustomMetricPerMonth: 0.3,
  /** CloudWatch Logs storage (archival), per GB-month. */
  cloudWatchLogsPerGbMonthStored: 0.03,
  /** Secrets Manager API calls, per 10,000. */
  secretsManagerPer10kApiCalls: 0.05,
  /** SSM Parameter Store advanced parameter, per parameter-month (standard parameters are free). */
  ssmAdvancedParameterPerMonth: 0.05,
  /** SQS standard queue requests, per million (after the first million free). */
  sqsPerMillionRequests: 0.4,
  /** DynamoDB Standard table storage and continuous backups (point-in-time recovery), per GB-month. */
  dynamoDbStoragePerGbMonth: 0.25,
  dynamoDbPitrPerGbMonth: 0.2,
  /** AWS's month for pricing. */
  hoursPerMonth: 730,
} as const;

export type AwsPrices = typeof awsPrices;
