// The fingerprint of a sweep's LIST of one kind: which objects exist (uid) at which generation, and nothing else. Two
// LISTs with the same fingerprint would lead the sweep to the same decisions, so a sweep that left nothing undone after
// one need not read the checkpoints again for the other.
import { computeSha256 } from '#shared/hash/sha256.ts';

export type ListedObject = {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  readonly generation: number;
};

/**
 * Order-independent: the LIST's order does not matter.
 *
 * @example
 * computeListFingerprint([{ namespace: 'default', name: 'c1', uid: 'u1', generation: 3 }]); // 'sha256:…'
 */
export function computeListFingerprint(items: readonly ListedObject[]): string {
  const lines = items.map((i) => `${i.namespace}/${i.name} ${i.uid} ${i.generation}`).sort();
  return `sha256:${computeSha256(`${lines.length}\n${lines.join('\n')}`)}`;
}
