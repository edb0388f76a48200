import { type Kysely, sql } from 'kysely';
import type { Database } from '../../db/schema.js';
import { disableEndpoint } from './webhooks.repository.js';

/** A delivery a worker claimed: attempt number `attempt` is this worker's alone to send. */
export interface ClaimedDelivery {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  payload: string;
  attempt: number;
  /** The attempt's place in the retry schedule (attempts since the last redeliver). */
  schedule_attempt: number;
  created_at: Date;
  url: string;
  secret_sealed: string;
  previous_secret_sealed: string | null;
  previous_secret_expires_at: Date | null;
}

/**
 * Claims up to `limit` due deliveries, at most `perEndpoint[id] ?? perEndpointDefault` of each
 * endpoint, and raises their attempt count: the claim is the attempt's number. Rows are taken
 * `FOR UPDATE SKIP LOCKED`, so concurrent workers — in this process or any other on the same
 * PostgreSQL — never claim the same row; and the claim moves `next_attempt_at` past a lease, so a
 * worker that dies mid-send leaves its delivery due again once the lease is over (the next claim is
 * a new attempt number: the unique (delivery_id, attempt) of the log can never hold one twice).
 */
export async function claimDueDeliveries(
  db: Kysely<Database>,
  options: { limit: number; leaseMs: number; perEndpointDefault: number; perEndpoint: Map<string, number> },
): Promise<ClaimedDelivery[]> {
  if (options.limit <= 0) return [];
  const roomIds = [...options.perEndpoint.keys()];
  const rooms = roomIds.map((id) => options.perEndpoint.get(id) ?? 0);
  const result = await sql<ClaimedDelivery>`
    with candidates as (
      select d.id, d.endpoint_id, d.next_attempt_at from webhook_deliveries d
      where d.status = 'pending' and d.next_attempt_at <= now()
      order by d.next_attempt_at
      limit ${options.limit * 4}
      for update skip locked
    ),
    room (endpoint_id, room) as (
      select * from unnest(${roomIds}::text[], ${rooms}::int[])
    ),
    ranked as (
      select c.id, c.next_attempt_at,
             row_number() over (partition by c.endpoint_id order by c.next_attempt_at, c.id) as rank,
             coalesce(r.room, ${options.perEndpointDefault}) as room
      from candidates c left join room r on r.endpoint_id = c.endpoint_id
    ),
    chosen as (
      select id from ranked where rank <= room order by next_attempt_at limit ${options.limit}
    ),
    claimed as (
      update webhook_deliveries d
      set attempts = d.attempts + 1,
          next_attempt_at = now() + ${options.leaseMs} * interval '1 millisecond',
          updated_at = now()
      from chosen where d.id = chosen.id
      returning d.id, d.endpoint_id, d.event_id, d.event_type, d.payload, d.attempts as attempt,
                d.attempts - d.schedule_offset as schedule_attempt, d.created_at
    )
    select c.*, e.url, e.secret_sealed, e.previous_secret_sealed, e.previous_secret_expires_at
    from claimed c join webhook_endpoints e on e.id = c.endpoint_id`.execute(db);
  return result.rows;
}

/** What one attempt came to, and what it means for its delivery (decided by the worker). */
export interface AttemptOutcome {
  deliveryId: string;
  endpointId: string;
  attempt: number;
  startedAt: Date;
  succeeded: boolean;
  responseStatus: number | null;
  latencyMs: number;
  responseExcerpt: string | null;
  error: string | null;
  /** When to try again; null when the delivery is done (succeeded, or given up). */
  nextAttemptAt: Date | null;
  /** The receiver answered 410 Gone: the endpoint is disabled. */
  gone: boolean;
  /** The delivery was created at (to tell whether its endpoint succeeded at anything since). */
  deliveryCreatedAt: Date;
}

/** Per endpoint, what a batch of outcomes adds to its counters. */
interface EndpointTotals {
  attempts: number;
  failedAttempts: number;
  succeededDeliveries: number;
  failedDeliveries: number;
  /** Failed attempts after the batch's last success (or all of them, if none succeeded). */
  trailingFailures: number;
  succeededAny: boolean;
  lastAttemptAt: Date;
  lastSuccessAt: Date | null;
  gone: boolean;
  /** The oldest creation time among deliveries given up in this batch. */
  gaveUpCreatedAt: Date | null;
  lastFailure: string | null;
}

/** Why an endpoint was disabled, as `disabledReason` says it. */
export type DisableReason = string;

/**
 * A delivered `respondent.erased` event keeps no copy of the id it erased (docs/privacy.md): its stored
 * payload (`d.payload`) becomes the same event with `data.id` replaced by "[erased]". Every other
 * payload stays as sent.
 */
const purgedOnceDelivered = sql`case when d.event_type = 'respondent.erased'
  then jsonb_set(d.payload::jsonb, '{data,id}', '"[erased]"')::text else d.payload end`;

/**
 * Records a batch of attempt outcomes in one transaction: the attempt log, each delivery's new
 * state, and each endpoint's counters. An outcome counts only if its delivery is still at the
 * attempt it reports (a worker whose lease ran out while it waited would otherwise overwrite the
 * attempt that replaced it). Returns the endpoints that must be disabled, with why: one that
 * answered 410 Gone, and one whose delivery exhausted its retry schedule without the endpoint
 * succeeding at anything since that delivery was created.
 */
export async function recordOutcomes(
  db: Kysely<Database>,
  outcomes: AttemptOutcome[],
  newAttemptId: () => string,
): Promise<Map<string, DisableReason>> {
  if (outcomes.length === 0) return new Map();
  if (outcomes.every((outcome) => outcome.succeeded)) {
    await recordSuccesses(db, outcomes, newAttemptId);
    return new Map();
  }
  return db.transaction().execute(async (trx) => {
    const applied = await sql<{ delivery_id: string }>`
      with o (delivery_id, attempt_id, attempt, outcome, response_status, latency_ms, response_excerpt, error,
              started_at, next_attempt_at) as (
        select * from unnest(
          ${outcomes.map((o) => o.deliveryId)}::text[],
          ${outcomes.map(() => newAttemptId())}::text[],
          ${outcomes.map((o) => o.attempt)}::int[],
          ${outcomes.map((o) => (o.succeeded ? 'succeeded' : 'failed'))}::text[],
          ${outcomes.map((o) => o.responseStatus)}::int[],
          ${outcomes.map((o) => o.latencyMs)}::int[],
          ${outcomes.map((o) => o.responseExcerpt)}::text[],
          ${outcomes.map((o) => o.error)}::text[],
          ${outcomes.map((o) => o.startedAt.toISOString())}::timestamptz[],
          ${outcomes.map((o) => o.nextAttemptAt?.toISOString() ?? null)}::timestamptz[])
      ),
      current as (
        select o.* from o join webhook_deliveries d on d.id = o.delivery_id and d.attempts = o.attempt
      ),
      updated as (
        update webhook_deliveries d
        set status = case when c.outcome = 'succeeded' then 'succeeded'
                          when c.next_attempt_at is null then 'failed' else 'pending' end,
            payload = case when c.outcome = 'succeeded' then ${purgedOnceDelivered} else d.payload end,
            next_attempt_at = c.next_attempt_at,
            updated_at = now()
        from current c
        where d.id = c.delivery_id and d.status = 'pending'
      ),
      logged as (
        insert into webhook_attempts (id, delivery_id, endpoint_id, attempt, outcome, response_status, latency_ms,
                                      response_excerpt, error, started_at)
        select c.attempt_id, c.delivery_id, d.endpoint_id, c.attempt, c.outcome, c.response_status, c.latency_ms,
               c.response_excerpt, c.error, c.started_at
        from current c join webhook_deliveries d on d.id = c.delivery_id
        on conflict (delivery_id, attempt) do nothing
      )
      select delivery_id from current`.execute(trx);
    const counted = new Set(applied.rows.map((row) => row.delivery_id));

    const totals = new Map<string, EndpointTotals>();
    for (const outcome of outcomes) {
      if (!counted.has(outcome.deliveryId)) continue;
      let total = totals.get(outcome.endpointId);
      if (!total) {
        total = {
          attempts: 0,
          failedAttempts: 0,
          succeededDeliveries: 0,
          failedDeliveries: 0,
          trailingFailures: 0,
          succeededAny: false,
          lastAttemptAt: outcome.startedAt,
          lastSuccessAt: null,
          gone: false,
          gaveUpCreatedAt: null,
          lastFailure: null,
        };
        totals.set(outcome.endpointId, total);
      }
      total.attempts += 1;
      if (outcome.startedAt > total.lastAttemptAt) total.lastAttemptAt = outcome.startedAt;
      if (outcome.succeeded) {
        total.succeededDeliveries += 1;
        total.succeededAny = true;
        total.trailingFailures = 0;
        if (!total.lastSuccessAt || outcome.startedAt > total.lastSuccessAt) total.lastSuccessAt = outcome.startedAt;
        continue;
      }
      total.failedAttempts += 1;
      total.trailingFailures += 1;
      total.lastFailure =
        outcome.responseStatus !== null ? `HTTP ${outcome.responseStatus}` : (outcome.error ?? 'no answer');
      if (outcome.gone) total.gone = true;
      if (outcome.nextAttemptAt === null) {
        total.failedDeliveries += 1;
        if (!total.gaveUpCreatedAt || outcome.deliveryCreatedAt < total.gaveUpCreatedAt) {
          total.gaveUpCreatedAt = outcome.deliveryCreatedAt;
        }
      }
    }

    const disable = new Map<string, DisableReason>();
    for (const [endpointId, total] of totals) {
      const row = await trx
        .updateTable('webhook_endpoints')
        .set({
          attempts: sql`attempts + ${total.attempts}`,
          failed_attempts: sql`failed_attempts + ${total.failedAttempts}`,
          succeeded_deliveries: sql`succeeded_deliveries + ${total.succeededDeliveries}`,
          failed_deliveries: sql`failed_deliveries + ${total.failedDeliveries}`,
          consecutive_failures: total.succeededAny
            ? total.trailingFailures
            : sql`consecutive_failures + ${total.trailingFailures}`,
          last_attempt_at: sql`greatest(last_attempt_at, ${total.lastAttemptAt})`,
          last_success_at: total.lastSuccessAt ? sql`greatest(last_success_at, ${total.lastSuccessAt})` : undefined,
        })
        .where('id', '=', endpointId)
        .returning(['status', 'last_success_at', 'consecutive_failures'])
        .executeTakeFirst();
      if (row?.status !== 'enabled') continue;
      if (total.gone) {
        disable.set(endpointId, 'The endpoint answered 410 Gone');
      } else if (
        total.gaveUpCreatedAt &&
        (row.last_success_at === null || row.last_success_at < total.gaveUpCreatedAt)
      ) {
        disable.set(
          endpointId,
          `Every attempt failed for a whole retry schedule (${row.consecutive_failures} failed attempts in a row; ` +
            `the last: ${total.lastFailure ?? 'no answer'})`,
        );
      }
    }
    for (const [endpointId, reason] of disable) await disableEndpoint(trx, endpointId, reason);
    return disable;
  });
}

/**
 * The common case — every attempt of the batch succeeded — in one statement (atomic by itself, one
 * round trip): the deliveries, the attempt log and the endpoints' counters. No endpoint can need
 * disabling, and each one's run of failures ends.
 */
async function recordSuccesses(
  db: Kysely<Database>,
  outcomes: AttemptOutcome[],
  newAttemptId: () => string,
): Promise<void> {
  await sql`
    with o (delivery_id, attempt_id, attempt, response_status, latency_ms, response_excerpt, started_at) as (
      select * from unnest(
        ${outcomes.map((o) => o.deliveryId)}::text[],
        ${outcomes.map(() => newAttemptId())}::text[],
        ${outcomes.map((o) => o.attempt)}::int[],
        ${outcomes.map((o) => o.responseStatus)}::int[],
        ${outcomes.map((o) => o.latencyMs)}::int[],
        ${outcomes.map((o) => o.responseExcerpt)}::text[],
        ${outcomes.map((o) => o.startedAt.toISOString())}::timestamptz[])
    ),
    current as (
      select o.*, d.endpoint_id, d.status from o
      join webhook_deliveries d on d.id = o.delivery_id and d.attempts = o.attempt
    ),
    updated as (
      update webhook_deliveries d
      set status = 'succeeded', payload = ${purgedOnceDelivered}, next_attempt_at = null, updated_at = now()
      from current c
      where d.id = c.delivery_id and c.status = 'pending'
    ),
    logged as (
      insert into webhook_attempts (id, delivery_id, endpoint_id, attempt, outcome, response_status, latency_ms,
                                    response_excerpt, error, started_at)
      select attempt_id, delivery_id, endpoint_id, attempt, 'succeeded', response_status, latency_ms,
             response_excerpt, null, started_at
      from current
      on conflict (delivery_id, attempt) do nothing
    ),
    totals as (
      select endpoint_id, count(*) as attempts, count(*) filter (where status = 'pending') as succeeded,
             max(started_at) as last
      from current group by endpoint_id
    )
    update webhook_endpoints e
    set attempts = e.attempts + t.attempts,
        succeeded_deliveries = e.succeeded_deliveries + t.succeeded,
        consecutive_failures = 0,
        last_attempt_at = greatest(e.last_attempt_at, t.last),
        last_success_at = greatest(e.last_success_at, t.last)
    from totals t
    where e.id = t.endpoint_id`.execute(db);
}

/** Deletes up to `limit` finished deliveries older than `before` (their attempts go with them: on delete cascade). */
export async function pruneFinishedDeliveries(db: Kysely<Database>, before: Date, limit: number): Promise<number> {
  const result = await sql`
    delete from webhook_deliveries where id in (
      select id from webhook_deliveries where status <> 'pending' and updated_at < ${before} limit ${limit}
    )`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}

/**
 * Seconds since the oldest delivery waiting to go out became due: a pending delivery past its due
 * time (not one in flight: a claim moves that past its lease), or an answers' event batch not yet
 * fanned out into deliveries. 0 when nothing waits. Both reads are indexed or tiny: the due index,
 * and a table that holds only the batches the workers have not reached yet.
 */
export async function oldestDueAgeSeconds(db: Kysely<Database>): Promise<number> {
  const { rows } = await sql<{ age: number | string | null }>`
    select extract(epoch from now() - least(
      (select min(next_attempt_at) from webhook_deliveries where status = 'pending' and next_attempt_at <= now()),
      (select min(created_at) from webhook_event_batches)
    )) as age`.execute(db);
  return Math.max(0, Number(rows[0]?.age ?? 0));
}
