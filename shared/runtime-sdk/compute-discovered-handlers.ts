// What a discovery answer registers: handlers defaulted and validated as upstream does, named
// `<handler>.<ExtensionConfig name>`. Pure.
import type { DiscoveryResponse, ExtensionConfig, ExtensionHandler } from '#shared/api/runtime-extension.ts';
import { ValidationError } from '#shared/errors/index.ts';
import { defaultHandlerTimeoutSeconds, isKnownHook } from '#shared/runtime-sdk/catalog.ts';

const dns1123Label = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/**
 * The `status.handlers` of an ExtensionConfig from its discovery response: `failurePolicy` defaults to Fail and
 * `timeoutSeconds` to 10; every handler must have a unique DNS-1123 label name, a timeout in [0, 30], a known
 * failure policy and a hook of the catalog. All problems are reported in one ValidationError.
 *
 * @example
 * computeDiscoveredHandlers(extensionConfig, { status: 'Success', handlers: [{ name: 'patches', requestHook: { apiVersion: 'hooks.runtime.cluster.x-k8s.io/v1alpha1', hook: 'GeneratePatches' } }] });
 * // [{ name: 'patches.my-extension', requestHook: {...}, timeoutSeconds: 10, failurePolicy: 'Fail' }]
 */
export function computeDiscoveredHandlers(
  extensionConfig: Pick<ExtensionConfig, 'metadata'>,
  response: DiscoveryResponse,
): ExtensionHandler[] {
  const configName = extensionConfig.metadata.name ?? '';
  const problems: string[] = [];
  const seen = new Set<string>();
  const handlers: ExtensionHandler[] = [];
  for (const handler of response.handlers ?? []) {
    const timeoutSeconds = handler.timeoutSeconds ?? defaultHandlerTimeoutSeconds;
    const failurePolicy = handler.failurePolicy ?? 'Fail';
    if (seen.has(handler.name)) problems.push(`duplicate name for handler ${handler.name} found`);
    seen.add(handler.name);
    if (handler.name.length > 63 || !dns1123Label.test(handler.name)) {
      problems.push(`handler name ${handler.name} is not valid: must be a DNS-1123 label`);
    }
    if (timeoutSeconds < 0 || timeoutSeconds > 30) {
      problems.push(`handler ${handler.name} timeoutSeconds ${timeoutSeconds} must be between 0 and 30`);
    }
    if (failurePolicy !== 'Fail' && failurePolicy !== 'Ignore') {
      problems.push(`handler ${handler.name} failurePolicy ${failurePolicy} must equal "Ignore" or "Fail"`);
    }
    if (!isKnownHook(handler.requestHook.apiVersion, handler.requestHook.hook)) {
      problems.push(
        `handler ${handler.name} requestHook ${handler.requestHook.apiVersion}/${handler.requestHook.hook} is not in the Runtime SDK catalog`,
      );
    }
    handlers.push({
      name: `${handler.name}.${configName}`,
      requestHook: { apiVersion: handler.requestHook.apiVersion, hook: handler.requestHook.hook },
      timeoutSeconds,
      failurePolicy: failurePolicy === 'Ignore' ? 'Ignore' : 'Fail',
    });
  }
  if (problems.length > 0) {
    throw new ValidationError(`failed to validate discovery response: ${problems.join(', ')}`, {
      kind: 'ExtensionConfig',
      name: configName,
      fieldPath: 'status.handlers',
      reason: 'DiscoveryFailed',
    });
  }
  return handlers;
}
