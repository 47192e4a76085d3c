// Sets a condition on the pass's working copy of the provider's conditions, at the pass's clock.
import type { ProviderPass } from '#shared/providers/phases/provider-pass.ts';
import { computeSetCondition } from '#shared/providers/phases/compute-conditions.ts';
import type { ConditionInput } from '#shared/providers/phases/compute-conditions.ts';

export function setPassCondition(pass: ProviderPass, input: ConditionInput): void {
  pass.conditions = computeSetCondition(pass.conditions, input, pass.deps.now());
}
