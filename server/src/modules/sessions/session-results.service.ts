import type { PollResults, SessionAnswersReset } from '@pollkit/contracts';
import { ApiError } from '../../core/api-error.js';
import { resetAnswersOfSession } from '../answers/answers.service.js';
import type { HeldScopes } from '../credentials/credential-scopes.js';
import { getPoll } from '../polls/polls.service.js';
import { exportOf, resultsOf, resultsReadableWith } from '../results/results.service.js';
import * as sessions from './sessions.repository.js';
import type { SessionsDeps } from './sessions.service.js';

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

/** `GET /sessions/{id}/results`: the session's own aggregates (migration 0012), never a scan of answers. */
export async function getSessionResults(
  deps: SessionsDeps,
  workspaceId: string,
  scopes: HeldScopes,
  id: string,
): Promise<PollResults> {
  const session = await findSessionOrThrow(deps, workspaceId, id);
  return resultsReadableWith(
    scopes,
    await resultsOf(deps, await getPoll(deps, workspaceId, session.poll_id), session.id),
  );
}

/** `GET /sessions/{id}/export`: the poll export's columns and rows, of this session alone. */
export async function exportSessionResults(deps: SessionsDeps, workspaceId: string, id: string) {
  const session = await findSessionOrThrow(deps, workspaceId, id);
  return exportOf(deps, await getPoll(deps, workspaceId, session.poll_id), session.id);
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
