// Bounded concurrency for sweeps: at most `limit` promises in flight, results in input order.

/**
 * Runs `work` over `items` with at most `limit` at a time, keeping input order in the result.
 *
 * @example
 * await mapLimit(keys, 4, (key) => runPass({ key, trigger }, context));
 */
export async function mapLimit<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const workers = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index] as T);
    }
  });
  await Promise.all(workers);
  return results;
}
