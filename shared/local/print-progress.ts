// Progress lines of the local mode: one per pass that ran (what triggered it, how it ended, what it changed).
import type { Controller } from '#shared/checkpoint/index.ts';
import type { HandlerResult } from '#shared/runtime/create-controller-handler.ts';
import type { RuntimeEvent } from '#shared/runtime/events.ts';

const clock = (now: Date) => now.toISOString().slice(11, 19);

function triggerOf(event: RuntimeEvent): string {
  if (event['detail-type'] === 'Tick') return 'tick';
  if (event['detail-type'] === 'Passes Requested') return `fanned out: ${event.detail.trigger}`;
  if (event['detail-type'] === 'Pass Due') return `due at ${new Date(event.detail.dueAt).toISOString()}`;
  const d = event.detail;
  return `${d.type} ${d.kind} ${d.namespace ? `${d.namespace}/` : ''}${d.name}`;
}

/**
 * The lines to print for one invocation (none when every pass was skipped): pure, given the time.
 *
 * @example
 * computeProgressLines('addons', event, result, new Date());
 * // ['10:15:02 addons    ClusterResourceSet default/demo-cni → Success (ADDED ClusterResourceSet default/demo-cni)', '           + applied …']
 */
export function computeProgressLines(
  controller: Controller,
  event: RuntimeEvent,
  result: HandlerResult,
  now: Date,
): string[] {
  const head = `${clock(now)} ${controller.padEnd(9)}`;
  if (result.status === 'Rejected') return [`${head} rejected event: ${result.reason}`];
  const lines: string[] = [];
  for (const pass of result.passes) {
    if (pass.status !== 'Ran') continue;
    const key = `${pass.key.kind} ${pass.key.namespace ? `${pass.key.namespace}/` : ''}${pass.key.name}`;
    const next = pass.nextAttemptAt === undefined ? '' : `, next pass at ${clock(new Date(pass.nextAttemptAt))}`;
    const why = pass.result === 'Error' ? `: ${pass.reason}` : '';
    lines.push(`${head} ${key} → ${pass.result ?? pass.reason}${why} (${triggerOf(event)}${next})`);
    for (const change of pass.changed ?? []) lines.push(`${' '.repeat(19)}+ ${change}`);
  }
  return lines;
}
