// Lambda entry of the admission webhooks (behind a Function URL): settings once per cold start, then the middy chain
// in shared/webhooks/ (everything else lives in shared/).
import { computeWebhooksHandlerOptions } from '#shared/webhooks/create-webhook-deps.ts';
import { createWebhooksHandler } from '#shared/webhooks/create-webhooks-handler.ts';

export const handler = createWebhooksHandler(computeWebhooksHandlerOptions(process.env));
