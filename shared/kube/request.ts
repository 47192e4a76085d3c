// One request to the API server as the client sends it: its own module, so the client and what decides about a
// request (replay-safe.ts) both import it and neither imports the other.
import type { RequestTarget } from '#shared/kube/errors.ts';

export type KubeRequest = {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  readonly path: string;
  readonly query?: Readonly<Record<string, string | undefined>>;
  readonly body?: unknown;
  readonly contentType?: string;
  /** Accept header; default `application/json` (see `partialObjectMetadataListAccept` for metadata only). */
  readonly accept?: string;
  readonly target: RequestTarget;
};
