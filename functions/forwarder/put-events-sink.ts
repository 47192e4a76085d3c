// The forwarder's sink on AWS: each batch one PutEvents request (JSON 1.1 protocol, SigV4-signed on node:crypto),
// reporting the entries EventBridge refused. NOTE: not the AWS SDK: its client alone is about 15 MiB of the
// container's resident memory (measured; docs/benchmarks.md, "The forwarder alone"), a third of the forwarder's budget.
import type { detailTypes, eventSources, ObjectChange } from '#shared/runtime/events.ts';
import { CapiError } from '#shared/errors/index.ts';
import type { EventSink } from '#functions/forwarder/event-batcher.ts';
import { signAwsRequest, type AwsCredentials } from '#functions/forwarder/sign-aws-request.ts';
import { requestText, type TextRequest, type TextResponse } from '#functions/forwarder/request-text.ts';

// NOTE: spelled out rather than imported: events.ts loads zod schemas and the DynamoDB client the forwarder never
// uses; the types make `tsc` fail if the bus contract in events.ts changes.
const source: (typeof eventSources)['forwarder'] = 'capi-serverless.forwarder';
const detailType: (typeof detailTypes)['objectChanged'] = 'Object Changed';

/** PutEvents answered with an error status (the whole batch failed; the outbox retries it). */
export class PutEventsError extends CapiError {}

export type PutEventsSinkOptions = {
  readonly eventBusName: string;
  readonly region: string;
  /** Default `https://events.<region>.amazonaws.com` (AWS_ENDPOINT_URL_EVENTBRIDGE overrides it in main.ts). */
  readonly endpoint?: string;
  readonly getCredentials: () => Promise<AwsCredentials>;
  /** The longest one PutEvents may take (default 10 s); then the outbox retries the batch. */
  readonly timeoutMs?: number;
  readonly request?: (url: string, req: TextRequest) => Promise<TextResponse>;
  readonly now?: () => number;
};

type PutEventsOutput = {
  FailedEntryCount?: number;
  Entries?: { EventId?: string; ErrorCode?: string }[];
  __type?: string;
  message?: string;
  Message?: string;
};

/**
 * A sink sending each batch as one PutEvents request; entries with an `ErrorCode` in the answer are returned as
 * failed so the outbox retries them, and an error status fails the whole batch.
 *
 * @example
 * const sink = createPutEventsSink({ eventBusName: 'capi-serverless', region: 'eu-west-1', getCredentials });
 */
export function createPutEventsSink(options: PutEventsSinkOptions): EventSink {
  const endpoint = new URL(options.endpoint ?? `https://events.${options.region}.amazonaws.com`);
  const request = options.request ?? requestText;
  const now = options.now ?? Date.now;
  return async (batch: readonly ObjectChange[]) => {
    if (batch.length === 0) return [];
    const body = JSON.stringify({
      Entries: batch.map((change) => ({
        EventBusName: options.eventBusName,
        Source: source,
        DetailType: detailType,
        Detail: JSON.stringify(change),
        Resources: [],
      })),
    });
    const headers = signAwsRequest(
      {
        method: 'POST',
        host: endpoint.host,
        path: endpoint.pathname || '/',
        headers: { 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': 'AWSEvents.PutEvents' },
        body,
        region: options.region,
        service: 'events',
      },
      await options.getCredentials(),
      now(),
    );
    const res = await request(endpoint.href, { method: 'POST', headers, body, timeoutMs: options.timeoutMs ?? 10_000 });
    let output: PutEventsOutput = {};
    try {
      output = JSON.parse(res.body) as PutEventsOutput;
    } catch {
      // NOTE: a proxy's HTML error page: reported by status below.
    }
    if (res.statusCode !== 200) {
      const code = (output.__type ?? '').split('#').pop() || `HTTP ${res.statusCode}`;
      throw new PutEventsError(
        `PutEvents to ${options.eventBusName} failed: ${code}: ${output.message ?? output.Message ?? ''}`.trim(),
      );
    }
    if (!output.FailedEntryCount) return [];
    return batch.filter((_, i) => output.Entries?.[i]?.ErrorCode !== undefined);
  };
}
