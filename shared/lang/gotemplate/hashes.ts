// SHA-1 and Adler-32 in plain TypeScript (the evaluator is pure and may not import node:crypto); SHA-256 comes from
// the project's one implementation in shared/hash.

import { sha256Hex as sha256OfChunks } from '#shared/hash/sha256.ts';

const hex = (words: number[]): string => words.map((w) => (w >>> 0).toString(16).padStart(8, '0')).join('');

function pad(bytes: Uint8Array): Uint8Array {
  const len = bytes.length;
  const total = Math.ceil((len + 9) / 64) * 64;
  const out = new Uint8Array(total);
  out.set(bytes);
  out[len] = 0x80;
  const bits = BigInt(len) * 8n;
  for (let i = 0; i < 8; i++) out[total - 1 - i] = Number((bits >> BigInt(8 * i)) & 0xffn);
  return out;
}

const word = (b: Uint8Array, i: number): number =>
  ((b[i]! << 24) | (b[i + 1]! << 16) | (b[i + 2]! << 8) | b[i + 3]!) >>> 0;
const rotl = (x: number, n: number): number => (x << n) | (x >>> (32 - n));

/** Hex SHA-256 of the bytes (the project's one implementation). */
export function sha256Hex(input: Uint8Array): string {
  return sha256OfChunks([input]);
}

/** Hex SHA-1 of the bytes. */
export function sha1Hex(input: Uint8Array): string {
  const b = pad(input);
  const h = [0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0];
  const w = new Array<number>(80).fill(0);
  for (let off = 0; off < b.length; off += 64) {
    for (let t = 0; t < 16; t++) w[t] = word(b, off + 4 * t);
    for (let t = 16; t < 80; t++) w[t] = rotl(w[t - 3]! ^ w[t - 8]! ^ w[t - 14]! ^ w[t - 16]!, 1);
    let [a, bb, c, d, e] = h as [number, number, number, number, number];
    for (let t = 0; t < 80; t++) {
      const [f, k] =
        t < 20
          ? [(bb & c) | (~bb & d), 0x5a827999]
          : t < 40
            ? [bb ^ c ^ d, 0x6ed9eba1]
            : t < 60
              ? [(bb & c) | (bb & d) | (c & d), 0x8f1bbcdc]
              : [bb ^ c ^ d, 0xca62c1d6];
      const tmp = (rotl(a, 5) + f + e + k + w[t]!) | 0;
      e = d;
      d = c;
      c = rotl(bb, 30);
      bb = a;
      a = tmp;
    }
    const add = [a, bb, c, d, e];
    for (let k = 0; k < 5; k++) h[k] = (h[k]! + add[k]!) | 0;
  }
  return hex(h);
}

/** Adler-32 checksum. */
export function adler32(input: Uint8Array): number {
  let a = 1;
  let b = 0;
  for (const byte of input) {
    a = (a + byte) % 65521;
    b = (b + a) % 65521;
  }
  return ((b << 16) | a) >>> 0;
}
