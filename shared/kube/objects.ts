// Typed reads and writes of Kubernetes objects: get, list with label selectors, create, server-side apply (with
// dry-run), status writes, delete with preconditions. Callers parse results with their zod schema at the boundary.
import type { KubeClient } from '#shared/kube/client.ts';
import { KubeNotFoundError } from '#shared/kube/errors.ts';
import type { KubeObject } from '#shared/kube/kube-object.ts';
import { listPages } from '#shared/kube/list-pages.ts';
import { partialObjectMetadataListAccept } from '#shared/kube/partial-object-metadata.ts';
import { resolveResource, resourcePath } from '#shared/kube/resources.ts';

export type { KubeObject } from '#shared/kube/kube-object.ts';

export type ObjectRef = {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace?: string | undefined;
  readonly name: string;
};

export type ListResult<T = KubeObject> = { readonly items: T[]; readonly resourceVersion: string };

const APPLY = 'application/apply-patch+yaml';
const MERGE = 'application/merge-patch+json';

function target(verb: string, ref: { kind: string; namespace?: string | undefined; name?: string | undefined }) {
  return {
    verb,
    kind: ref.kind,
    ...(ref.namespace ? { namespace: ref.namespace } : {}),
    ...(ref.name ? { name: ref.name } : {}),
  };
}

/** Reads one object; throws KubeNotFoundError when it does not exist. */
export async function getObject(kube: KubeClient, ref: ObjectRef): Promise<KubeObject> {
  const info = await resolveResource(kube, ref.apiVersion, ref.kind);
  return kube.request<KubeObject>({
    method: 'GET',
    path: resourcePath(info, ref.namespace, ref.name),
    target: target('get', ref),
  });
}

/** Reads one object, or undefined when it does not exist. */
export async function findObject(kube: KubeClient, ref: ObjectRef): Promise<KubeObject | undefined> {
  try {
    return await getObject(kube, ref);
  } catch (err) {
    if (err instanceof KubeNotFoundError) return undefined;
    throw err;
  }
}

/**
 * Lists objects of a kind, in one namespace or all, filtered by a label selector string.
 *
 * @example
 * await listObjects(kube, { apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'MachineDeployment', namespace: 'ns',
 *   labelSelector: 'cluster.x-k8s.io/cluster-name=c1,topology.cluster.x-k8s.io/owned' });
 */
export async function listObjects(
  kube: KubeClient,
  q: {
    apiVersion: string;
    kind: string;
    namespace?: string | undefined;
    labelSelector?: string | undefined;
    fieldSelector?: string | undefined;
  },
): Promise<ListResult> {
  const info = await resolveResource(kube, q.apiVersion, q.kind);
  const list = await kube.request<{ items?: KubeObject[]; metadata?: { resourceVersion?: string } }>({
    method: 'GET',
    path: resourcePath(info, q.namespace, undefined),
    query: { labelSelector: q.labelSelector || undefined, fieldSelector: q.fieldSelector || undefined },
    target: target('list', { kind: `${q.kind}List`, namespace: q.namespace }),
  });
  // NOTE: list items come without apiVersion/kind; put them back so every object is self-describing.
  const items = (list.items ?? []).map((item) => ({ ...item, apiVersion: q.apiVersion, kind: q.kind }));
  return { items, resourceVersion: list.metadata?.resourceVersion ?? '' };
}

/** What a sweep needs of each listed object: its identity and generation, nothing of its spec or status. */
export type ListedMetadata = {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  readonly generation: number;
};

/**
 * Lists the metadata of every object of a kind (PartialObjectMetadata, as client-go's metadata client asks for it),
 * `pageSize` objects per request: the response and the caller's memory grow by a few hundred bytes per object
 * instead of the whole object, so a sweep over 100,000 Clusters stays within a function's memory.
 *
 * @example
 * const { items, pages } = await listObjectMetadata(kube, { apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Cluster' });
 */
export async function listObjectMetadata(
  kube: KubeClient,
  q: { apiVersion: string; kind: string; namespace?: string | undefined; labelSelector?: string | undefined },
  pageSize = 500,
): Promise<{ items: ListedMetadata[]; pages: number }> {
  const info = await resolveResource(kube, q.apiVersion, q.kind);
  const items: ListedMetadata[] = [];
  const { pages } = await listPages(
    kube,
    {
      path: resourcePath(info, q.namespace, undefined),
      kind: q.kind,
      ...(q.namespace === undefined ? {} : { namespace: q.namespace }),
      ...(q.labelSelector ? { labelSelector: q.labelSelector } : {}),
      accept: partialObjectMetadataListAccept,
      limit: pageSize,
    },
    {
      onPage: (page) => {
        for (const o of page)
          items.push({
            namespace: o.metadata.namespace ?? '',
            name: o.metadata.name ?? '',
            uid: o.metadata.uid ?? '',
            generation: o.metadata.generation ?? 0,
          });
      },
      // NOTE: a restart lists again from the first page: only the complete, newest snapshot counts.
      onRestart: () => {
        items.length = 0;
      },
    },
  );
  return { items, pages };
}

export type WriteOptions = { readonly fieldManager: string; readonly dryRun?: boolean };
export type ApplyOptions = WriteOptions & { readonly force?: boolean };

/** Creates an object (fails with KubeConflictError when it exists). */
export async function createObject(kube: KubeClient, obj: KubeObject, opts: WriteOptions): Promise<KubeObject> {
  const info = await resolveResource(kube, obj.apiVersion, obj.kind);
  return kube.request<KubeObject>({
    method: 'POST',
    path: resourcePath(info, obj.metadata.namespace, undefined),
    query: { fieldManager: opts.fieldManager, dryRun: opts.dryRun ? 'All' : undefined },
    body: obj,
    target: target('create', {
      kind: obj.kind,
      namespace: obj.metadata.namespace,
      name: obj.metadata.name ?? obj.metadata.generateName,
    }),
  });
}

/**
 * Server-side apply: the body is the full intent of `fieldManager`; fields it no longer sends are released (and
 * removed unless another manager owns them). `force` takes over fields from other managers on conflict.
 * `dryRun` returns the object the server would persist, defaulted and validated, and persists nothing.
 */
export async function applyObject(kube: KubeClient, obj: KubeObject, opts: ApplyOptions): Promise<KubeObject> {
  return apply(kube, obj, opts, undefined);
}

/** Server-side apply of the status subresource. */
export async function applyStatus(kube: KubeClient, obj: KubeObject, opts: ApplyOptions): Promise<KubeObject> {
  return apply(kube, obj, opts, 'status');
}

async function apply(
  kube: KubeClient,
  obj: KubeObject,
  opts: ApplyOptions,
  subresource: string | undefined,
): Promise<KubeObject> {
  const info = await resolveResource(kube, obj.apiVersion, obj.kind);
  const name = obj.metadata.name;
  if (!name) throw new Error(`cannot apply ${obj.kind} without metadata.name`);
  return kube.request<KubeObject>({
    method: 'PATCH',
    path: resourcePath(info, obj.metadata.namespace, name, subresource),
    query: {
      fieldManager: opts.fieldManager,
      force: opts.force === false ? undefined : 'true',
      dryRun: opts.dryRun ? 'All' : undefined,
    },
    body: obj,
    contentType: APPLY,
    target: target(subresource ? `apply status of` : opts.dryRun ? 'dry-run apply' : 'apply', {
      kind: obj.kind,
      namespace: obj.metadata.namespace,
      name,
    }),
  });
}

/** Replaces the status subresource (optimistic concurrency through metadata.resourceVersion). */
export async function updateStatus(kube: KubeClient, obj: KubeObject, opts: WriteOptions): Promise<KubeObject> {
  const info = await resolveResource(kube, obj.apiVersion, obj.kind);
  return kube.request<KubeObject>({
    method: 'PUT',
    path: resourcePath(info, obj.metadata.namespace, obj.metadata.name ?? '', 'status'),
    query: { fieldManager: opts.fieldManager },
    body: obj,
    target: target('update status of', { kind: obj.kind, namespace: obj.metadata.namespace, name: obj.metadata.name }),
  });
}

/** JSON merge patch (for the few writes that are not an apply intent, e.g. removing a finalizer). */
export async function patchObject(
  kube: KubeClient,
  ref: ObjectRef,
  patch: unknown,
  opts: WriteOptions & { subresource?: string },
): Promise<KubeObject> {
  const info = await resolveResource(kube, ref.apiVersion, ref.kind);
  return kube.request<KubeObject>({
    method: 'PATCH',
    path: resourcePath(info, ref.namespace, ref.name, opts.subresource),
    query: { fieldManager: opts.fieldManager, dryRun: opts.dryRun ? 'All' : undefined },
    body: patch,
    contentType: MERGE,
    target: target('patch', ref),
  });
}

export type DeleteOptions = {
  /** Only delete the object with this uid (it was not replaced meanwhile). */
  readonly uid?: string | undefined;
  /** Only delete this exact version. */
  readonly resourceVersion?: string | undefined;
  readonly propagationPolicy?: 'Foreground' | 'Background' | 'Orphan';
  readonly dryRun?: boolean;
};

/** Deletes an object; resolves false when it was already gone. */
export async function deleteObject(kube: KubeClient, ref: ObjectRef, opts: DeleteOptions = {}): Promise<boolean> {
  const info = await resolveResource(kube, ref.apiVersion, ref.kind);
  const preconditions =
    opts.uid || opts.resourceVersion
      ? {
          ...(opts.uid ? { uid: opts.uid } : {}),
          ...(opts.resourceVersion ? { resourceVersion: opts.resourceVersion } : {}),
        }
      : undefined;
  try {
    await kube.request({
      method: 'DELETE',
      path: resourcePath(info, ref.namespace, ref.name),
      query: { dryRun: opts.dryRun ? 'All' : undefined },
      body: {
        apiVersion: 'v1',
        kind: 'DeleteOptions',
        ...(preconditions ? { preconditions } : {}),
        propagationPolicy: opts.propagationPolicy ?? 'Background',
      },
      target: target('delete', ref),
    });
    return true;
  } catch (err) {
    if (err instanceof KubeNotFoundError) return false;
    throw err;
  }
}

/** Reference of an object, for messages and deletes. */
export function refOf(obj: KubeObject): ObjectRef {
  return {
    apiVersion: obj.apiVersion,
    kind: obj.kind,
    namespace: obj.metadata.namespace,
    name: obj.metadata.name ?? '',
  };
}
