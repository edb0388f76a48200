import type { ParticipantCompletion, ParticipantProgress, Poll, Slide } from '@pollkit/contracts';
import type { Kysely } from 'kysely';
import type { Clock } from '../../core/clock.js';
import type { AnswerValue, Database, ParticipantRow, SessionRow } from '../../db/schema.js';
import { findVoterAnswer, participantAnswersOf } from '../answers/index.js';
import type { DomainEvents } from '../events/domain-events.js';
import { type Outcome, outcomeOfAnswer, slideAfter } from '../polls/branching-rules.js';
import { findParticipant, moveParticipant, standingsOf } from '../sessions/index.js';
import { outboxEvent, recordWebhookEvent } from '../webhooks/index.js';
import { answersOnce } from './live-views.js';
import { scoresShown, walkState } from './walk-state.js';

/**
 * Self-paced sessions (`pace: "audience"`, docs/live-sessions.md "Self-paced sessions"): each
 * participant walks the deck on their own, sent on by the poll's skip logic — the same evaluation as
 * `GET /polls/{id}/next-slide` (polls/branching-rules.ts `slideAfter`). Their place is a row in the
 * database (session_participants: slide_index, slide_reached_at, steps, skips, completed_at), read
 * fresh on every step and moved by one conditional UPDATE, so a restart, another process or a
 * reload resumes exactly there and two racing requests move it once.
 */

/** What walking needs: the database, the clock quiz answers are timed by, and the domain events. */
export interface WalkDeps {
  db: Kysely<Database>;
  clock: Clock;
  events: DomainEvents;
}

/**
 * Moves the participant past their slide by the skip logic (`outcome`: their answer as a condition
 * sees it, null for none), in one transaction with the `session.participant_completed` webhook when
 * it was the last. Answers the row as it now is, and whether this call moved it (a racing request
 * for the same step may have won: then the row is as that one left it).
 */
export async function moveOn(
  deps: WalkDeps,
  session: SessionRow,
  poll: Poll,
  row: ParticipantRow,
  outcome: Outcome,
  skipped: boolean,
): Promise<{ row: ParticipantRow; moved: boolean }> {
  const next = slideAfter(poll, row.slide_index, outcome);
  const at = new Date(deps.clock.now());
  const moved = await deps.db.transaction().execute(async (trx) => {
    const moved = await moveParticipant(trx, {
      id: row.id,
      from: row.slide_index,
      to: next === 'end' ? undefined : next,
      skipped,
      at,
    });
    if (moved?.completed_at) {
      const answers = await participantAnswersOf(trx, session.id, row.id);
      await recordWebhookEvent(
        trx,
        session.workspace_id,
        outboxEvent(
          'session.participant_completed',
          {
            sessionId: session.id,
            pollId: session.poll_id,
            participantId: row.id,
            name: row.name,
            answerCount: new Set(answers.map((answer) => answer.slide_id)).size,
            score: answers.reduce((sum, answer) => sum + (answer.points ?? 0), 0),
          },
          at,
        ),
      );
    }
    return moved;
  });
  if (!moved) return { row: (await findParticipant(deps.db, row.id)) ?? row, moved: false };
  deps.events.publish({
    type: 'participant.moved',
    workspaceId: session.workspace_id,
    sessionId: session.id,
    participantId: row.id,
  });
  return { row: moved, moved: true };
}

/**
 * The participant's place, read now. An answer commits before the move it causes; if the process
 * died between the two, the participant stands on a slide they answered: they are moved past it
 * here, by that answer, as the answer would have moved them.
 */
export async function placeOf(
  deps: WalkDeps,
  session: SessionRow,
  poll: Poll,
  participant: ParticipantRow,
): Promise<ParticipantRow> {
  const row = (await findParticipant(deps.db, participant.id)) ?? participant;
  if (session.status !== 'active' || row.completed_at !== null) return row;
  const slide = poll.content.questions[row.slide_index];
  // A deck edited shorter than the participant's place: they walk on to the end.
  if (!slide) return (await moveOn(deps, session, poll, row, null, false)).row;
  if (!answersOnce(slide)) return row;
  const value = await findVoterAnswer(deps.db, session.poll_id, slide.id, row.id, session.id);
  return value ? (await moveOn(deps, session, poll, row, outcomeOfAnswer(slide, value), false)).row : row;
}

/** The participant's stored answer to their slide as a condition sees it (a skip: none). */
export async function storedOutcome(deps: WalkDeps, session: SessionRow, row: ParticipantRow, slide: Slide) {
  const value: AnswerValue | undefined =
    slide.kind === 'content'
      ? undefined
      : await findVoterAnswer(deps.db, session.poll_id, slide.id, row.id, session.id);
  return { outcome: outcomeOfAnswer(slide, value), answered: value !== undefined };
}

/** The completed walk: counts always; score, rank and correct answers once `showScores` allows. */
export async function completionOf(
  deps: Pick<WalkDeps, 'db'>,
  session: SessionRow,
  poll: Poll,
  row: ParticipantRow,
): Promise<ParticipantCompletion> {
  const answers = await participantAnswersOf(deps.db, session.id, row.id);
  const quizSlides = new Map(
    poll.content.questions.flatMap((slide) => (slide.kind === 'quiz' ? [[slide.id, slide] as const] : [])),
  );
  const reveal = scoresShown(session, row) && quizSlides.size > 0;
  let score: number | null = null;
  let rank: number | null = null;
  let quiz: ParticipantCompletion['quiz'] = null;
  if (reveal) {
    score = answers.reduce((sum, answer) => sum + (answer.points ?? 0), 0);
    rank = (await standingsOf(deps.db, session.id)).of(row.id)?.rank ?? null;
    quiz = answers.flatMap((answer) => {
      const slide = quizSlides.get(answer.slide_id);
      if (!slide) return [];
      return [
        {
          slideId: slide.id,
          optionIds: answer.value.optionIds ?? [],
          correctOptionIds: slide.correctOptionIds,
          points: answer.points ?? 0,
        },
      ];
    });
  }
  return {
    sessionId: session.id,
    participantId: row.id,
    completedAt: (row.completed_at ?? new Date(0)).toISOString(),
    answerCount: new Set(answers.map((answer) => answer.slide_id)).size,
    skippedCount: row.skips,
    score,
    rank,
    quiz,
  };
}

/** Where the participant now is, as an answer's receipt and `advance` answer it. */
export async function progressOf(
  deps: Pick<WalkDeps, 'db'>,
  session: SessionRow,
  poll: Poll,
  row: ParticipantRow,
): Promise<ParticipantProgress> {
  return {
    state: walkState(session, poll, row, false),
    completion: row.completed_at ? await completionOf(deps, session, poll, row) : null,
  };
}
