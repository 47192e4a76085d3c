// The Lambda handler behind the webhooks' Function URL: a middy chain that turns the HTTP request into a parsed
// AdmissionReview (or answers 4xx), picks the mode from the path (`/mutate`, `/validate`) and calls reviewAdmission.
import middy from '@middy/core';
import type { MiddlewareObj } from '@middy/core';
import * as z from 'zod';
import { errorMessage } from '#shared/errors/index.ts';
import { AdmissionReview } from '#shared/webhooks/admission-review.ts';
import { reviewAdmission, type AdmissionMode, type WebhookDeps } from '#shared/webhooks/review-admission.ts';

/** The fields of a Lambda Function URL event (payload format 2.0) the handler reads. */
export const FunctionUrlEvent = z.object({
  rawPath: z.string(),
  body: z.string().optional(),
  isBase64Encoded: z.boolean().optional(),
  requestContext: z.object({ http: z.object({ method: z.string() }) }),
});
export type FunctionUrlEvent = z.infer<typeof FunctionUrlEvent>;

/** A Function URL response. */
export type FunctionUrlResult = {
  readonly statusCode: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
};

type ParsedRequest = { readonly mode: AdmissionMode; readonly review: AdmissionReview };

export type WebhooksHandlerOptions = {
  /** Dependencies of an invocation (the reader over a management-cluster client). */
  readonly getDeps: () => Promise<WebhookDeps>;
  /**
   * A secret first path segment (`/<token>/validate`) the API server must call; the Function URL is public, and
   * `clientConfig.url` allows a path but no query or credentials. Unset: no token.
   */
  readonly pathToken?: string | undefined;
};

const json = { 'content-type': 'application/json' } as const;

function reply(statusCode: number, body: unknown): FunctionUrlResult {
  return { statusCode, headers: json, body: JSON.stringify(body) };
}

function modeOf(path: string, token: string | undefined): AdmissionMode | undefined {
  const parts = path.split('/').filter(Boolean);
  if (token !== undefined && parts.shift() !== token) return undefined;
  if (parts.length !== 1) return undefined;
  return parts[0] === 'mutate' || parts[0] === 'validate' ? parts[0] : undefined;
}

/** Middleware: the event becomes `{ mode, review }`, or the request is answered 404/405/400 right away. */
export function parseAdmissionRequest(pathToken: string | undefined): MiddlewareObj<unknown, FunctionUrlResult> {
  if (pathToken !== undefined && !/^[A-Za-z0-9_-]{16,}$/.test(pathToken))
    throw new Error('webhook path token must be at least 16 characters of [A-Za-z0-9_-]');
  return {
    name: 'parseAdmissionRequest',
    before: (request) => {
      const event = FunctionUrlEvent.safeParse(request.event);
      if (!event.success) return reply(400, { message: 'not a Function URL event' });
      const mode = modeOf(event.data.rawPath, pathToken);
      if (!mode) return reply(404, { message: 'not found' });
      if (event.data.requestContext.http.method !== 'POST') return reply(405, { message: 'use POST' });
      const text = event.data.isBase64Encoded
        ? Buffer.from(event.data.body ?? '', 'base64').toString('utf8')
        : (event.data.body ?? '');
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch (err) {
        return reply(400, { message: `body is not JSON: ${errorMessage(err)}` });
      }
      const review = AdmissionReview.safeParse(body);
      if (!review.success) {
        const problems = review.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
        return reply(400, { message: `not an admission.k8s.io/v1 AdmissionReview: ${problems}` });
      }
      const parsed: ParsedRequest = { mode, review: review.data };
      request.event = parsed;
      return undefined;
    },
  };
}

export type WebhooksHandler = (event: unknown, context?: unknown) => Promise<FunctionUrlResult>;

/**
 * Builds the webhooks' Lambda handler; `functions/webhooks.ts` exports it, the integration test serves it over HTTPS.
 *
 * @example
 * export const handler = createWebhooksHandler({ getDeps: async () => ({ reader: createWebhookReader(kube) }) });
 */
export function createWebhooksHandler(options: WebhooksHandlerOptions): WebhooksHandler {
  const dispatch = async (event: unknown): Promise<FunctionUrlResult> => {
    const { mode, review } = event as ParsedRequest;
    return reply(200, await reviewAdmission(await options.getDeps(), mode, review));
  };
  const handler = middy<unknown, FunctionUrlResult>(dispatch as never, { timeoutEarlyInMillis: 0 }).use(
    parseAdmissionRequest(options.pathToken),
  );
  return (event, context) => handler(event, (context ?? {}) as never);
}
