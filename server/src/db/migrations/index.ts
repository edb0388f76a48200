import type { Migration, MigrationProvider } from 'kysely/migration';
import * as initial from './0001_initial.js';
import * as answers from './0002_answers.js';
import * as idempotency from './0003_idempotency.js';
import * as oauth from './0004_oauth.js';
import * as sessions from './0005_sessions.js';
import * as webhooks from './0006_webhooks.js';
import * as webhookEventBatches from './0007_webhook_event_batches.js';
import * as liveLimits from './0008_live_limits.js';
import * as apiKeyScopes from './0009_api_key_scopes.js';
import * as selfPaced from './0010_self_paced.js';
import * as answersBySession from './0011_answers_by_session.js';
import * as sessionRooms from './0012_session_rooms.js';
import * as hostTokenScopes from './0013_host_token_scopes.js';
import * as idempotencyOwners from './0014_idempotency_owners.js';
import * as pages from './0015_pages.js';
import * as moderation from './0016_moderation.js';
import * as joinChallenge from './0017_join_challenge.js';

/**
 * Migrations are registered here, in code, rather than read from a folder at run time: the server
 * then runs the same way from source, from a bundle and in tests. Append; never edit a shipped one.
 */
const migrations: Record<string, Migration> = {
  '0001_initial': initial,
  '0002_answers': answers,
  '0003_idempotency': idempotency,
  '0004_oauth': oauth,
  '0005_sessions': sessions,
  '0006_webhooks': webhooks,
  '0007_webhook_event_batches': webhookEventBatches,
  '0008_live_limits': liveLimits,
  '0009_api_key_scopes': apiKeyScopes,
  '0010_self_paced': selfPaced,
  '0011_answers_by_session': answersBySession,
  '0012_session_rooms': sessionRooms,
  '0013_host_token_scopes': hostTokenScopes,
  '0014_idempotency_owners': idempotencyOwners,
  '0015_pages': pages,
  '0016_moderation': moderation,
  '0017_join_challenge': joinChallenge,
};

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => migrations,
};
