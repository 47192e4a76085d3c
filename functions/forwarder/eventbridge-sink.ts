// The forwarder's sink on AWS: PutEvents to the capi-serverless bus, reporting the entries EventBridge refused.
import { PutEventsCommand, type EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { callWithDeadline, dependencies } from '#shared/deadline/index.ts';
import type { detailTypes, eventSources } from '#shared/runtime/events.ts';
import type { EventSink } from '#functions/forwarder/event-batcher.ts';

// NOTE: spelled out rather than imported: events.ts loads zod schemas and the DynamoDB client the forwarder never
// uses; the types make `tsc` fail if the bus contract in events.ts changes.
const source: (typeof eventSources)['forwarder'] = 'capi-serverless.forwarder';
const detailType: (typeof detailTypes)['objectChanged'] = 'Object Changed';

export type EventBridgeSinkOptions = {
  readonly client: EventBridgeClient;
  readonly eventBusName: string;
  /** The longest one PutEvents may take, retries included (default 10 s); then the outbox retries the batch. */
  readonly timeoutMs?: number;
};

/**
 * A sink sending each batch as one PutEvents request (the SDK retries throttling and 5xx itself); entries with
 * an `ErrorCode` in the answer are returned as failed so the outbox retries them.
 *
 * @example
 * const sink = createEventBridgeSink({ client: new EventBridgeClient({}), eventBusName: 'capi-serverless' });
 */
export function createEventBridgeSink(options: EventBridgeSinkOptions): EventSink {
  return async (batch) => {
    if (batch.length === 0) return [];
    const command = new PutEventsCommand({
      Entries: batch.map((change) => ({
        EventBusName: options.eventBusName,
        Source: source,
        DetailType: detailType,
        Detail: JSON.stringify(change),
        Resources: [],
      })),
    });
    const output = await callWithDeadline(
      dependencies.eventBridge,
      'PutEvents',
      options.timeoutMs ?? 10_000,
      (abortSignal) => options.client.send(command, { abortSignal }),
    );
    if (!output.FailedEntryCount) return [];
    return batch.filter((_, i) => output.Entries?.[i]?.ErrorCode !== undefined);
  };
}
