// The functions' fan-out sink on AWS: PutEvents to the capi-serverless bus, ten entries per request (the PutEvents
// limit), reporting the requests EventBridge refused or that could not be sent, so the caller runs them itself.
import { PutEventsCommand, type EventBridgeClient } from '@aws-sdk/client-eventbridge';
import type { Logger } from '@aws-lambda-powertools/logger';
import { callWithDeadline, dependencies } from '#shared/deadline/index.ts';
import { errorMessage } from '#shared/errors/index.ts';
import { detailTypes, eventSources, type PassesRequested } from '#shared/runtime/events.ts';
import type { FanOutSink } from '#shared/runtime/fan-out.ts';
import { mapLimit } from '#shared/runtime/map-limit.ts';

export type EventBridgeFanOutOptions = {
  readonly client: EventBridgeClient;
  readonly eventBusName: string;
  readonly logger: Logger;
  /** The longest one PutEvents may take, the SDK's retries included (default 5 s). */
  readonly timeoutMs?: number;
};

const maxEntriesPerPut = 10;
const putConcurrency = 8;

/**
 * A sink putting each request as one `Passes Requested` entry; a refused entry or a failed PutEvents comes back to
 * the caller (logged), never retried here: the caller runs those passes in its own invocation.
 *
 * @example
 * const fanOut = createEventBridgeFanOut({ client: new EventBridgeClient({}), eventBusName: 'capi-serverless', logger });
 */
export function createEventBridgeFanOut(options: EventBridgeFanOutOptions): FanOutSink {
  return async (requests) => {
    const batches: PassesRequested[][] = [];
    for (let from = 0; from < requests.length; from += maxEntriesPerPut)
      batches.push(requests.slice(from, from + maxEntriesPerPut));
    // NOTE: a fleet of 100,000 Clusters is 10,000 entries, 1,000 PutEvents: a few at a time, not one after another.
    const refused = await mapLimit(batches, putConcurrency, (batch) => putBatch(options, batch));
    return refused.flat();
  };
}

async function putBatch(options: EventBridgeFanOutOptions, batch: PassesRequested[]): Promise<PassesRequested[]> {
  const command = new PutEventsCommand({
    Entries: batch.map((request) => ({
      EventBusName: options.eventBusName,
      Source: eventSources.fanOut,
      DetailType: detailTypes.passesRequested,
      Detail: JSON.stringify(request),
      Resources: [],
    })),
  });
  try {
    const output = await callWithDeadline(
      dependencies.eventBridge,
      'PutEvents',
      options.timeoutMs ?? 5_000,
      (abortSignal) => options.client.send(command, { abortSignal }),
    );
    const failed = batch.filter((_, i) => output.Entries?.[i]?.ErrorCode !== undefined);
    if (failed.length > 0)
      options.logger.warn('fan-out: entries refused by EventBridge, running them here', {
        refused: failed.length,
        codes: [...new Set((output.Entries ?? []).map((e) => e.ErrorCode).filter(Boolean))],
      });
    return failed;
  } catch (err) {
    options.logger.warn('fan-out: PutEvents failed, running the batches here', {
      batches: batch.length,
      error: errorMessage(err),
    });
    return batch;
  }
}
