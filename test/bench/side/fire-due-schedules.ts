// What EventBridge Scheduler does with the one-time schedules the functions create, for the side-by-side bench: the
// schedules live in a real Scheduler API (moto's server, which stores them but never fires them); this polls the
// group and fires each schedule whose `at(...)` time has come (deleted first, as `ActionAfterCompletion: DELETE`
// does, then its input handed to the function), so a requeued pass runs at its due time, as deployed.
import {
  GetScheduleCommand,
  ListSchedulesCommand,
  ResourceNotFoundException,
  type SchedulerClient,
} from '@aws-sdk/client-scheduler';
import { errorMessage } from '#shared/errors/index.ts';
import { parseAtExpression } from '#shared/runtime/compute-wake-up.ts';
import { fireSchedule, type StoredSchedule } from '#test/support/harness/moto.ts';

export type ScheduleFiring = {
  /** Schedules fired so far (each one Scheduler invocation billed). */
  fired(): number;
  stop(): Promise<void>;
};

export type ScheduleFiringOptions = {
  readonly client: SchedulerClient;
  readonly groupName: string;
  /** The function the schedule targets, with its input parsed (the Pass Due event). */
  readonly invoke: (event: unknown) => Promise<unknown>;
  readonly onError?: (message: string) => void;
  /** How often the group is listed (default 1 s): a schedule fires at most this late. */
  readonly intervalMs?: number;
};

/**
 * Polls the schedule group and fires the due schedules until `stop()`; an invocation runs in the background, as
 * Scheduler's asynchronous Lambda invocation does.
 *
 * @example
 * const firing = startScheduleFiring({ client, groupName, invoke: (event) => handler(event, context) });
 */
export function startScheduleFiring(options: ScheduleFiringOptions): ScheduleFiring {
  const { client, groupName } = options;
  // NOTE: GetSchedule only for a schedule new or modified since it was last read (ListSchedules has no expression).
  const known = new Map<string, { modified: number; schedule: StoredSchedule }>();
  const running = new Set<Promise<unknown>>();
  // NOTE: a schedule being fired (deleted, then invoked) is listed until its delete completes: fire it once.
  const firing = new Set<string>();
  let fired = 0;
  let stopped = false;
  const report = (message: string) => options.onError?.(message);

  async function poll(): Promise<void> {
    const listed = [];
    let token: string | undefined;
    do {
      const page = await client.send(new ListSchedulesCommand({ GroupName: groupName, NextToken: token }));
      listed.push(...(page.Schedules ?? []));
      token = page.NextToken;
    } while (token);
    const now = Date.now();
    for (const name of [...known.keys()]) if (!listed.some((s) => s.Name === name)) known.delete(name);
    for (const summary of listed) {
      const name = summary.Name ?? '';
      const modified = summary.LastModificationDate?.getTime() ?? 0;
      let entry = known.get(name);
      if (!entry || entry.modified !== modified) {
        const got = await client
          .send(new GetScheduleCommand({ GroupName: groupName, Name: name }))
          .catch((err: unknown) => {
            // NOTE: fired (deleted) between the list and this read.
            if (err instanceof ResourceNotFoundException) return undefined;
            throw err;
          });
        if (!got) continue;
        entry = {
          modified,
          schedule: {
            name,
            expression: got.ScheduleExpression ?? '',
            targetArn: got.Target?.Arn ?? '',
            input: got.Target?.Input ?? '',
            actionAfterCompletion: got.ActionAfterCompletion,
          },
        };
        known.set(name, entry);
      }
      const atMs = parseAtExpression(entry.schedule.expression);
      const once = `${name}@${modified}`;
      if (atMs === undefined || atMs > now || firing.has(once)) continue;
      known.delete(name);
      firing.add(once);
      fired++;
      const run = fireSchedule(client, groupName, entry.schedule, new Date(atMs), options.invoke)
        .catch((err: unknown) => report(`schedule ${name} failed: ${errorMessage(err)}`))
        .finally(() => {
          firing.delete(once);
          running.delete(run);
        });
      running.add(run);
    }
  }

  const intervalMs = options.intervalMs ?? 1_000;
  const loop = (async () => {
    while (!stopped) {
      try {
        await poll();
      } catch (err) {
        report(`listing the schedules failed: ${errorMessage(err)}`);
      }
      await new Promise((r) => setTimeout(r, intervalMs));
    }
  })();
  return {
    fired: () => fired,
    async stop() {
      stopped = true;
      await loop;
      await Promise.all([...running]);
    },
  };
}
