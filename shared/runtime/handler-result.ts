// What one controller invocation returns, in its own module so the handler and its metrics middleware both name it
// and neither imports the other.
import type { TickReport } from '#shared/runtime/run-tick.ts';
import type { WakeUpDeleteReport, WakeUpReport } from '#shared/runtime/scheduler-wake-ups.ts';
import type { PassReport } from '#shared/runtime/types.ts';

/** What an invocation returns (and what the local bus prints). */
export type HandlerResult =
  | { readonly status: 'Rejected'; readonly reason: string }
  | {
      readonly status: 'Handled';
      readonly eventId: string;
      readonly passes: readonly PassReport[];
      readonly tick?: Omit<TickReport, 'passes'>;
      /** Passes handed to other invocations (fan-out), not in `passes`. */
      readonly handedOff?: number;
      /** The mapping ran short of time: the rest of its list went to another invocation. */
      readonly mappingContinued?: boolean;
      /** One-time schedules for passes that asked to run again (with a wake-up sink). */
      readonly wakeUps?: WakeUpReport;
      /** Deleted one-time schedules of passes that no longer ask to run again (with a delete sink). */
      readonly wakeUpsDeleted?: WakeUpDeleteReport;
    };
