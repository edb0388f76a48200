// The join challenge's solver: its own file, as the lean `@pollkit/sdk/live` entry exports it.
import type { JoinChallenge } from '@pollkit/contracts';

/**
 * Solves a session's join challenge (`GET /live/{pin}/challenge`, ALTCHA's format): finds the number
 * from 0 to `maxnumber` whose SHA-256 of `salt` + the number is `challenge`, and answers what a join
 * sends as `challenge` (base64 of `{ algorithm, challenge, number, salt, signature }`).
 *
 * It hashes with Web Crypto (`crypto.subtle`), which Node 20 and browsers have, browsers only on
 * pages served over https or from localhost; a batch of digests at a time, so the calling thread
 * stays free between batches. About 0.3 s on a mid-range phone (server/bench/RESULTS.md).
 */
export async function solveJoinChallenge(challenge: JoinChallenge, signal?: AbortSignal): Promise<string> {
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) {
    throw new Error(
      'Solving a join challenge needs Web Crypto (crypto.subtle): Node 20, or a page served over https or from localhost',
    );
  }
  const target = bytesOf(challenge.challenge);
  const salt = new TextEncoder().encode(challenge.salt);
  // The salt once, the number's digits written after it for each try: Web Crypto copies what it
  // hashes when called, so one buffer serves every digest in flight.
  const input = new Uint8Array(salt.length + 16);
  input.set(salt);
  for (let start = 0; start <= challenge.maxnumber; start += BATCH) {
    if (signal?.aborted) throw signal.reason;
    const end = Math.min(start + BATCH, challenge.maxnumber + 1);
    const digests: Promise<ArrayBuffer>[] = [];
    for (let n = start; n < end; n++) {
      const digits = String(n);
      for (let i = 0; i < digits.length; i++) input[salt.length + i] = digits.charCodeAt(i);
      digests.push(subtle.digest(challenge.algorithm, input.subarray(0, salt.length + digits.length)));
    }
    const found = (await Promise.all(digests)).findIndex((digest) => sameBytes(new Uint8Array(digest), target));
    if (found >= 0) return joinChallengeSolution(challenge, start + found);
  }
  throw new Error('No number up to the challenge’s maxnumber solves it: ask for a new one');
}

/** Digests in flight at once: fewer turns of the event loop than one at a time (256 measured fastest on a phone). */
const BATCH = 256;

/** What a join sends as `challenge` once `number` solves `challenge`: ALTCHA's payload, base64 of its JSON. */
export function joinChallengeSolution(challenge: JoinChallenge, number: number): string {
  const { algorithm, salt, signature } = challenge;
  return btoa(JSON.stringify({ algorithm, challenge: challenge.challenge, number, salt, signature }));
}

/** The bytes of a hex digest: compared as bytes, a digest is not turned into text (most of a try's time on a phone). */
function bytesOf(hex: string): Uint8Array {
  const bytes = new Uint8Array(hex.length >> 1);
  for (let i = 0; i < bytes.length; i++) bytes[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return bytes;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
