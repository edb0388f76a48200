import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { Database } from '../../db/schema.js';

/** How stored copies are found and rewritten without one respondent (modules/respondents/redaction.ts). */
export interface Redaction {
  /** The respondent's ids as JSON strings: a stored payload without one of them is nobody's concern here. */
  needles: string[];
  /** Whether a stored event payload is the respondent's record (its voter or participant is theirs). */
  isAbout: (payload: string) => boolean;
  /** A JSON record of theirs rewritten without the respondent's values (unchanged when none is in it). */
  json: (text: string) => string;
  /** Free text of their records (a receiver's answer, an error) rewritten without the respondent's values. */
  text: (text: string) => string;
}

function containsAny(column: RawBuilder<unknown>, needles: string[]): RawBuilder<boolean> {
  return sql<boolean>`(${sql.join(
    needles.map((needle) => sql`position(${needle} in ${column}) > 0`),
    sql` or `,
  )})`;
}

/**
 * Rewrites the workspace's stored webhook data about the respondent: the payloads of event batches
 * not yet fanned out and of deliveries (pending or done) whose voter or participant is theirs, and the
 * delivery log's excerpts and errors of those deliveries. Nothing about anyone else is rewritten,
 * whatever it contains. `respondent.erased` deliveries are left alone: their id is what the
 * customer's systems need (it is purged once delivered: delivery.repository.ts). Answers the rows
 * rewritten. Finding them scans the workspace's webhook rows that hold one of the respondent's ids
 * (an erasure is rare; nothing indexes payload text).
 */
export async function redactWebhookData(
  trx: Kysely<Database>,
  workspaceId: string,
  redaction: Redaction,
): Promise<number> {
  if (redaction.needles.length === 0) return 0;
  let rewritten = 0;
  const endpoints = trx.selectFrom('webhook_endpoints').select('id').where('workspace_id', '=', workspaceId);

  const batches = await trx
    .selectFrom('webhook_event_batches')
    .select(['id', 'payloads'])
    .where('endpoint_id', 'in', endpoints)
    .where(containsAny(sql`array_to_string(payloads, ' ')`, redaction.needles))
    .execute();
  for (const batch of batches) {
    const payloads = batch.payloads.map((payload) => (redaction.isAbout(payload) ? redaction.json(payload) : payload));
    if (payloads.every((payload, index) => payload === batch.payloads[index])) continue;
    await trx.updateTable('webhook_event_batches').set({ payloads }).where('id', '=', batch.id).execute();
    rewritten++;
  }

  const deliveries = (
    await trx
      .selectFrom('webhook_deliveries')
      .select(['id', 'payload'])
      .where('endpoint_id', 'in', endpoints)
      .where('event_type', '<>', 'respondent.erased')
      .where(containsAny(sql.ref('payload'), redaction.needles))
      .execute()
  ).filter((delivery) => redaction.isAbout(delivery.payload));
  for (const delivery of deliveries) {
    const payload = redaction.json(delivery.payload);
    if (payload === delivery.payload) continue;
    await trx.updateTable('webhook_deliveries').set({ payload }).where('id', '=', delivery.id).execute();
    rewritten++;
  }
  if (deliveries.length === 0) return rewritten;

  const attempts = await trx
    .selectFrom('webhook_attempts')
    .select(['id', 'response_excerpt', 'error'])
    .where(
      'delivery_id',
      'in',
      deliveries.map((delivery) => delivery.id),
    )
    .execute();
  for (const attempt of attempts) {
    const excerpt = attempt.response_excerpt === null ? null : redaction.text(attempt.response_excerpt);
    const error = attempt.error === null ? null : redaction.text(attempt.error);
    if (excerpt === attempt.response_excerpt && error === attempt.error) continue;
    await trx
      .updateTable('webhook_attempts')
      .set({ response_excerpt: excerpt, error })
      .where('id', '=', attempt.id)
      .execute();
    rewritten++;
  }
  return rewritten;
}
