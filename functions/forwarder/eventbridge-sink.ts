// The forwarder's sink on AWS: PutEvents to the capi-serverless bus, reporting the entries EventBridge refused.
import { PutEventsCommand, type EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { detailTypes, eventSources } from '#shared/runtime/events.ts';
import type { EventSink } from '#functions/forwarder/event-batcher.ts';

export type EventBridgeSinkOptions = {
  readonly client: EventBridgeClient;
  readonly eventBusName: string;
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
    const output = await options.client.send(
      new PutEventsCommand({
        Entries: batch.map((change) => ({
          EventBusName: options.eventBusName,
          Source: eventSources.forwarder,
          DetailType: detailTypes.objectChanged,
          Detail: JSON.stringify(change),
          Resources: [],
        })),
      }),
    );
    if (!output.FailedEntryCount) return [];
    return batch.filter((_, i) => output.Entries?.[i]?.ErrorCode !== undefined);
  };
}
