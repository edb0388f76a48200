/**
 * The join challenge's solver, in a Web Worker of its own (`/assets/join-challenge.js`, built by
 * web/tsup.config.ts): the page keeps drawing and answering while a phone hashes. It uses the SDK's
 * Web Crypto solver, or, on a page without Web Crypto (plain http at a venue), sha256.ts.
 *
 * Message in: the challenge (`GET /live/{pin}/challenge`). Message out: `{ solution }`, what the join
 * sends as `challenge`, or `{ error }`.
 */
import { type JoinChallenge, joinChallengeSolution, solveJoinChallenge } from '@pollkit/sdk/live';
import { sha256 } from './sha256.js';

/** The worker's global scope, typed as far as used (the page's TypeScript program has the DOM's types, not a worker's). */
const scope = self as unknown as {
  onmessage: ((message: MessageEvent<JoinChallenge>) => void) | null;
  postMessage(message: { solution: string } | { error: string }): void;
};

scope.onmessage = async (message: MessageEvent<JoinChallenge>) => {
  const challenge = message.data;
  try {
    const solution = globalThis.crypto?.subtle ? await solveJoinChallenge(challenge) : solveInScript(challenge);
    scope.postMessage({ solution });
  } catch (error) {
    scope.postMessage({ error: error instanceof Error ? error.message : String(error) });
  }
};

/** The same search with sha256.ts: synchronous, which a worker can afford. */
function solveInScript(challenge: JoinChallenge): string {
  const target = new Uint8Array(32);
  for (let i = 0; i < 32; i++) target[i] = Number.parseInt(challenge.challenge.slice(i * 2, i * 2 + 2), 16);
  const encoder = new TextEncoder();
  for (let n = 0; n <= challenge.maxnumber; n++) {
    const digest = sha256(encoder.encode(challenge.salt + n));
    let same = true;
    for (let i = 0; i < 32 && same; i++) same = digest[i] === target[i];
    if (same) return joinChallengeSolution(challenge, n);
  }
  throw new Error('No number up to the challenge’s maxnumber solves it');
}
