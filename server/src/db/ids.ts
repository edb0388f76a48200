import { monotonicFactory } from 'ulidx';

/**
 * Resource ids: a type prefix and a ULID, so ids sort by creation time (cursor pagination orders by
 * id) and say what they are in logs. The monotonic factory keeps ids increasing within one
 * millisecond of one process.
 */
const ulid = monotonicFactory();

export const idPrefixes = {
  workspace: 'ws',
  apiKey: 'key',
  poll: 'poll',
  session: 'ses',
  response: 'rsp',
  vote: 'vote',
  media: 'med',
  webhook: 'whk',
  event: 'evt',
  oauthClient: 'oac',
  oauthToken: 'oat',
  participant: 'prt',
} as const;

export type IdKind = keyof typeof idPrefixes;

export function newId(kind: IdKind): string {
  return `${idPrefixes[kind]}_${ulid()}`;
}
