// The local mode's settings from the environment, parsed once with zod; a bad value names its variable.
import { accessSync, constants } from 'node:fs';
import * as z from 'zod';
import { ValidationError } from '#shared/errors/index.ts';
import { parseEnvironment } from '#shared/runtime/config.ts';

const flag = z.enum(['0', '1', 'true', 'false']).transform((v) => v === '1' || v === 'true');
const ms = (fallback: number) => z.coerce.number().int().positive().default(fallback);

export const LocalEnv = z.object({
  /** An existing management cluster; unset: start the harness's kube-apiserver + etcd. */
  KUBECONFIG: z.string().min(1).optional(),
  /** Exit (0) once the examples are reconciled; exit 1 when that takes longer than the ready timeout. */
  CAPI_SERVERLESS_EXIT_WHEN_READY: flag.default(false),
  CAPI_SERVERLESS_READY_TIMEOUT_MS: ms(5 * 60_000),
  /** How often each controller gets a tick (EventBridge Scheduler's job when deployed). */
  CAPI_SERVERLESS_TICK_MS: ms(15_000),
  /** Apply the bundled examples (default on). */
  CAPI_SERVERLESS_EXAMPLES: flag.default(true),
  /**
   * Run upstream Cluster API's managers beside capi-serverless (default on; ignored with KUBECONFIG, whose cluster
   * runs its own). Off: the fast mode, with no upstream manager and generic CRDs for the example's provider kinds.
   */
  CAPI_SERVERLESS_UPSTREAM: flag.default(true),
  /** The functions' own JSON logs (Powertools); the local mode prints its own progress lines. */
  POWERTOOLS_LOG_LEVEL: z.enum(['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'SILENT', 'CRITICAL']).default('SILENT'),
});

export type LocalConfig = {
  readonly kubeconfigPath: string | undefined;
  readonly exitWhenReady: boolean;
  readonly readyTimeoutMs: number;
  readonly tickMs: number;
  readonly examples: boolean;
  /** Upstream's managers run in the local management cluster (never with an existing cluster). */
  readonly upstream: boolean;
  readonly logLevel: z.infer<typeof LocalEnv>['POWERTOOLS_LOG_LEVEL'];
};

/**
 * Parses the local mode's environment.
 *
 * @example
 * computeLocalConfig({ CAPI_SERVERLESS_EXIT_WHEN_READY: '1' }); // { exitWhenReady: true, tickMs: 15000, ... }
 */
export function computeLocalConfig(env: Readonly<Record<string, string | undefined>>): LocalConfig {
  const e = parseEnvironment(LocalEnv, env);
  if (e.KUBECONFIG !== undefined) {
    try {
      accessSync(e.KUBECONFIG, constants.R_OK);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? 'unreadable';
      throw new ValidationError(`invalid environment: KUBECONFIG: cannot read ${e.KUBECONFIG} (${code})`, {
        fieldPath: 'KUBECONFIG',
        reason: 'InvalidEnvironment',
      });
    }
  }
  return {
    kubeconfigPath: e.KUBECONFIG,
    exitWhenReady: e.CAPI_SERVERLESS_EXIT_WHEN_READY,
    readyTimeoutMs: e.CAPI_SERVERLESS_READY_TIMEOUT_MS,
    tickMs: e.CAPI_SERVERLESS_TICK_MS,
    examples: e.CAPI_SERVERLESS_EXAMPLES,
    upstream: e.CAPI_SERVERLESS_UPSTREAM && e.KUBECONFIG === undefined,
    logLevel: e.POWERTOOLS_LOG_LEVEL,
  };
}
