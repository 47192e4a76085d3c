// The forwarder's settings from its environment, read once at start-up; a bad or missing value fails with the
// variable's name. NOTE: no zod here: the forwarder's container loads as little as it can (see main.ts).
import { CapiError } from '#shared/errors/index.ts';
import type { SecretWatch } from '#functions/forwarder/default-targets.ts';

/** A setting is missing or malformed; `fieldPath` names the environment variable. */
export class ForwarderConfigError extends CapiError {}

export type ForwarderConfig = {
  readonly eventBusName: string;
  readonly region: string;
  /** PutEvents endpoint override (AWS_ENDPOINT_URL_EVENTBRIDGE, else AWS_ENDPOINT_URL, as the AWS SDKs read them). */
  readonly endpoint: string | undefined;
  readonly coalesceMs: number;
  readonly secrets: SecretWatch;
  readonly httpPort: number;
  readonly wedgedAfterMs: number;
  /** The forwarder's namespace and pod (downward API): where its heartbeat Lease is renewed, and by whom. */
  readonly podNamespace: string;
  readonly podName: string;
};

function integer(
  env: Readonly<Record<string, string | undefined>>,
  name: string,
  def: number,
  min: number,
  max: number,
) {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new ForwarderConfigError(`${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(raw)}`, {
      fieldPath: name,
      reason: 'InvalidSetting',
    });
  }
  return n;
}

function required(env: Readonly<Record<string, string | undefined>>, ...names: string[]): string {
  for (const name of names) if (env[name]) return env[name];
  throw new ForwarderConfigError(`${names.join(' or ')} must be set`, {
    fieldPath: names[0]!,
    reason: 'MissingSetting',
  });
}

/**
 * Reads and checks the settings.
 *
 * @example
 * parseForwarderConfig({ EVENT_BUS_NAME: 'capi-serverless', AWS_REGION: 'eu-west-1' }).httpPort; // 8080
 */
export function parseForwarderConfig(env: Readonly<Record<string, string | undefined>>): ForwarderConfig {
  const scope = env['SECRET_SCOPE'] || 'resource-set';
  if (scope !== 'resource-set' && scope !== 'all') {
    throw new ForwarderConfigError(`SECRET_SCOPE must be resource-set or all, got ${JSON.stringify(scope)}`, {
      fieldPath: 'SECRET_SCOPE',
      reason: 'InvalidSetting',
    });
  }
  return {
    eventBusName: required(env, 'EVENT_BUS_NAME'),
    region: required(env, 'AWS_REGION', 'AWS_DEFAULT_REGION'),
    endpoint: env['AWS_ENDPOINT_URL_EVENTBRIDGE'] || env['AWS_ENDPOINT_URL'] || undefined,
    coalesceMs: integer(env, 'COALESCE_MS', 500, 0, 2_000),
    secrets: { scope, ...(env['SECRET_LABEL_SELECTOR'] ? { labelSelector: env['SECRET_LABEL_SELECTOR'] } : {}) },
    httpPort: integer(env, 'FORWARDER_HTTP_PORT', 8080, 0, 65_535),
    wedgedAfterMs: integer(env, 'FORWARDER_WEDGED_AFTER_SECONDS', 300, 30, 86_400) * 1000,
    podNamespace: env['POD_NAMESPACE'] || 'capi-serverless-system',
    podName: env['POD_NAME'] || 'capi-serverless-forwarder',
  };
}
