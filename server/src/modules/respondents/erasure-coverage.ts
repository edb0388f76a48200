/**
 * Every column that can hold a respondent's id or what they wrote, and what erasure
 * (respondents.service.ts) does with it. respondents.test.ts finds such columns in the database's
 * catalog — columns named like a voter or participant id or `respondent_id`, and every text column
 * of the tables that keep stored JSON — and fails on one listed in neither map: a table added later
 * cannot be forgotten by erasure.
 */
export const erasedColumns = {
  'answers.voter_id':
    'Removed with the answer, its share of every aggregate decremented (answer-removal.repository.ts).',
  'question_upvotes.voter_id':
    'Removed: their upvotes (each question’s count decremented) and those their questions got.',
  'poll_voters.voter_id':
    'An API voter: removed once they have no API answer left in the poll (poll_stats.voters decremented).',
  'session_voters.voter_id':
    'A participant: removed once they have no answer left in the session (session_stats.voters and its poll’s decremented).',
  'session_participants.respondent_id': 'Blanked, with the name; the participant is marked removed (token revoked).',
  'webhook_event_batches.payloads':
    'Their events (voter or participant theirs) rewritten: their ids, names and texts become "[erased]".',
  'webhook_deliveries.payload':
    'Their deliveries rewritten likewise (a respondent.erased event’s own id is purged once delivered).',
  'webhook_attempts.response_excerpt': 'Rewritten likewise for their deliveries (a receiver may echo the payload).',
  'webhook_attempts.error': 'Rewritten likewise for their deliveries.',
  'idempotency_keys.response_body':
    'The replies of requests by or about them rewritten likewise: a retry still replays, without the respondent.',
  'idempotency_keys.voter_id': 'Cleared with the reply it marked as theirs.',
} as const;

/** Columns the catalog search finds that hold nothing about a respondent, and why. */
export const impersonalColumns = {
  'sessions.participant_count': 'A count.',
  'sessions.max_participants': 'A limit.',
  'webhook_event_batches.id': 'Our id.',
  'webhook_event_batches.endpoint_id': 'Our id.',
  'webhook_event_batches.event_ids': 'Our ids.',
  'webhook_event_batches.event_types': 'Event type names.',
  'webhook_deliveries.id': 'Our id.',
  'webhook_deliveries.endpoint_id': 'Our id.',
  'webhook_deliveries.event_id': 'Our id.',
  'webhook_deliveries.event_type': 'An event type name.',
  'webhook_deliveries.status': 'A state.',
  'webhook_attempts.id': 'Our id.',
  'webhook_attempts.delivery_id': 'Our id.',
  'webhook_attempts.endpoint_id': 'Our id.',
  'webhook_attempts.outcome': 'A state.',
  'idempotency_keys.workspace_id': 'Our id.',
  'idempotency_keys.key': 'The caller’s namespace (a credential, session or participant id) and the key it chose.',
  'idempotency_keys.fingerprint': 'A SHA-256 of the request: it cannot be read back.',
  'idempotency_keys.state': 'A state.',
  'idempotency_keys.claim_token': 'Our token.',
  'idempotency_keys.request_id': 'Our id.',
} as const;
