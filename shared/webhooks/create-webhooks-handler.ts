// The Lambda handler behind the webhooks' Function URL: a middy chain that turns the HTTP request into a parsed
// AdmissionReview (or answers 4xx), picks the mode from the path (`/<token>/mutate`, `/<token>/validate`) and calls
// reviewAdmission; `GET /<token>/healthz` answers the forwarder's reachability probe. The path token is mandatory:
// without one configured every request is refused before any read.
import { createHash, timingSafeEqual } from 'node:crypto';
import middy from '@middy/core';
import type { MiddlewareObj } from '@middy/core';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import * as z from 'zod';
import { errorMessage } from '#shared/errors/index.ts';
import {
  addMetricWhenNonZero,
  passMetricNames,
  publishMetricsWhenAny,
} from '#shared/runtime/middlewares/record-metrics.ts';
import { webhookHealthPath } from '#shared/health/webhook-probe.ts';
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
   * The secret first path segment (`/<token>/validate`) the API server must call; the Function URL is public, and
   * `clientConfig.url` allows a path but no query, headers or credentials.
   */
  readonly pathToken?: string | undefined;
  /**
   * The accepted tokens read per request (e.g. from Secrets Manager, so a rotation needs no redeploy); any one of
   * them is accepted, which lets a rotation keep the old token valid until the webhook configurations are updated.
   * With neither `pathToken` nor `getPathTokens`, or when this yields no token, every request is refused (403).
   */
  readonly getPathTokens?: (() => Promise<readonly string[]>) | undefined;
  /**
   * Powertools Metrics (Lambda): an invocation that fails or answers 5xx (the API server then applies failurePolicy:
   * writes refused) counts 1 toward `Unhealthy`, the stack's alarmed metric; nothing is published otherwise.
   */
  readonly metrics?: Metrics | undefined;
};

const json = { 'content-type': 'application/json' } as const;

function reply(statusCode: number, body: unknown): FunctionUrlResult {
  return { statusCode, headers: json, body: JSON.stringify(body) };
}

const tokenPattern = /^[A-Za-z0-9_-]{16,}$/;

/**
 * The tokens of a token secret's string: one or more tokens separated by whitespace (two during a rotation).
 *
 * @example
 * parsePathTokens('new-token-0123456789 old-token-0123456789'); // ['new-token-0123456789', 'old-token-0123456789']
 */
export function parsePathTokens(text: string): string[] {
  const tokens = text.split(/\s+/).filter(Boolean);
  if (tokens.some((t) => !tokenPattern.test(t)))
    throw new Error('webhook path token must be at least 16 characters of [A-Za-z0-9_-]');
  return tokens;
}

// NOTE: compares digests, so the time taken says nothing about how much of a token matched.
const digestOf = (text: string) => createHash('sha256').update(text).digest();
function isAcceptedToken(candidate: string, tokens: readonly string[]): boolean {
  const digest = digestOf(candidate);
  let accepted = false;
  for (const token of tokens) accepted = timingSafeEqual(digest, digestOf(token)) || accepted;
  return accepted;
}

function modeOf(parts: readonly string[]): AdmissionMode | undefined {
  if (parts.length !== 1) return undefined;
  return parts[0] === 'mutate' || parts[0] === 'validate' ? parts[0] : undefined;
}

/**
 * Middleware: refuses (403) a request whose first path segment is not an accepted token, before anything is read;
 * then the event becomes `{ mode, review }`, or the request is answered 404/405/400 right away.
 */
export function parseAdmissionRequest(
  options: Pick<WebhooksHandlerOptions, 'pathToken' | 'getPathTokens' | 'metrics'>,
): MiddlewareObj<unknown, FunctionUrlResult> {
  const fixed = options.pathToken === undefined ? [] : parsePathTokens(options.pathToken);
  const getTokens = async (): Promise<readonly string[]> => [
    ...fixed,
    ...(options.getPathTokens ? await options.getPathTokens() : []),
  ];
  return {
    name: 'parseAdmissionRequest',
    before: async (request) => {
      const event = FunctionUrlEvent.safeParse(request.event);
      if (!event.success) return reply(400, { message: 'not a Function URL event' });
      let tokens: readonly string[];
      try {
        tokens = await getTokens();
      } catch (err) {
        // NOTE: fails closed; the message names what failed but never a token. An early answer skips the `after`
        // steps, so it is counted here.
        if (options.metrics) recordUnhealthy(options.metrics);
        return reply(503, { message: `webhook path tokens unavailable: ${errorMessage(err)}` });
      }
      if (tokens.length === 0) return reply(403, { message: 'forbidden: no webhook path token is configured' });
      const parts = event.data.rawPath.split('/').filter(Boolean);
      if (!isAcceptedToken(parts.shift() ?? '', tokens)) return reply(403, { message: 'forbidden' });
      // NOTE: the forwarder's reachability probe (shared/health/webhook-probe.ts): an answer here proves DNS, egress,
      // the URL, the function and the token, and reads nothing.
      if (parts.length === 1 && parts[0] === webhookHealthPath)
        return event.data.requestContext.http.method === 'GET'
          ? reply(200, { status: 'ok' })
          : reply(405, { message: 'use GET' });
      const mode = modeOf(parts);
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
  const handler = middy<unknown, FunctionUrlResult>(dispatch as never, { timeoutEarlyInMillis: 0 });
  if (options.metrics) handler.use(recordWebhookHealth(options.metrics));
  handler.use(parseAdmissionRequest(options));
  return (event, context) => handler(event, (context ?? {}) as never);
}

/**
 * Middleware: an answer of 5xx, or a failed invocation, counts 1 toward `Unhealthy` (published at once); a 4xx (a
 * stranger's request, a refused object) is not unhealthy.
 */
export function recordWebhookHealth(metrics: Metrics): MiddlewareObj<unknown, FunctionUrlResult> {
  const unhealthy = () => recordUnhealthy(metrics);
  return {
    name: 'recordWebhookHealth',
    after: (request) => {
      if ((request.response?.statusCode ?? 200) >= 500) unhealthy();
    },
    onError: () => unhealthy(),
  };
}

function recordUnhealthy(metrics: Metrics): void {
  addMetricWhenNonZero(metrics, passMetricNames.unhealthy, 1);
  publishMetricsWhenAny(metrics);
}
