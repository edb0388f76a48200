import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { Database } from '../../db/schema.js';

/** How a stored text is found and rewritten without one respondent (modules/respondents/redaction.ts). */
export interface Redaction {
  /** Strings whose presence marks a stored text as about the respondent (their ids, as JSON writes them). */
  needles: string[];
  /** The JSON text rewritten without the respondent's values (unchanged when none is in it). */
  json: (text: string) => string;
  /** Free text (a receiver's answer, an error) rewritten without the respondent's values. */
  text: (text: string) => string;
}

function containsAny(column: RawBuilder<unknown>, needles: string[]): RawBuilder<boolean> {
  return sql<boolean>`(${sql.join(
    needles.map((needle) => sql`position(${needle} in ${column}) > 0`),
    sql` or `,
  )})`;
}

/**
 * Rewrites the workspace's stored webhook data that names the respondent: the payloads of event
 * batches not yet fanned out, of deliveries (pending or done), and the delivery log's excerpts and
 * errors. `respondent.erased` deliveries are left alone: their id is what the customer's systems need
 * (it is purged once delivered: delivery.repository.ts). Answers the rows rewritten. Finding them
 * scans the workspace's webhook rows (an erasure is rare; nothing indexes payload text).
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
    const payloads = batch.payloads.map(redaction.json);
    if (payloads.every((payload, index) => payload === batch.payloads[index])) continue;
    await trx.updateTable('webhook_event_batches').set({ payloads }).where('id', '=', batch.id).execute();
    rewritten++;
  }

  const deliveries = await trx
    .selectFrom('webhook_deliveries')
    .select(['id', 'payload'])
    .where('endpoint_id', 'in', endpoints)
    .where('event_type', '<>', 'respondent.erased')
    .where(containsAny(sql.ref('payload'), redaction.needles))
    .execute();
  for (const delivery of deliveries) {
    const payload = redaction.json(delivery.payload);
    if (payload === delivery.payload) continue;
    await trx.updateTable('webhook_deliveries').set({ payload }).where('id', '=', delivery.id).execute();
    rewritten++;
  }

  const attempts = await trx
    .selectFrom('webhook_attempts')
    .select(['id', 'response_excerpt', 'error'])
    .where('endpoint_id', 'in', endpoints)
    .where(containsAny(sql`coalesce(response_excerpt, '') || ' ' || coalesce(error, '')`, redaction.needles))
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
