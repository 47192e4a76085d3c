// AWS list prices (one file, with source and date), the stack's billable facts read from its synthesized template,
// the measured per-change profile, and the pure cost model that prices a fleet's month for B and for A.
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
export { computeAlongPoints, computeForwarderRss } from '#shared/pricing/compute-forwarder-rss.ts';
export type { AlongPoints, ForwarderRss, RssPoint } from '#shared/pricing/compute-forwarder-rss.ts';
export { computeForwarderCpu } from '#shared/pricing/compute-forwarder-cpu.ts';
export type { ForwarderCpu, IdleCpuPoint } from '#shared/pricing/compute-forwarder-cpu.ts';
export {
  computeMarginalCost,
  costAssumptions,
  monitoringBasis,
  userTypes,
} from '#shared/pricing/compute-marginal-cost.ts';
export type {
  CostInputs,
  MarginalCost,
  MarginalLine,
  PodRequests,
  UserType,
} from '#shared/pricing/compute-marginal-cost.ts';
export {
  computeMonthlyActivity,
  defaultChangeMix,
  fleetWideChanges,
} from '#shared/pricing/compute-monthly-activity.ts';
export type { ChangeMix, MonthlyActivity } from '#shared/pricing/compute-monthly-activity.ts';
export { changeTypes } from '#shared/pricing/measured-profile-types.ts';
export type { ChangeFigures, ChangeType, MeasuredProfile } from '#shared/pricing/measured-profile-types.ts';
export { measuredProfile } from '#shared/pricing/measured-profile.ts';
export { clusterControllers, objectRow, passWriteUnits } from '#shared/pricing/pass-write-units.ts';
export { readDeployedStack, resourcePricing } from '#shared/pricing/read-deployed-stack.ts';
export type { DeployedFunction, DeployedStack } from '#shared/pricing/read-deployed-stack.ts';
export { forwarderValues, readPodRequests } from '#shared/pricing/read-pod-requests.ts';
// NOTE: synthesize-stack.ts (aws-cdk-lib and infra/, seconds to load) is imported directly where it is needed.
export type { CfnTemplate, StackVariant } from '#shared/pricing/synthesize-stack.ts';
export { computeControllerMemory, controllerMemoryBounds } from '#shared/pricing/compute-controller-memory.ts';
export type { MemoryCandidate } from '#shared/pricing/compute-controller-memory.ts';
