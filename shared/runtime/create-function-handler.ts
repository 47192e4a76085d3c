// The Lambda entry of a controller: config from the environment and the logger once per cold start, then the
// controller handler with its wired reconciler.
import { CapiError } from '#shared/errors/index.ts';
import type { Controller } from '#shared/checkpoint/index.ts';
import { computeRuntimeConfig } from '#shared/runtime/config.ts';
import { createControllerHandler, type ControllerHandler } from '#shared/runtime/create-controller-handler.ts';
import { createLogger, createRuntimeDepsFactory } from '#shared/runtime/create-runtime-deps.ts';
import { reconcilers } from '#shared/runtime/reconcilers.ts';
import type { Reconciler } from '#shared/runtime/types.ts';

export class ReconcilerNotWiredError extends CapiError {}

/**
 * Builds a function's handler at module scope (cold start). Throws at cold start when the environment is invalid
 * or no reconciler is wired for the controller, so a broken deployment fails loudly instead of dropping events.
 *
 * @example
 * export const handler = createFunctionHandler('topology'); // functions/topology.ts
 */
export function createFunctionHandler(
  controller: Controller,
  env: Readonly<Record<string, string | undefined>> = process.env,
  wired: Readonly<Partial<Record<Controller, Reconciler>>> = reconcilers,
): ControllerHandler {
  const config = computeRuntimeConfig(env);
  const reconciler = wired[controller];
  if (!reconciler) {
    throw new ReconcilerNotWiredError(`no ${controller} reconciler is wired in shared/runtime/reconcilers.ts`, {
      reason: 'ReconcilerNotWired',
    });
  }
  const logger = createLogger(controller, config);
  return createControllerHandler({ reconciler, logger, getDeps: createRuntimeDepsFactory(controller, config, logger) });
}
