// How the provider pass reaches release sources, apart so every fetcher and the pass name it without a circle.

/** `fetch` as the global one: injectable so tests can serve releases from loopback. */
export type FetchFn = (url: string, init?: RequestInit) => Promise<Response>;
