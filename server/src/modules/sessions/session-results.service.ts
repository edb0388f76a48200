import type {
  ListSessionParticipantsInput,
  SessionAnswersReset,
  SessionParticipantList,
  SessionResults,
} from '@pollkit/contracts';
import type { z } from 'zod';
import { ApiError } from '../../core/api-error.js';
import { invalidCursor } from '../../core/paging.js';
import { resetAnswersOfSession } from '../answers/answers.service.js';
import type { HeldScopes } from '../credentials/credential-scopes.js';
import { flaggerOf } from '../moderation/index.js';
import { getPoll } from '../polls/polls.service.js';
import { type ExportFormat, exportOf, resultsOf, resultsReadableWith } from '../results/results.service.js';
import * as sessions from './sessions.repository.js';
import type { SessionsDeps } from './sessions.service.js';
import { leaderboardOf, nameShower } from './standings.js';

/**
 * A session as a room (docs/results-and-export.md, "Results of one session"): its own results, its
 * own export, and the reset of its answers alone. The poll's views stay the sum of every room and of
 * the answers sent through the API.
 */

async function findSessionOrThrow(deps: SessionsDeps, workspaceId: string, id: string) {
  const row = await sessions.findSession(deps.db, workspaceId, id);
  if (!row) throw ApiError.notFound('Session');
  return row;
}

/**
 * `GET /sessions/{id}/results`: the session's own aggregates (migration 0012), never a scan of
 * answers, with its outcome — how many joined, who leads — as the `ended` event carried it.
 */
export async function getSessionResults(
  deps: SessionsDeps,
  workspaceId: string,
  scopes: HeldScopes,
  id: string,
): Promise<SessionResults> {
  const session = await findSessionOrThrow(deps, workspaceId, id);
  const poll = await getPoll(deps, workspaceId, session.poll_id);
  const [results, counts, leaderboard] = await Promise.all([
    resultsOf(deps, workspaceId, poll, session.id),
    sessions.countSessionParticipants(deps.db, session.id),
    leaderboardOf(deps.db, poll, session.id, await nameShower(deps, workspaceId, poll)),
  ]);
  return { ...resultsReadableWith(scopes, results), participantCount: counts.joined, leaderboard };
}

/**
 * `GET /sessions/{id}/participants`: everyone who joined, by rank. The cursor is the last row's score
 * and id (the ranked order's keyset), opaque to clients like every cursor (core/paging.ts).
 */
export async function listSessionParticipants(
  deps: SessionsDeps,
  workspaceId: string,
  input: z.output<typeof ListSessionParticipantsInput>,
): Promise<SessionParticipantList> {
  const session = await findSessionOrThrow(deps, workspaceId, input.id);
  const after = input.cursor === undefined ? undefined : decodeRankCursor(input.cursor);
  const rows = await sessions.listRankedParticipants(deps.db, session.id, { limit: input.limit + 1, after });
  const page = rows.slice(0, input.limit);
  const last = page.at(-1);
  // The owner's raw view: names as written, with whether the filter flags them.
  const flagged = await flaggerOf(deps, workspaceId);
  return {
    data: page.map((row) => ({
      id: row.id,
      name: row.name,
      flagged: row.name !== null && flagged(row.name),
      score: row.score,
      joinedAt: row.created_at.toISOString(),
      rank: row.rank,
      answerCount: row.answer_count,
      completedAt: row.completed_at?.toISOString() ?? null,
      removedAt: row.removed_at?.toISOString() ?? null,
    })),
    nextCursor: rows.length > input.limit && last ? encodeRankCursor(last) : null,
  };
}

const RANK_CURSOR = /^(0|[1-9][0-9]{0,14}):(prt_[0-9A-HJKMNP-TV-Z]{26})$/;

function encodeRankCursor(row: { score: number; id: string }): string {
  return Buffer.from(`${row.score}:${row.id}`, 'utf8').toString('base64url');
}

function decodeRankCursor(cursor: string): { score: number; id: string } {
  const match = RANK_CURSOR.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match) throw invalidCursor();
  return { score: Number(match[1]), id: match[2] as string };
}

/** `GET /sessions/{id}/export`: the poll export's rows, of this session alone, as CSV or XLSX. */
export async function exportSessionResults(
  deps: SessionsDeps,
  workspaceId: string,
  id: string,
  format: ExportFormat = 'csv',
) {
  const session = await findSessionOrThrow(deps, workspaceId, id);
  return exportOf(deps, workspaceId, await getPoll(deps, workspaceId, session.poll_id), session.id, format);
}

/** `DELETE /sessions/{id}/answers`: the room starts again; the poll's results lose exactly its share. */
export async function resetSessionAnswers(
  deps: SessionsDeps,
  workspaceId: string,
  id: string,
): Promise<SessionAnswersReset> {
  const session = await findSessionOrThrow(deps, workspaceId, id);
  const deleted = await resetAnswersOfSession(deps, workspaceId, session.poll_id, session.id);
  // The room's screens (on every process) show its results and Q&A board emptied.
  deps.events.publish({ type: 'session.answers_removed', workspaceId, sessionId: session.id });
  return { sessionId: session.id, pollId: session.poll_id, deleted };
}
