// Cluster API v1beta1 conditions (`status.conditions`), shared by every kind we write status for.
import * as z from 'zod';
import { timestamp } from '#shared/api/meta.ts';

export const ConditionStatus = { True: 'True', False: 'False', Unknown: 'Unknown' } as const;
export type ConditionStatus = (typeof ConditionStatus)[keyof typeof ConditionStatus];

export const ConditionSeverity = { Error: 'Error', Warning: 'Warning', Info: 'Info', None: '' } as const;
export type ConditionSeverity = (typeof ConditionSeverity)[keyof typeof ConditionSeverity];

export const Condition = z.object({
  type: z.string().min(1),
  status: z.enum(['True', 'False', 'Unknown']),
  severity: z.enum(['Error', 'Warning', 'Info', '']).optional(),
  lastTransitionTime: timestamp(),
  reason: z.string().optional(),
  message: z.string().optional(),
});
export type Condition = z.infer<typeof Condition>;

/**
 * `status.conditions` as upstream v1beta1 declares it: a plain list, so server-side apply treats it as atomic.
 * NOTE: we must work against upstream's CRDs too, so we never rely on a list-map merge here.
 */
export const Conditions = z.array(Condition);
