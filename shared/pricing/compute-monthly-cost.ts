// The cost model: measured usage per hour (Lambda invocations and GB-seconds, Scheduler invocations, EventBridge
// events, DynamoDB request units) times the list prices, per month; and the always-on alternatives it replaces.
import type { AwsPrices } from '#shared/pricing/aws-prices.ts';

/** What a deployment uses per hour, as measured (or derived from measurements). */
export type HourlyUsage = {
  readonly lambdaInvocations: number;
  /** Sum over invocations of billed duration (s) × memory (GB). */
  readonly lambdaGbSeconds: number;
  readonly schedulerInvocations: number;
  readonly eventBridgeEvents: number;
  /** Read request units (a strongly consistent read of a row ≤ 4 KB is 1). */
  readonly dynamoDbReadUnits: number;
  /** Write request units (a write of a row ≤ 1 KB is 1; each item of a transaction is 2). */
  readonly dynamoDbWriteUnits: number;
};

/** Costs that do not depend on usage, e.g. the stack's alarms. */
export type FixedMonthly = {
  readonly cloudWatchAlarms: number;
  readonly secrets: number;
};

export type CostLine = {
  readonly item: string;
  readonly quantityPerMonth: number;
  readonly unit: string;
  readonly usd: number;
};

export type MonthlyCost = { readonly lines: readonly CostLine[]; readonly totalUsd: number };

/**
 * Monthly cost of an hourly usage plus fixed items.
 *
 * @example
 * computeMonthlyCost({ lambdaInvocations: 36, lambdaGbSeconds: 4, schedulerInvocations: 36, eventBridgeEvents: 0,
 *   dynamoDbReadUnits: 1248, dynamoDbWriteUnits: 0 }, { cloudWatchAlarms: 6, secrets: 0 }, awsPrices).totalUsd;
 */
export function computeMonthlyCost(usage: HourlyUsage, fixed: FixedMonthly, prices: AwsPrices): MonthlyCost {
  const h = prices.hoursPerMonth;
  const perMillion = (n: number, price: number) => (n * h * price) / 1_000_000;
  const lines: CostLine[] = [
    {
      item: 'Lambda requests',
      quantityPerMonth: usage.lambdaInvocations * h,
      unit: 'requests',
      usd: perMillion(usage.lambdaInvocations, prices.lambdaPerMillionRequests),
    },
    {
      item: 'Lambda arm64 duration',
      quantityPerMonth: usage.lambdaGbSeconds * h,
      unit: 'GB-s',
      usd: usage.lambdaGbSeconds * h * prices.lambdaArmPerGbSecond,
    },
    {
      item: 'EventBridge Scheduler invocations',
      quantityPerMonth: usage.schedulerInvocations * h,
      unit: 'invocations',
      usd: perMillion(usage.schedulerInvocations, prices.schedulerPerMillionInvocations),
    },
    {
      item: 'EventBridge events',
      quantityPerMonth: usage.eventBridgeEvents * h,
      unit: 'events',
      usd: perMillion(usage.eventBridgeEvents, prices.eventBridgePerMillionEvents),
    },
    {
      item: 'DynamoDB on-demand reads',
      quantityPerMonth: usage.dynamoDbReadUnits * h,
      unit: 'RRU',
      usd: perMillion(usage.dynamoDbReadUnits, prices.dynamoDbPerMillionReadUnits),
    },
    {
      item: 'DynamoDB on-demand writes',
      quantityPerMonth: usage.dynamoDbWriteUnits * h,
      unit: 'WRU',
      usd: perMillion(usage.dynamoDbWriteUnits, prices.dynamoDbPerMillionWriteUnits),
    },
    {
      item: 'CloudWatch alarms',
      quantityPerMonth: fixed.cloudWatchAlarms,
      unit: 'alarms',
      usd: fixed.cloudWatchAlarms * prices.cloudWatchAlarmPerMonth,
    },
    {
      item: 'Secrets Manager',
      quantityPerMonth: fixed.secrets,
      unit: 'secrets',
      usd: fixed.secrets * prices.secretsManagerPerSecretMonth,
    },
  ];
  return { lines, totalUsd: lines.reduce((sum, line) => sum + line.usd, 0) };
}

export type AlwaysOnAlternative = { readonly name: string; readonly basis: string; readonly usdPerMonth: number };

/**
 * The always-on alternatives: a dedicated management cluster (EKS control plane + one t3.medium node with an 80 GB
 * gp3 volume) and the controllers alone as one always-on 1 vCPU / 2 GB Fargate task.
 *
 * @example
 * computeAlwaysOnAlternatives(awsPrices); // [{ name: 'dedicated management cluster', usdPerMonth: 109.77, ... }, ...]
 */
export function computeAlwaysOnAlternatives(prices: AwsPrices): readonly AlwaysOnAlternative[] {
  const h = prices.hoursPerMonth;
  return [
    {
      name: 'dedicated management cluster',
      basis: 'EKS control plane + 1 × t3.medium node + 80 GB gp3, always on',
      usdPerMonth: (prices.eksClusterPerHour + prices.ec2T3MediumPerHour) * h + 80 * prices.ebsGp3PerGbMonth,
    },
    {
      name: 'controllers on Fargate-style pricing',
      basis: '1 vCPU + 2 GB, always on',
      usdPerMonth: (prices.fargatePerVcpuHour + 2 * prices.fargatePerGbHour) * h,
    },
  ];
}
