// Which requests may be sent again after the server reset a reused keep-alive socket: those whose replay cannot do
// anything the first attempt did not (reads, server-side apply, dry runs, writes guarded by a precondition).
import type { KubeRequest } from '#shared/kube/request.ts';

const applyPatch = 'application/apply-patch+yaml';
const mergePatch = 'application/merge-patch+json';

type Body = {
  readonly metadata?: { readonly name?: unknown; readonly generateName?: unknown; readonly resourceVersion?: unknown };
  readonly preconditions?: { readonly uid?: unknown; readonly resourceVersion?: unknown };
};

const present = (value: unknown): boolean => typeof value === 'string' && value !== '';

/**
 * Whether a request that failed before any response, on a socket the server had closed, may be sent once more:
 * pure. A reset socket does not prove the server never read the request, so only requests whose second delivery
 * is harmless qualify:
 * - GET (get, list, discovery) and any dry run: they change nothing;
 * - PATCH as server-side apply or JSON merge patch: applying the same intent or merge patch twice gives the object
 *   the first one gave (RFC 7396);
 * - PUT carrying `metadata.resourceVersion`: a replay of an update that went through answers 409 Conflict;
 * - DELETE with a uid or resourceVersion precondition: a replay answers 404 (gone) or 409, never deletes an object
 *   that replaced the first one;
 * - POST creating an object by `metadata.name` (not a subresource): a replay of a create that went through answers
 *   409 AlreadyExists and names the object, so nothing is created twice.
 * Never replayed: POST with `generateName` (a second object), other POSTs (TokenRequests, reviews, Runtime SDK calls
 * through the service proxy, whose extension may act on each call), DELETE without preconditions, JSON patch.
 *
 * @example
 * isReplaySafe({ method: 'GET', path: '/api/v1/namespaces', target: { verb: 'list' } }); // true
 * isReplaySafe({ method: 'POST', path: '/api/v1/namespaces/default/configmaps',
 *   body: { metadata: { generateName: 'cm-' } }, target: { verb: 'create' } }); // false
 */
export function isReplaySafe(req: KubeRequest): boolean {
  if (req.method === 'GET') return true;
  if (req.query?.['dryRun'] !== undefined) return true;
  const body = (typeof req.body === 'object' && req.body !== null ? req.body : {}) as Body;
  switch (req.method) {
    case 'PATCH':
      return req.contentType === applyPatch || req.contentType === mergePatch;
    case 'PUT':
      return present(body.metadata?.resourceVersion);
    case 'DELETE':
      return present(body.preconditions?.uid) || present(body.preconditions?.resourceVersion);
    case 'POST':
      return present(body.metadata?.name) && !present(body.metadata?.generateName) && !isSubresourcePost(req.path);
  }
}

/**
 * A POST to a collection is `/api/v1/namespaces/ns/configmaps` or `/apis/g/v/…/plural` (no name after the plural);
 * anything longer (`…/serviceaccounts/sa/token`, `…/services/https:x:443/proxy/…`) is a subresource or a proxy.
 */
function isSubresourcePost(path: string): boolean {
  const segments = path.split('/').filter(Boolean);
  const prefix = segments[0] === 'api' ? 2 : 3; // api/v1 or apis/group/version
  const rest = segments.slice(prefix);
  const collection = rest[0] === 'namespaces' && rest.length >= 3 ? rest.slice(2) : rest;
  return collection.length !== 1;
}
