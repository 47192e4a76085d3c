// Errors of the write side of a topology pass. Messages end up in the Cluster's TopologyReconciled condition, so a
// failed create never names the object it tried to create: its name is generated anew on every retry.
import { CapiError, describeObject, errorMessage } from '#shared/errors/index.ts';
import { KubeError } from '#shared/kube/index.ts';
import { groupKindOf } from '#shared/topology/desired/template-to-object.ts';
import type { Unstructured } from '#shared/topology/types.ts';

export class TopologyApplyError extends CapiError {}

function idOf(obj: Unstructured) {
  return { kind: obj.kind, namespace: obj.metadata.namespace ?? '', name: obj.metadata.name ?? '' };
}

function withoutName(text: string, obj: Unstructured): string {
  const name = obj.metadata.name ?? '';
  const namespace = obj.metadata.namespace ?? '';
  if (!name) return text;
  return text.split(`${namespace}/${name}`).join(namespace).split(` "${name}"`).join('').split(name).join('');
}

/**
 * The error of a failed create (upstream createErrorWithoutObjectName): `failed to create Kind.group: <causes>` when
 * the server listed causes, else the server's message with the generated name removed. Kind and group are those the
 * server's Status names when it names them (a webhook may name another group than the object's: upstream's
 * KubeadmControlPlane webhook says `KubeadmControlPlane.cluster.x-k8s.io`).
 *
 * @example
 * throw computeCreateError(err, desiredTemplate);
 * // failed to create DockerMachineTemplate.infrastructure.cluster.x-k8s.io: FieldValueInvalid: spec.x: Invalid value…
 */
export function computeCreateError(err: unknown, obj: Unstructured): TopologyApplyError {
  const named = err instanceof KubeError ? err.statusGroupKind : undefined;
  const what = named ? `${named.kind}.${named.group}` : groupKindOf(obj.apiVersion, obj.kind);
  let detail: string;
  if (err instanceof KubeError) {
    const causes = err.causes
      .filter((c) => c.message)
      .map((c) => [c.reason, c.field, c.message].filter((part) => part !== undefined && part !== '').join(': '));
    detail = causes.length > 0 ? causes.join(' ') : err.serverMessage;
  } else {
    detail = errorMessage(err);
  }
  const reason = err instanceof CapiError && err.reason ? err.reason : 'CreateFailed';
  return new TopologyApplyError(
    `failed to create ${what}: ${withoutName(detail, obj)}`,
    { kind: obj.kind, namespace: obj.metadata.namespace ?? '', reason },
    { cause: err },
  );
}

/** The error of a failed write to an existing object: `failed to <verb> Kind ns/name: <server message>`. */
export function computeWriteError(verb: string, err: unknown, obj: Unstructured): TopologyApplyError {
  const id = idOf(obj);
  const detail = err instanceof KubeError ? err.serverMessage : errorMessage(err);
  const reason = err instanceof CapiError && err.reason ? err.reason : 'WriteFailed';
  return new TopologyApplyError(
    `failed to ${verb} ${describeObject(id.kind, id.namespace, id.name)}: ${detail}`,
    { ...id, reason },
    { cause: err },
  );
}

/**
 * The error of a failed change-detection dry run of an existing object, worded as upstream's (reconcile_state.go
 * wrapping structuredmerge's dry run): `failed to create patch helper for Kind ns/name: server side apply dry-run
 * failed for modified object: <server message>` (`original object` when the dry run of the stored object failed).
 *
 * @example
 * throw computeDryRunError('modified', err, current);
 */
export function computeDryRunError(side: 'modified' | 'original', err: unknown, obj: Unstructured): TopologyApplyError {
  const id = idOf(obj);
  const detail = err instanceof KubeError ? err.serverMessage : errorMessage(err);
  const reason = err instanceof CapiError && err.reason ? err.reason : 'WriteFailed';
  return new TopologyApplyError(
    `failed to create patch helper for ${describeObject(id.kind, id.namespace, id.name)}: server side apply dry-run failed for ${side} object: ${detail}`,
    { ...id, reason },
    { cause: err },
  );
}
