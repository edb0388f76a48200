import { z } from 'zod';
import { answerFieldShape, checkOneAnswerField, ResponseId, SlideId } from './answers.js';
import { Timestamp } from './common.js';
import {
  ContentSlide,
  MultipleChoiceSlide,
  OpenEndedSlide,
  QaSlide,
  QuizSlide,
  RankingSlide,
  ScaleSlide,
} from './polls.js';
import { SlideResult } from './results.js';
import { Pin, SessionId, SessionStatus } from './sessions.js';
import { displayText } from './text.js';

export const ParticipantId = z.string().describe('Participant id (`prt_…`): the `voterId` of its answers.');

/**
 * A quiz slide as participants see it while they answer: without `correctOptionIds`. The correct
 * options reach them with the results (`results` event), once the presenter shows them.
 */
export const ParticipantQuizSlide = QuizSlide.omit({ correctOptionIds: true }).meta({ id: 'ParticipantQuizSlide' });

/** A slide as participants receive it: nothing in it gives an answer away. */
export const ParticipantSlide = z
  .discriminatedUnion('kind', [
    MultipleChoiceSlide,
    ParticipantQuizSlide,
    ScaleSlide,
    RankingSlide,
    OpenEndedSlide,
    QaSlide,
    ContentSlide,
  ])
  .meta({ id: 'ParticipantSlide' });
export type ParticipantSlide = z.output<typeof ParticipantSlide>;

export const Participant = z
  .object({
    id: ParticipantId,
    name: z.string().nullable().describe('As given at join; null when none was.'),
    score: z.number().int().describe('Quiz points so far.'),
    joinedAt: Timestamp,
  })
  .meta({ id: 'Participant' });
export type Participant = z.output<typeof Participant>;

/** What a participant sees now: the `slide` event's data, and part of the join answer. */
export const LiveState = z
  .object({
    sessionId: SessionId,
    status: SessionStatus,
    slideIndex: z.number().int().describe('0-based index of the current slide.'),
    slideCount: z.number().int(),
    slide: ParticipantSlide.nullable().describe('The current slide; null until the session starts.'),
    locked: z.boolean().describe('Whether the current slide refuses answers.'),
    resultsVisible: z.boolean(),
    slideStartedAt: Timestamp.nullable().describe('When the current slide went live: quiz answers are timed from it.'),
    answered: z
      .boolean()
      .describe('Whether this participant already answered the current slide (false without a participant token).'),
  })
  .meta({ id: 'LiveState' });
export type LiveState = z.output<typeof LiveState>;

export const LeaderboardEntry = z
  .object({
    rank: z.number().int().describe('1 for the highest score; equal scores share a rank.'),
    participantId: ParticipantId,
    name: z.string().nullable(),
    score: z.number().int(),
  })
  .meta({ id: 'LeaderboardEntry' });

export const Leaderboard = z
  .object({
    top: z.array(LeaderboardEntry).describe('The ten highest scores.'),
    you: LeaderboardEntry.nullable().describe(
      "The participant's own rank (participant streams with a token; null elsewhere).",
    ),
  })
  .meta({ id: 'Leaderboard' });
export type Leaderboard = z.output<typeof Leaderboard>;

export const SessionSummary = z
  .object({
    sessionId: SessionId,
    participantCount: z.number().int(),
    leaderboard: Leaderboard.nullable().describe('When the deck has quiz slides.'),
    slides: z.array(SlideResult).describe("Each slide's results, in deck order."),
  })
  .meta({ id: 'SessionSummary' });
export type SessionSummary = z.output<typeof SessionSummary>;

export const JoinSessionInput = z
  .strictObject({
    pin: Pin,
    name: displayText()
      .trim()
      .min(1)
      .max(40)
      .optional()
      .describe('Shown on the leaderboard. Ignored when an `X-Participant-Token` resumes a participant.'),
  })
  .meta({ id: 'JoinSessionInput' });
export type JoinSessionInput = z.input<typeof JoinSessionInput>;

export const JoinedSession = z
  .object({
    participant: Participant,
    participantToken: z
      .string()
      .describe('Send as `X-Participant-Token` with answers, upvotes and the event stream; keep it to come back.'),
    resumed: z
      .boolean()
      .describe('True when the `X-Participant-Token` sent named a participant who had joined before.'),
    state: LiveState,
  })
  .meta({ id: 'JoinedSession' });
export type JoinedSession = z.output<typeof JoinedSession>;

export const LiveEventsInput = z.strictObject({ pin: Pin });
export type LiveEventsInput = z.input<typeof LiveEventsInput>;

export const LiveAnswerInput = z
  .strictObject({
    pin: Pin,
    slideId: SlideId.describe('The current slide: answers to another slide answer 409 `slide_not_active`.'),
    ...answerFieldShape,
    optionIds: answerFieldShape.optionIds.describe('`multiple_choice` and `quiz` slides: the chosen options.'),
  })
  .superRefine(checkOneAnswerField)
  .meta({ id: 'LiveAnswerInput' });
export type LiveAnswerInput = z.input<typeof LiveAnswerInput>;

export const LiveAnswerReceipt = z
  .object({
    id: z.string().describe('`vote_…` for multiple-choice slides, `rsp_…` otherwise (a Q&A question’s id).'),
    sessionId: SessionId,
    slideId: SlideId,
    participantId: ParticipantId,
    createdAt: Timestamp,
  })
  .meta({ id: 'LiveAnswerReceipt' });
export type LiveAnswerReceipt = z.output<typeof LiveAnswerReceipt>;

export const LiveUpvoteInput = z.strictObject({
  pin: Pin,
  questionId: ResponseId.describe('A question of the current Q&A slide.'),
});
export type LiveUpvoteInput = z.input<typeof LiveUpvoteInput>;
