import { randomFillSync } from 'node:crypto';
import { monotonicFactory } from 'ulidx';

/**
 * Resource ids: a type prefix and a ULID, so ids sort by creation time (cursor pagination orders by
 * id) and say what they are in logs. The monotonic factory keeps ids increasing within one
 * millisecond of one process.
 */
const ulid = monotonicFactory(pooledRandom());

/**
 * Uniform numbers in [0, 1) from the CSPRNG, drawn from a pool refilled 4,096 at a time: ulidx's
 * default source calls `crypto.getRandomValues` once per character, 16 times an id, which was 4% of
 * the server's time when 10,000 participants answered at once (server/bench/RESULTS.md, issue 11).
 */
function pooledRandom(): () => number {
  const pool = new Uint32Array(4096);
  let next = pool.length;
  return () => {
    if (next === pool.length) {
      randomFillSync(pool);
      next = 0;
    }
    return (pool[next++] as number) / 0x1_0000_0000;
  };
}

const idPrefixes = {
  workspace: 'ws',
  apiKey: 'key',
  poll: 'poll',
  session: 'ses',
  theme: 'thm',
  response: 'rsp',
  vote: 'vote',
  media: 'med',
  webhook: 'whk',
  event: 'evt',
  webhookDelivery: 'dlv',
  webhookAttempt: 'wha',
  oauthClient: 'oac',
  oauthToken: 'oat',
  participant: 'prt',
} as const;

export type IdKind = keyof typeof idPrefixes;

export function newId(kind: IdKind): string {
  return `${idPrefixes[kind]}_${ulid()}`;
}
