// SHA-256 (FIPS 180-4) in plain TypeScript, the one implementation every pure area uses (node:crypto is restricted in
// desired/, patches/ and gotemplate/ folders). Verified in tests against node:crypto, FIPS vectors and Go's crypto/sha256.

const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
  0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
  0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
  0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
  0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
  0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
  0xc67178f2,
]);

const rotr = (x: number, n: number) => (x >>> n) | (x << (32 - n));

/** One 64-byte block into the state `h`. */
function compress(h: Uint32Array, w: Uint32Array, block: Uint8Array, offset: number): void {
  for (let i = 0; i < 16; i++) {
    const j = offset + i * 4;
    w[i] = ((block[j]! << 24) | (block[j + 1]! << 16) | (block[j + 2]! << 8) | block[j + 3]!) >>> 0;
  }
  for (let i = 16; i < 64; i++) {
    const w15 = w[i - 15]!;
    const w2 = w[i - 2]!;
    const s0 = rotr(w15, 7) ^ rotr(w15, 18) ^ (w15 >>> 3);
    const s1 = rotr(w2, 17) ^ rotr(w2, 19) ^ (w2 >>> 10);
    w[i] = (w[i - 16]! + s0 + w[i - 7]! + s1) >>> 0;
  }
  let a = h[0]!;
  let b = h[1]!;
  let c = h[2]!;
  let d = h[3]!;
  let e = h[4]!;
  let f = h[5]!;
  let g = h[6]!;
  let hh = h[7]!;
  for (let i = 0; i < 64; i++) {
    const t1 = (hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[i]! + w[i]!) >>> 0;
    const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) >>> 0;
    hh = g;
    g = f;
    f = e;
    e = (d + t1) >>> 0;
    d = c;
    c = b;
    b = a;
    a = (t1 + t2) >>> 0;
  }
  h[0] = (h[0]! + a) >>> 0;
  h[1] = (h[1]! + b) >>> 0;
  h[2] = (h[2]! + c) >>> 0;
  h[3] = (h[3]! + d) >>> 0;
  h[4] = (h[4]! + e) >>> 0;
  h[5] = (h[5]! + f) >>> 0;
  h[6] = (h[6]! + g) >>> 0;
  h[7] = (h[7]! + hh) >>> 0;
}

/**
 * SHA-256 of the concatenation of `chunks` (like writing each chunk to Go's `hash.Hash`), as lowercase hex.
 *
 * @example
 * sha256Hex([new TextEncoder().encode('abc')]); // 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'
 */
export function sha256Hex(chunks: readonly Uint8Array[]): string {
  const h = new Uint32Array([
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
  ]);
  const w = new Uint32Array(64);
  const pending = new Uint8Array(64);
  let pendingLength = 0;
  let total = 0;
  for (const chunk of chunks) {
    total += chunk.length;
    let offset = 0;
    if (pendingLength > 0) {
      const take = Math.min(64 - pendingLength, chunk.length);
      pending.set(chunk.subarray(0, take), pendingLength);
      pendingLength += take;
      offset = take;
      if (pendingLength < 64) continue;
      compress(h, w, pending, 0);
    }
    for (; offset + 64 <= chunk.length; offset += 64) compress(h, w, chunk, offset);
    pending.set(chunk.subarray(offset), 0);
    pendingLength = chunk.length - offset;
  }
  // Padding: 0x80, zeros, then the message length in bits as a 64-bit big-endian integer.
  const tail = new Uint8Array(pendingLength < 56 ? 64 : 128);
  tail.set(pending.subarray(0, pendingLength), 0);
  tail[pendingLength] = 0x80;
  const bits = total * 8;
  const view = new DataView(tail.buffer);
  view.setUint32(tail.length - 8, Math.floor(bits / 0x100000000), false);
  view.setUint32(tail.length - 4, bits >>> 0, false);
  for (let offset = 0; offset < tail.length; offset += 64) compress(h, w, tail, offset);
  let hex = '';
  for (const word of h) hex += word.toString(16).padStart(8, '0');
  return hex;
}

/**
 * Hex SHA-256 of a string's UTF-8 bytes (or of raw bytes).
 *
 * @example
 * computeSha256(''); // 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'
 */
export function computeSha256(input: string | Uint8Array): string {
  return sha256Hex([typeof input === 'string' ? new TextEncoder().encode(input) : input]);
}
