// AWS list prices (one file, with source and date) and the pure cost model that turns measured usage into a
// monthly bill beside the always-on alternatives.
export { awsPrices, priceSource } from '#shared/pricing/aws-prices.ts';
export type { AwsPrices } from '#shared/pricing/aws-prices.ts';
export { computeAlwaysOnAlternatives, computeMonthlyCost } from '#shared/pricing/compute-monthly-cost.ts';
export type {
  AlwaysOnAlternative,
  CostLine,
  FixedMonthly,
  HourlyUsage,
  MonthlyCost,
} from '#shared/pricing/compute-monthly-cost.ts';
export { computeMarginalCost, costAssumptions, networkPaths } from '#shared/pricing/compute-marginal-cost.ts';
export type {
  FleetInputs,
  MarginalCost,
  MarginalLine,
  MeasuredProfile,
  NetworkPath,
} from '#shared/pricing/compute-marginal-cost.ts';
export { measuredProfile } from '#shared/pricing/measured-profile.ts';
