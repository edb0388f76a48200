import type { SessionStatus } from '@pollkit/contracts';
import { type Kysely, sql, type Updateable } from 'kysely';
import { toNumber } from '../../db/database.js';
import type { Database, ParticipantRow, SessionEventRow, SessionRow, SessionsTable } from '../../db/schema.js';
import { answerPoints } from '../answers/index.js';
import type { ParticipantCounts } from './session-view.js';

export function insertSession(
  db: Kysely<Database>,
  session: {
    id: string;
    workspace_id: string;
    poll_id: string;
    pin: string | null;
    host_token_hash: string;
    /** JSON; null or absent: every scope. */
    host_token_scopes?: string | null;
    max_participants: number;
    pace?: SessionRow['pace'];
    link_id?: string | null;
    show_scores?: SessionRow['show_scores'];
    closes_at?: Date | null;
    language?: SessionRow['language'];
    theme_id?: string | null;
    join_challenge?: SessionRow['join_challenge'];
  },
): Promise<SessionRow> {
  return db
    .insertInto('sessions')
    .values({ ...session, status: 'pending' })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function findSession(db: Kysely<Database>, workspaceId: string, id: string): Promise<SessionRow | undefined> {
  return db
    .selectFrom('sessions')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export function findSessionById(db: Kysely<Database>, id: string): Promise<SessionRow | undefined> {
  return db.selectFrom('sessions').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The ids of the poll's sessions, as a subquery (a poll's reset empties their aggregates with it). */
export function sessionIdsOfPoll(db: Kysely<Database>, pollId: string) {
  return db.selectFrom('sessions').select('id').where('poll_id', '=', pollId);
}

/**
 * What a page reads of its session, as a subquery the pages' read model joins to its poll, workspace
 * and theme (one statement, as a join on sessions itself).
 */
export function pageSessions(db: Kysely<Database>) {
  return db
    .selectFrom('sessions')
    .select([
      'id',
      'poll_id',
      'workspace_id',
      'theme_id',
      'language',
      'join_challenge',
      'pin',
      'link_id',
      'status',
      'ended_at',
    ]);
}

/** Whether a join code is a link id (`lnk_…`) rather than a PIN. */
function isLinkId(code: string): boolean {
  return code.startsWith('lnk_');
}

/**
 * The session a join code names now: a PIN (unique among sessions that have not ended) or a
 * self-paced session's link id (unique).
 */
export function findOpenSessionByCode(db: Kysely<Database>, code: string): Promise<SessionRow | undefined> {
  return db
    .selectFrom('sessions')
    .selectAll()
    .where(isLinkId(code) ? 'link_id' : 'pin', '=', code)
    .where('status', '<>', 'ended')
    .executeTakeFirst();
}

/** The session with this join code that ended last, if it ended after `since`. */
export function findSessionEndedSince(
  db: Kysely<Database>,
  code: string,
  since: Date,
): Promise<SessionRow | undefined> {
  return db
    .selectFrom('sessions')
    .selectAll()
    .where(isLinkId(code) ? 'link_id' : 'pin', '=', code)
    .where('status', '=', 'ended')
    .where('ended_at', '>', since)
    .orderBy('ended_at', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** Newest first; `beforeId` is the last id of the previous page. */
export function listSessions(
  db: Kysely<Database>,
  workspaceId: string,
  options: {
    limit: number;
    beforeId?: string | undefined;
    pollId?: string | undefined;
    status?: SessionStatus | undefined;
  },
): Promise<SessionRow[]> {
  let query = db.selectFrom('sessions').selectAll().where('workspace_id', '=', workspaceId);
  if (options.pollId) query = query.where('poll_id', '=', options.pollId);
  if (options.status) query = query.where('status', '=', options.status);
  if (options.beforeId) query = query.where('id', '<', options.beforeId);
  return query.orderBy('id', 'desc').limit(options.limit).execute();
}

/** Participants per session (joined, and completed a self-paced walk), for a page of sessions at once. */
export async function countParticipants(
  db: Kysely<Database>,
  sessionIds: readonly string[],
): Promise<Map<string, ParticipantCounts>> {
  if (sessionIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('session_participants')
    .select(['session_id', (eb) => eb.fn.countAll().as('joined'), (eb) => eb.fn.count('completed_at').as('completed')])
    .where('session_id', 'in', sessionIds)
    .groupBy('session_id')
    .execute();
  return new Map(
    rows.map((row) => [
      row.session_id,
      { joined: toNumber(row.joined as string | number), completed: toNumber(row.completed as string | number) },
    ]),
  );
}

const NO_PARTICIPANTS: ParticipantCounts = { joined: 0, completed: 0 };

/** Participants of the session: who joined, who completed. */
export async function countSessionParticipants(db: Kysely<Database>, sessionId: string): Promise<ParticipantCounts> {
  return (await countParticipants(db, [sessionId])).get(sessionId) ?? NO_PARTICIPANTS;
}

/** Sessions whose closing time has come and that have not ended, oldest deadline first. */
export function listSessionsDue(
  db: Kysely<Database>,
  now: Date,
  limit: number,
): Promise<Array<Pick<SessionRow, 'id' | 'workspace_id'>>> {
  return db
    .selectFrom('sessions')
    .select(['id', 'workspace_id'])
    .where('status', '<>', 'ended')
    .where('closes_at', 'is not', null)
    .where('closes_at', '<=', now)
    .orderBy('closes_at')
    .limit(limit)
    .execute();
}

/** What a control action changes in a session row. */
export interface SessionChanges {
  status?: SessionStatus;
  current_slide_index?: number;
  results_visible?: boolean;
  locked?: boolean;
  slide_started_at?: Date | null;
  started_at?: Date;
  ended_at?: Date;
}

/**
 * Applies a control action as one transaction: the session row, locked and checked by `decide`
 * (which throws to refuse), moves to its next state and next event number, and the event is added
 * to the session's history — so every process that replays the history sees the same events in the
 * same order, whichever process wrote them.
 */
export async function applySessionChange(
  db: Kysely<Database>,
  workspaceId: string,
  id: string,
  decide: (session: SessionRow) => { changes: SessionChanges; event: { type: string; data: string } },
  /** More to write in the same transaction, knowing the session before and after (the webhook outbox). */
  alsoWrite?: (trx: Kysely<Database>, before: SessionRow, after: SessionRow) => Promise<void>,
): Promise<{ session: SessionRow; event: SessionEventRow } | undefined> {
  return db.transaction().execute(async (trx) => {
    const current = await trx
      .selectFrom('sessions')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', id)
      .forUpdate()
      .executeTakeFirst();
    if (!current) return undefined;
    const { changes, event } = decide(current);
    const session = await trx
      .updateTable('sessions')
      .set({ ...changes, seq: sql<number>`seq + 1` })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
    const row = await trx
      .insertInto('session_events')
      .values({ session_id: id, seq: session.seq, type: event.type, data: event.data })
      .returningAll()
      .executeTakeFirstOrThrow();
    await alsoWrite?.(trx, current, session);
    return { session, event: row };
  });
}

/** The history after event `afterSeq`, oldest first. */
export function listEventsAfter(db: Kysely<Database>, sessionId: string, afterSeq: number): Promise<SessionEventRow[]> {
  return db
    .selectFrom('session_events')
    .selectAll()
    .where('session_id', '=', sessionId)
    .where('seq', '>', afterSeq)
    .orderBy('seq')
    .execute();
}

/** Locks or unlocks joins and changes the cap; undefined when no session of the workspace has the id. */
/** What `PATCH /sessions/{id}` changes. */
export type SessionSettingsChange = Pick<
  Updateable<SessionsTable>,
  'joins_locked' | 'max_participants' | 'closes_at' | 'language' | 'theme_id' | 'join_challenge'
>;

export function updateSessionSettings(
  db: Kysely<Database>,
  workspaceId: string,
  id: string,
  changes: SessionSettingsChange,
): Promise<SessionRow | undefined> {
  return db
    .updateTable('sessions')
    .set(changes)
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

/** A new host token hash and its scopes (JSON, null: every scope); undefined when no session of the workspace has the id. */
export function replaceHostToken(
  db: Kysely<Database>,
  workspaceId: string,
  id: string,
  hostTokenHash: string,
  hostTokenScopes: string | null,
): Promise<SessionRow | undefined> {
  return db
    .updateTable('sessions')
    .set({ host_token_hash: hostTokenHash, host_token_scopes: hostTokenScopes })
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

/** Marks a participant of the session removed (once); undefined when the session has no such participant. */
export function removeParticipant(
  db: Kysely<Database>,
  sessionId: string,
  participantId: string,
): Promise<ParticipantRow | undefined> {
  return db
    .updateTable('session_participants')
    .set((eb) => ({ removed_at: eb.fn.coalesce('removed_at', sql<Date>`now()`) }))
    .where('session_id', '=', sessionId)
    .where('id', '=', participantId)
    .returningAll()
    .executeTakeFirst();
}

/** Every participant of the session with the quiz points its answers earned (removed ones included). */
export async function listParticipantScores(
  db: Kysely<Database>,
  sessionId: string,
): Promise<Array<{ id: string; name: string | null; score: number }>> {
  const rows = await db
    .selectFrom('session_participants as p')
    .leftJoin(answerPoints(db).as('a'), (join) =>
      join.onRef('a.session_id', '=', 'p.session_id').onRef('a.voter_id', '=', 'p.id'),
    )
    .select(['p.id', 'p.name', (eb) => eb.fn.coalesce(eb.fn.sum<number | string>('a.points'), eb.lit(0)).as('score')])
    .where('p.session_id', '=', sessionId)
    .groupBy(['p.id', 'p.name'])
    .execute();
  return rows.map((row) => ({ id: row.id, name: row.name, score: toNumber(row.score) }));
}

/** A participant on the ranked list, and where a page of it stops (`GET /sessions/{id}/participants`). */
export interface RankedParticipantRow {
  id: string;
  name: string | null;
  created_at: Date;
  completed_at: Date | null;
  removed_at: Date | null;
  score: number;
  rank: number;
  answer_count: number;
}

/**
 * One page of the session's participants by rank: highest score first, equal scores by id (join
 * order), after the participant `after` (its score and id: the keyset). Ranks are computed over the
 * whole session before the page is cut, so page two's first rank is right.
 */
export async function listRankedParticipants(
  db: Kysely<Database>,
  sessionId: string,
  options: { limit: number; after?: { score: number; id: string } | undefined },
): Promise<RankedParticipantRow[]> {
  const ranked = db
    .with('scored', (qb) =>
      qb
        .selectFrom('session_participants as p')
        .leftJoin(answerPoints(db).as('a'), (join) =>
          join.onRef('a.session_id', '=', 'p.session_id').onRef('a.voter_id', '=', 'p.id'),
        )
        .select((eb) => [
          'p.id',
          'p.name',
          'p.created_at',
          'p.completed_at',
          'p.removed_at',
          eb.fn.coalesce(eb.fn.sum<number | string>('a.points'), eb.lit(0)).as('score'),
          eb.fn.count<number | string>('a.slide_id').distinct().as('answer_count'),
        ])
        .where('p.session_id', '=', sessionId)
        .groupBy(['p.id', 'p.name', 'p.created_at', 'p.completed_at', 'p.removed_at']),
    )
    .with('ranked', (qb) =>
      qb.selectFrom('scored').selectAll().select(sql<number | string>`rank() over (order by score desc)`.as('rank')),
    );
  let query = ranked.selectFrom('ranked').selectAll();
  const after = options.after;
  if (after) {
    query = query.where((eb) =>
      eb.or([eb('score', '<', after.score), eb.and([eb('score', '=', after.score), eb('id', '>', after.id)])]),
    );
  }
  const rows = await query.orderBy('score', 'desc').orderBy('id').limit(options.limit).execute();
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    created_at: row.created_at,
    completed_at: row.completed_at,
    removed_at: row.removed_at,
    score: toNumber(row.score),
    rank: toNumber(row.rank),
    answer_count: toNumber(row.answer_count),
  }));
}
