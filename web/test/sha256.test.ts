/// <reference types="node" />
import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sha256 } from '../src/join/sha256.js';

/**
 * The join challenge worker's SHA-256 for pages without Web Crypto (web/src/join/sha256.ts), against
 * node:crypto: every length across the padding's edges (55, 56, 63, 64 bytes…), several blocks, and
 * the salt-and-number texts the challenge hashes.
 */
describe('sha256', () => {
  const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
  const reference = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

  it('hashes every length from 0 to 300 bytes as node:crypto does', () => {
    for (let length = 0; length <= 300; length++) {
      const data = new Uint8Array(randomBytes(length));
      expect(hex(sha256(data)), `${length} bytes`).toBe(reference(data));
    }
  });

  it('hashes the texts a join challenge is made of', () => {
    const salt = 'a3f1c2d4e5b6a7980112?expires=1795000000&session=ses_01JF3Z8Q6M4W9Y2K7T5R0B1C3D&';
    const encoder = new TextEncoder();
    for (const number of [0, 1, 9, 10, 19_999, 20_000]) {
      const data = encoder.encode(`${salt}${number}`);
      expect(hex(sha256(data))).toBe(reference(data));
    }
    expect(hex(sha256(encoder.encode('abc')))).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});
