// Differences between upstream's topology controller and capi-serverless that the differential accepts: each one is
// listed in README "Deliberate differences from upstream" (or, until fixed, diagnosed with its evidence in
// test/diff/results/report.md). An unlisted difference fails `npm run test:diff`.
import type { KnownDifference } from './compare.ts';

export const knownDifferences: readonly KnownDifference[] = [];
