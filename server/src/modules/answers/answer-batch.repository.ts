import { type Kysely, sql } from 'kysely';
import { preparedStatement } from '../../db/prepared.js';
import type { Database, NewAnswer } from '../../db/schema.js';
import { eventBatchId, type OutboxEvent } from '../webhooks/index.js';
import type { AnswerDeltas } from './tallies.js';

/** An answer row ready to insert, what it adds to the aggregates, and the webhook event it makes. */
export interface PendingAnswer {
  row: NewAnswer;
  deltas: AnswerDeltas;
  /** `vote.created`, `response.created` or `question.created`: written to the outbox with the answer. */
  event?: OutboxEvent;
}

/** An answer and the poll version (`updatedAt`) it was judged against. */
export interface VersionedAnswer {
  answer: PendingAnswer;
  pollVersion: string;
}

export interface BatchOutcome {
  /** Answers stored, with their aggregates. */
  inserted: Set<string>;
  /** Answers whose poll was still published and unchanged (stored, or skipped as duplicates). */
  current: Set<string>;
}

/**
 * Writes a batch of answers and everything they add to the aggregates in ONE statement — one round
 * trip, atomic on its own, with a fixed SQL text whatever the batch size (every column travels as one
 * array parameter and is unnested), so the statement stays cheap to build, send and plan.
 *
 * 1. `locked`: the answered polls, locked FOR SHARE. A concurrent PATCH/DELETE of one of them either
 *    waits for this statement, or commits first and this statement then reads its new version.
 * 2. `current`: the answers whose poll is still published at the version they were judged against.
 * 3. `inserted`: those answers, minus a voter's second answer to a slide (the unique index).
 * 4. From `inserted` only: the counters (`slide_tallies`), open-ended texts and words, first-time
 *    voters (an API voter in poll_voters, a session's participant in session_voters: each recorded
 *    once, and the poll's `voters` adds both) and per-poll stats, each row summed first and written
 *    once, in sorted order so concurrent statements lock rows in the same order.
 * 5. The same aggregates per session, from the inserted answers that came from one (session_tallies,
 *    session_text_counts, session_word_counts, session_voters, session_stats: migration 0012), so a
 *    room's results are read like the poll's. API answers (no session) add nothing there.
 * 6. From `inserted` only: the webhook outbox — per enabled endpoint of the poll's workspace that
 *    subscribed to the answers' event types, one row holding the batch's events (webhook_event_batches;
 *    the workers fan it out into deliveries: modules/webhooks/outbox.repository.ts), so an answer and
 *    the event that reports it commit together. Without such an endpoint this is one index probe per
 *    workspace in the batch, and nothing is written.
 */
/** The statement's text never changes (see above): PostgreSQL plans it once per connection. */
const ANSWER_BATCH = preparedStatement('answer_batch');

export async function insertAnswerBatch(db: Kysely<Database>, batch: VersionedAnswer[]): Promise<BatchOutcome> {
  if (batch.length === 0) return { inserted: new Set(), current: new Set() };

  const answers = {
    id: [] as string[],
    pollId: [] as string[],
    slideId: [] as string[],
    voterId: [] as string[],
    kind: [] as string[],
    slideKind: [] as string[],
    value: [] as string[],
    status: [] as (string | null)[],
    createdAt: [] as string[],
    pollVersion: [] as string[],
    sessionId: [] as (string | null)[],
    points: [] as (number | null)[],
  };
  const tallies = { answerId: [] as string[], key: [] as string[], count: [] as number[], total: [] as number[] };
  const texts = { answerId: [] as string[], hash: [] as string[], text: [] as string[] };
  const words = { answerId: [] as string[], word: [] as string[] };
  const events = { answerId: [] as string[], id: [] as string[], type: [] as string[], payload: [] as string[] };

  for (const { answer, pollVersion } of batch) {
    const { row, deltas } = answer;
    answers.id.push(row.id);
    answers.pollId.push(row.poll_id);
    answers.slideId.push(row.slide_id);
    answers.voterId.push(row.voter_id);
    answers.kind.push(row.kind);
    answers.slideKind.push(row.slide_kind);
    answers.value.push(row.value);
    answers.status.push(row.status ?? null);
    answers.createdAt.push((row.created_at ?? new Date()).toISOString());
    answers.pollVersion.push(pollVersion);
    answers.sessionId.push(row.session_id ?? null);
    answers.points.push(row.points ?? null);
    for (const delta of deltas.tallies) {
      tallies.answerId.push(row.id);
      tallies.key.push(delta.key);
      tallies.count.push(delta.count);
      tallies.total.push(delta.total);
    }
    if (deltas.text) {
      texts.answerId.push(row.id);
      texts.hash.push(deltas.text.hash);
      texts.text.push(deltas.text.text);
    }
    for (const word of deltas.words ?? []) {
      words.answerId.push(row.id);
      words.word.push(word);
    }
    if (answer.event) {
      events.answerId.push(row.id);
      events.id.push(answer.event.id);
      events.type.push(answer.event.type);
      events.payload.push(answer.event.payload);
    }
  }

  const result = await sql<{ outcome: 'inserted' | 'current'; id: string }>`${sql.raw(ANSWER_BATCH)}
    with locked as (
      select id, workspace_id, status, updated_at from polls
      where id = any(${[...new Set(answers.pollId)].sort()}::text[])
      order by id
      for share
    ),
    candidates (id, poll_id, slide_id, voter_id, kind, slide_kind, value, status, created_at, poll_version,
                session_id, points) as (
      select * from unnest(
        ${answers.id}::text[], ${answers.pollId}::text[], ${answers.slideId}::text[], ${answers.voterId}::text[],
        ${answers.kind}::text[], ${answers.slideKind}::text[], ${answers.value}::text[], ${answers.status}::text[],
        ${answers.createdAt}::timestamptz[], ${answers.pollVersion}::timestamptz[], ${answers.sessionId}::text[],
        ${answers.points}::int[])
    ),
    current as (
      select c.* from candidates c
      join locked l on l.id = c.poll_id and l.status = 'published' and l.updated_at = c.poll_version
    ),
    inserted as (
      insert into answers (id, poll_id, slide_id, voter_id, kind, slide_kind, value, status, created_at, session_id,
                           points)
      select id, poll_id, slide_id, voter_id, kind, slide_kind, value::jsonb, status, created_at, session_id, points
      from current
      order by poll_id, slide_id, voter_id, id
      on conflict (poll_id, slide_id, voter_id) where slide_kind <> 'qa' do nothing
      returning id, poll_id, slide_id, voter_id, session_id
    ),
    tally_deltas (answer_id, key, count, total) as (
      select * from unnest(${tallies.answerId}::text[], ${tallies.key}::text[], ${tallies.count}::bigint[], ${tallies.total}::float8[])
    ),
    tallied as (
      insert into slide_tallies (poll_id, slide_id, key, count, total)
      select i.poll_id, i.slide_id, d.key, sum(d.count), sum(d.total)
      from tally_deltas d join inserted i on i.id = d.answer_id
      group by i.poll_id, i.slide_id, d.key
      order by i.poll_id, i.slide_id, d.key
      on conflict (poll_id, slide_id, key) do update
        set count = slide_tallies.count + excluded.count, total = slide_tallies.total + excluded.total
    ),
    text_deltas (answer_id, text_hash, text) as (
      select * from unnest(${texts.answerId}::text[], ${texts.hash}::text[], ${texts.text}::text[])
    ),
    texted as (
      insert into open_text_counts (poll_id, slide_id, text_hash, text, count)
      select i.poll_id, i.slide_id, d.text_hash, min(d.text), count(*)
      from text_deltas d join inserted i on i.id = d.answer_id
      group by i.poll_id, i.slide_id, d.text_hash
      order by i.poll_id, i.slide_id, d.text_hash
      on conflict (poll_id, slide_id, text_hash) do update set count = open_text_counts.count + excluded.count
    ),
    word_deltas (answer_id, word) as (
      select * from unnest(${words.answerId}::text[], ${words.word}::text[])
    ),
    worded as (
      insert into word_counts (poll_id, slide_id, word, count)
      select i.poll_id, i.slide_id, d.word, count(*)
      from word_deltas d join inserted i on i.id = d.answer_id
      group by i.poll_id, i.slide_id, d.word
      order by i.poll_id, i.slide_id, d.word
      on conflict (poll_id, slide_id, word) do update set count = word_counts.count + excluded.count
    ),
    -- A voter is recorded once: an API voter in poll_voters, a session's participant in session_voters
    -- (its id is the server's, unique to that session). The poll's count adds both.
    new_voters as (
      insert into poll_voters (poll_id, voter_id)
      select distinct poll_id, voter_id from inserted where session_id is null order by poll_id, voter_id
      on conflict (poll_id, voter_id) do nothing
      returning poll_id
    ),
    new_session_voters as (
      insert into session_voters (session_id, voter_id)
      select distinct session_id, voter_id from inserted where session_id is not null order by session_id, voter_id
      on conflict (session_id, voter_id) do nothing
      returning session_id
    ),
    stats as (
      insert into poll_stats (poll_id, voters, answers)
      select a.poll_id, coalesce(v.voters, 0) + coalesce(sv.voters, 0), a.answers
      from (select poll_id, count(*) as answers from inserted group by poll_id) a
      left join (select poll_id, count(*) as voters from new_voters group by poll_id) v on v.poll_id = a.poll_id
      left join (
        select s.poll_id, count(*) as voters
        from new_session_voters n
        join (select distinct session_id, poll_id from inserted where session_id is not null) s
          on s.session_id = n.session_id
        group by s.poll_id
      ) sv on sv.poll_id = a.poll_id
      order by a.poll_id
      on conflict (poll_id) do update
        set voters = poll_stats.voters + excluded.voters, answers = poll_stats.answers + excluded.answers
    ),
    -- The same aggregates per session (a room's results), from the answers that came from one.
    session_tallied as (
      insert into session_tallies (session_id, slide_id, key, count, total)
      select i.session_id, i.slide_id, d.key, sum(d.count), sum(d.total)
      from tally_deltas d join inserted i on i.id = d.answer_id
      where i.session_id is not null
      group by i.session_id, i.slide_id, d.key
      order by i.session_id, i.slide_id, d.key
      on conflict (session_id, slide_id, key) do update
        set count = session_tallies.count + excluded.count, total = session_tallies.total + excluded.total
    ),
    session_texted as (
      insert into session_text_counts (session_id, slide_id, text_hash, text, count)
      select i.session_id, i.slide_id, d.text_hash, min(d.text), count(*)
      from text_deltas d join inserted i on i.id = d.answer_id
      where i.session_id is not null
      group by i.session_id, i.slide_id, d.text_hash
      order by i.session_id, i.slide_id, d.text_hash
      on conflict (session_id, slide_id, text_hash) do update set count = session_text_counts.count + excluded.count
    ),
    session_worded as (
      insert into session_word_counts (session_id, slide_id, word, count)
      select i.session_id, i.slide_id, d.word, count(*)
      from word_deltas d join inserted i on i.id = d.answer_id
      where i.session_id is not null
      group by i.session_id, i.slide_id, d.word
      order by i.session_id, i.slide_id, d.word
      on conflict (session_id, slide_id, word) do update set count = session_word_counts.count + excluded.count
    ),
    session_counted as (
      insert into session_stats (session_id, voters, answers)
      select a.session_id, coalesce(v.voters, 0), a.answers
      from (select session_id, count(*) as answers from inserted where session_id is not null group by session_id) a
      left join (select session_id, count(*) as voters from new_session_voters group by session_id) v
        on v.session_id = a.session_id
      order by a.session_id
      on conflict (session_id) do update
        set voters = session_stats.voters + excluded.voters, answers = session_stats.answers + excluded.answers
    ),
    answer_events (answer_id, event_id, event_type, payload) as (
      select * from unnest(${events.answerId}::text[], ${events.id}::text[], ${events.type}::text[], ${events.payload}::text[])
    ),
    webhooked as (
      -- One row per subscribed endpoint for the whole batch (webhook_event_batches): the workers fan
      -- it out into deliveries off this, the writer's one-at-a-time path.
      insert into webhook_event_batches (id, endpoint_id, event_ids, event_types, payloads)
      select ${eventBatchId(sql`min(v.event_id)`, sql.ref('e.id'))}, e.id, array_agg(v.event_id order by v.event_id),
             array_agg(v.event_type order by v.event_id), array_agg(v.payload order by v.event_id)
      from answer_events v
      join inserted i on i.id = v.answer_id
      join locked l on l.id = i.poll_id
      join webhook_endpoints e on e.workspace_id = l.workspace_id and e.status = 'enabled'
        and (e.events @> jsonb_build_array(v.event_type) or e.events @> '["*"]'::jsonb)
      group by e.id
    )
    select 'inserted' as outcome, id from inserted
    union all
    select 'current' as outcome, id from current`.execute(db);

  const outcome: BatchOutcome = { inserted: new Set(), current: new Set() };
  for (const row of result.rows) outcome[row.outcome].add(row.id);
  return outcome;
}
