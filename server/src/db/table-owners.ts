import type { Database } from './schema.js';

/** The modules (folders of server/src/modules) that own tables. */
export type TableOwner =
  | 'answers'
  | 'api-keys'
  | 'idempotency'
  | 'live'
  | 'oauth'
  | 'polls'
  | 'sessions'
  | 'themes'
  | 'webhooks'
  | 'workspaces';

/**
 * Every table belongs to exactly one module: only files of that module's folder query it, and other
 * modules go through its service (a function that takes the caller's transaction keeps taking it).
 * server/test/unit/table-owners.test.ts holds the code to this map; a table added to `Database`
 * without an owner here does not compile.
 */
export const TABLE_OWNERS: Record<keyof Database, TableOwner> = {
  workspaces: 'workspaces',
  themes: 'themes',
  api_keys: 'api-keys',
  polls: 'polls',
  answers: 'answers',
  // An upvote hangs off an answer (a Q&A question is an answer row) and goes with it in every removal
  // and reset, in the same statement sequence as the answer; the questions module counts them
  // through the answers service.
  question_upvotes: 'answers',
  // Taken by an answer's first write (answers/respondent-seats.repository.ts), given back with it.
  respondent_seats: 'answers',
  poll_seat_counts: 'answers',
  // The aggregates below are written by the answer batch (answer-batch.repository.ts) and taken back
  // by answer removal: they are the answers' own derived state. Results and exports read them
  // through the answers service.
  poll_voters: 'answers',
  poll_stats: 'answers',
  slide_tallies: 'answers',
  open_text_counts: 'answers',
  word_counts: 'answers',
  session_stats: 'answers',
  session_voters: 'answers',
  session_tallies: 'answers',
  session_text_counts: 'answers',
  session_word_counts: 'answers',
  idempotency_keys: 'idempotency',
  oauth_clients: 'oauth',
  oauth_tokens: 'oauth',
  sessions: 'sessions',
  // A participant takes a seat of its session: the join's one statement counts the seat on the
  // session row and inserts the participant, so both tables have one owner.
  session_participants: 'sessions',
  session_events: 'sessions',
  webhook_endpoints: 'webhooks',
  webhook_deliveries: 'webhooks',
  webhook_event_batches: 'webhooks',
  webhook_attempts: 'webhooks',
  // The key that seals webhook signing secrets (webhooks/secrets-key.ts); live derives its join
  // challenge key from the sealer, never from the row.
  server_keys: 'webhooks',
  // Join challenges spent (live/join-challenge.ts): the live join's own replay guard.
  spent_join_challenges: 'live',
};
