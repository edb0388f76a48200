import { z } from 'zod';
import { SlideId } from './schemas/answers.js';
import { Leaderboard, LiveState, ParticipantCompletion, SessionSummary } from './schemas/live.js';
import { QaResult, SlideResult } from './schemas/results.js';
import { Session, SessionId } from './schemas/sessions.js';

/**
 * Live-session events, as the two Server-Sent Events streams carry them: the SSE `event:` field is
 * `type`, the `data:` field is `data` as JSON, and the `id:` field is the number of the last event of the
 * session's history (one per control action) the stream has sent. A client that reconnects with
 * `Last-Event-ID` gets every history event it missed, in order, before anything new. `counts`,
 * refreshed `results` and `questions` are snapshots that the next one replaces, throttled to a few
 * a second; they carry the id of the history event before them. Heartbeats are SSE comments.
 *
 * Each stream's events are one zod union discriminated by `type`; the SDK's iterators yield them as
 * `{ type, id, data }`.
 */
function event<T extends string, D extends z.ZodType>(type: T, data: D, description: string) {
  return z
    .object({
      type: z.literal(type),
      id: z
        .string()
        .optional()
        .describe('The SSE event id: the number of the last event of the session’s history this stream has sent.'),
      data,
    })
    .describe(description);
}

const SlideRef = z.object({ slideId: SlideId });

export const SlideResults = z
  .object({
    slideId: SlideId,
    results: SlideResult,
    leaderboard: Leaderboard.nullable().describe('On quiz slides: the top ten, and the participant’s own rank.'),
  })
  .meta({ id: 'SlideResults' });
export type SlideResults = z.output<typeof SlideResults>;

export const LiveCounts = z
  .object({
    slideId: SlideId.nullable().describe('The current slide; null before the session starts.'),
    answerCount: z.number().int().describe('Answers to the current slide (questions, on a Q&A slide).'),
    participantCount: z.number().int(),
    results: SlideResult.nullable().describe('The current slide’s live results.'),
    pendingQuestions: z
      .number()
      .int()
      .nullable()
      .describe(
        'On a moderated Q&A slide: the questions of this session waiting for approval; on a Q&A or open-ended ' +
          'slide whose text filter is `review`: the questions or answers it holds (`GET /sessions/{id}/responses?status=pending`). It ' +
          'changes with every decision, from any screen or the API: re-read the queue then. Null on any other slide.',
      ),
  })
  .meta({ id: 'LiveCounts' });
export type LiveCounts = z.output<typeof LiveCounts>;

export const SlideProgress = z
  .object({
    slideId: SlideId,
    participants: z.number().int().describe('Participants on this slide now.'),
    answerCount: z.number().int().describe('Answers to it (questions, on a Q&A slide).'),
  })
  .meta({ id: 'SlideProgress' });
export type SlideProgress = z.output<typeof SlideProgress>;

/** A self-paced session's progress: the presenter's view in place of a current slide. */
export const SessionProgress = z
  .object({
    sessionId: SessionId,
    participantCount: z.number().int(),
    completedCount: z.number().int().describe('Participants who walked to the end.'),
    slides: z.array(SlideProgress).describe('In deck order.'),
    results: z.array(SlideResult).describe('Every slide’s live results, in deck order.'),
  })
  .meta({ id: 'SessionProgress' });
export type SessionProgress = z.output<typeof SessionProgress>;

export const QuestionBoard = z
  .object({
    slideId: SlideId,
    questions: QaResult.shape.questions,
  })
  .meta({ id: 'QuestionBoard' });

/** What a participant's stream (`GET /live/{pin}/events`) carries. */
export const ParticipantEvent = z
  .discriminatedUnion('type', [
    event(
      'slide',
      LiveState,
      'On connect, and whenever the current slide changes (`start`, `next`, `prev`, `goto`; self-paced: the ' +
        'participant’s answer or `advance`).',
    ),
    event(
      'completed',
      ParticipantCompletion,
      'Self-paced: the participant walked to the end (sent on connect too, once they have).',
    ),
    event(
      'results',
      SlideResults,
      'The presenter showed the current slide’s results; refreshed as answers arrive while they stay visible.',
    ),
    event('results_hidden', SlideRef, 'The presenter hid the results.'),
    event('locked', SlideRef, 'The current slide no longer takes answers.'),
    event('unlocked', SlideRef, 'The current slide takes answers again.'),
    event(
      'questions',
      QuestionBoard,
      'On a Q&A slide: the approved questions, refreshed as they are asked and upvoted.',
    ),
    event('ended', SessionSummary, 'The session ended: the summary. The stream closes after it.'),
  ])
  .meta({ id: 'ParticipantEvent' });
export type ParticipantEvent = z.output<typeof ParticipantEvent>;

/** What the presenter's stream (`GET /sessions/{id}/events`) carries. */
export const PresenterEvent = z
  .discriminatedUnion('type', [
    event('session', Session, 'On connect, and after every control action: the session as it now is.'),
    event('counts', LiveCounts, 'Live counts for the current slide, throttled (at most four a second).'),
    event(
      'progress',
      SessionProgress,
      'Self-paced sessions, in place of `counts`: participants per slide, completions and every slide’s results, ' +
        'throttled (at most four a second).',
    ),
    event('results', SlideResults, 'The results were shown (as participants see them).'),
    event('ended', SessionSummary, 'The session ended: the summary. The stream closes after it.'),
  ])
  .meta({ id: 'PresenterEvent' });
export type PresenterEvent = z.output<typeof PresenterEvent>;

export type ParticipantEventType = ParticipantEvent['type'];
export type PresenterEventType = PresenterEvent['type'];
