import type {
  GetRespondentInput,
  PollResponse,
  RespondentErased,
  RespondentRecord,
  RespondentRecords,
  Slide,
} from '@pollkit/contracts';
import type { Kysely } from 'kysely';
import type { z } from 'zod';
import { invalidCursor } from '../../core/paging.js';
import type { Database, ParticipantRow } from '../../db/schema.js';
import {
  answersOfVoters,
  eraseAnswers,
  eraseSeats,
  eraseUpvotes,
  participantScore,
  pollsAnsweredBy,
  pollsUpvotedIn,
  upvotesOfVoters,
} from '../answers/index.js';
import type { DomainEvents } from '../events/domain-events.js';
import { redactRepliesAbout } from '../idempotency/index.js';
import { flaggerOf, type ModerationDeps } from '../moderation/index.js';
import { lockPollDecks } from '../polls/polls.service.js';
import { blankParticipants, findRespondentParticipants } from '../sessions/index.js';
import { outboxEvent, recordWebhookEvent, redactWebhookData } from '../webhooks/index.js';
import { respondentRedaction } from './redaction.js';

export interface RespondentsDeps extends ModerationDeps {
  db: Kysely<Database>;
  /** Tells the sessions whose answers were erased (their screens refresh: modules/live/live-hub.ts). */
  events: DomainEvents;
  /** Signs an erased participant out on every process (modules/live/live-hub.ts), as a host's removal does. */
  liveHub: { participantRemoved(row: ParticipantRow): Promise<void> };
}

/** The sorts of record an access request lists, in the order its pages walk them. */
const sorts = ['participant', 'vote', 'response', 'question', 'upvote'] as const;
type Sort = (typeof sorts)[number];

/** Where a page ends: the sort it reached and the last key listed of it. Opaque to clients (base64url JSON). */
interface Position {
  sort: Sort;
  after: string | [string, string];
}

function encodePosition(position: Position): string {
  return Buffer.from(JSON.stringify([position.sort, position.after]), 'utf8').toString('base64url');
}

function decodePosition(cursor: string): Position {
  try {
    const [sort, after] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as [unknown, unknown];
    const validAfter =
      typeof after === 'string' ||
      (Array.isArray(after) && after.length === 2 && after.every((part) => typeof part === 'string'));
    if (sorts.includes(sort as Sort) && validAfter) return { sort: sort as Sort, after: after as Position['after'] };
  } catch {
    // Not a cursor of ours: answered below.
  }
  throw invalidCursor();
}

/** The voter ids a key stands for: itself (a voter id or participant id) and the participants it names. */
function voterIdsOf(key: string, participants: Array<{ id: string }>): string[] {
  return [...new Set([key, ...participants.map((participant) => participant.id)])];
}

/**
 * `GET /respondents/{id}`: everything the workspace holds about one respondent (an access request),
 * a page at a time — participant records, then votes, responses, Q&A questions and upvotes, each
 * oldest first. The workspace bounds every lookup: another workspace's respondent lists nothing.
 */
export async function getRespondent(
  deps: RespondentsDeps,
  workspaceId: string,
  input: z.output<typeof GetRespondentInput>,
): Promise<RespondentRecords> {
  const key = input.id;
  const start = input.cursor === undefined ? undefined : decodePosition(input.cursor);
  const allParticipants = await findRespondentParticipants(deps.db, workspaceId, key);
  const voterIds = voterIdsOf(key, allParticipants);
  // An API voter's polls from poll_voters; a participant's answers are all in its session's poll.
  const pollIds = [
    ...new Set([
      ...(await pollsAnsweredBy(deps.db, workspaceId, voterIds)),
      ...allParticipants.map((participant) => participant.poll_id),
    ]),
  ];

  const records: RespondentRecord[] = [];
  let last: Position | undefined;
  let more = false;
  const want = () => input.limit + 1 - records.length;
  for (const sort of sorts.slice(start ? sorts.indexOf(start.sort) : 0)) {
    if (want() <= 0) break;
    const after = start?.sort === sort ? start.after : undefined;
    const page = await readSort(deps, workspaceId, sort, { key, voterIds, pollIds }, after, want());
    for (const { record, position } of page) {
      if (records.length === input.limit) {
        more = true;
        break;
      }
      records.push(record);
      last = position;
    }
  }
  return { data: records, nextCursor: more && last ? encodePosition(last) : null };
}

async function readSort(
  deps: RespondentsDeps,
  workspaceId: string,
  sort: Sort,
  who: { key: string; voterIds: string[]; pollIds: string[] },
  after: Position['after'] | undefined,
  limit: number,
): Promise<Array<{ record: RespondentRecord; position: Position }>> {
  const afterId = typeof after === 'string' ? after : undefined;
  const flagged = await flaggerOf(deps, workspaceId);
  switch (sort) {
    case 'participant': {
      const rows = await findRespondentParticipants(deps.db, workspaceId, who.key, { afterId, limit });
      return Promise.all(
        rows.map(async (row) => ({
          record: {
            type: 'participant' as const,
            id: row.id,
            sessionId: row.session_id,
            pollId: row.poll_id,
            name: row.name,
            flagged: row.name !== null && flagged(row.name),
            respondentId: row.respondent_id,
            score: await participantScore(deps.db, row.session_id, row.id),
            joinedAt: row.created_at.toISOString(),
            removedAt: row.removed_at?.toISOString() ?? null,
          },
          position: { sort, after: row.id },
        })),
      );
    }
    case 'vote':
    case 'response':
    case 'question': {
      const rows = await answersOfVoters(deps.db, who.pollIds, who.voterIds, sort, { afterId, limit });
      return rows.map((row) => {
        const common = {
          id: row.id,
          pollId: row.poll_id,
          slideId: row.slide_id,
          voterId: row.voter_id,
          sessionId: row.session_id,
          createdAt: row.created_at.toISOString(),
        };
        const record: RespondentRecord =
          sort === 'vote'
            ? { type: 'vote', ...common, optionIds: row.value.optionIds ?? [] }
            : sort === 'question'
              ? {
                  type: 'question',
                  ...common,
                  text: row.value.text ?? '',
                  status: row.status ?? 'approved',
                  flagged: flagged(row.value.text ?? ''),
                  upvotes: row.upvotes,
                }
              : {
                  type: 'response',
                  ...common,
                  kind: row.slide_kind as PollResponse['kind'],
                  ...row.value,
                  ...(row.slide_kind === 'open_ended'
                    ? { status: row.status ?? 'approved', flagged: flagged(row.value.text ?? '') }
                    : {}),
                };
        return { record, position: { sort, after: row.id } };
      });
    }
    case 'upvote': {
      const rows = await upvotesOfVoters(deps.db, workspaceId, who.voterIds, {
        after: Array.isArray(after) ? (after as [string, string]) : undefined,
        limit,
      });
      return rows.map((row) => ({
        record: {
          type: 'upvote' as const,
          questionId: row.question_id,
          pollId: row.poll_id,
          slideId: row.slide_id,
          voterId: row.voter_id,
          createdAt: row.created_at.toISOString(),
        },
        position: { sort, after: [row.question_id, row.voter_id] as [string, string] },
      }));
    }
  }
}

/**
 * `DELETE /respondents/{id}`: erases one respondent from the workspace in ONE transaction.
 *
 * 1. Their participants are locked, and the polls they answered, upvoted in or joined a session of are
 *    locked FOR UPDATE, in id order. An answer batch holds its polls FOR SHARE while it writes
 *    (answer-batch.repository.ts), so each batch commits wholly before (its answers are read and erased
 *    here) or after this transaction — never half-counted. A batch that committed between finding the
 *    polls and locking them may have brought a poll not yet locked: the polls are found again under
 *    the lock until no new one appears.
 * 2. Their answers go with exactly what they added to every aggregate (answers/answer-removal.repository.ts),
 *    their questions with the upvotes those received; their upvotes on others' questions go, each
 *    question's count decremented.
 * 3. Their participants are blanked (name, respondentId) and marked removed: the tokens name nobody;
 *    after commit every process drops them from its cache (the live hub's bus; its cache bound otherwise).
 * 4. Stored copies that are their records are rewritten (redaction.ts): webhook payloads whose voter
 *    or participant is theirs, those deliveries' log excerpts, and the idempotent replies of requests
 *    by or about them. Nobody else's record is read, whatever text it holds.
 * 5. A `respondent.erased` event, when anything was erased (a second call erases nothing and sends none).
 */
export async function eraseRespondent(
  deps: RespondentsDeps,
  workspaceId: string,
  key: string,
): Promise<RespondentErased> {
  const { erased, signedOut, sessions } = await deps.db.transaction().execute(async (trx) => {
    const participants = await findRespondentParticipants(trx, workspaceId, key, { forUpdate: true });
    const voterIds = voterIdsOf(key, participants);
    const findPolls = async () => [
      ...(await pollsAnsweredBy(trx, workspaceId, voterIds)),
      ...(await pollsUpvotedIn(trx, workspaceId, voterIds)),
      ...participants.map((participant) => participant.poll_id),
    ];
    const decks = new Map<string, Slide[]>();
    for (let wanted = await findPolls(); ; wanted = await findPolls()) {
      const missing = [...new Set(wanted)].filter((id) => !decks.has(id));
      if (missing.length === 0) break;
      for (const [id, deck] of await lockPollDecks(trx, workspaceId, missing)) decks.set(id, deck);
      // A poll of another workspace (a participant cannot have one) is never locked: stop rather than loop.
      if (missing.every((id) => !decks.has(id))) break;
    }

    const answers = await answersOfVoters(trx, [...decks.keys()], voterIds, 'all');
    const removed = await eraseAnswers(trx, answers, (row) =>
      decks.get(row.poll_id)?.find((slide) => slide.id === row.slide_id),
    );
    // Their seats under `maxRespondents` name them too; only this workspace's polls are touched.
    await eraseSeats(
      trx,
      [...decks.keys()],
      voterIds.flatMap((id) => [`v:${id}`, `p:${id}`]),
    );
    const upvotes = await eraseUpvotes(trx, workspaceId, voterIds);
    const blanked = await blankParticipants(
      trx,
      participants.map((participant) => participant.id),
    );

    // Needles are the id the operator named and the server's ids it found (docs/privacy.md): a
    // participant's free `respondentId` finds nothing unless it is the id named (it is then `key`).
    const redaction = respondentRedaction(voterIds, {
      respondentIds: participants.flatMap((participant) =>
        participant.respondent_id ? [participant.respondent_id] : [],
      ),
      names: participants.flatMap((participant) => (participant.name ? [participant.name] : [])),
      texts: answers.flatMap((answer) => (answer.value.text ? [answer.value.text] : [])),
    });
    const redacted =
      (await redactWebhookData(trx, workspaceId, redaction)) +
      (await redactRepliesAbout(trx, workspaceId, voterIds, redaction.json));

    const erased = {
      votes: removed.votes,
      responses: removed.responses,
      questions: removed.questions,
      upvotes,
      participants: blanked.length,
      redacted,
    };
    if (Object.values(erased).some((count) => count > 0)) {
      await recordWebhookEvent(trx, workspaceId, outboxEvent('respondent.erased', { id: key, erased }, new Date()));
    }
    return {
      erased,
      signedOut: blanked,
      sessions: new Set(answers.flatMap((a) => (a.session_id ? [a.session_id] : []))),
    };
  });
  for (const row of signedOut) await deps.liveHub.participantRemoved(row);
  for (const sessionId of sessions) deps.events.publish({ type: 'session.answers_removed', workspaceId, sessionId });
  return { id: key, erased };
}
