import { z } from 'zod';
import { answerFieldShape, checkOneAnswerField, ResponseId, SlideId } from './answers.js';
import { ListCursor, ListLimit, pageOf, Timestamp } from './common.js';
import {
  ContentSlide,
  MultipleChoiceSlide,
  OpenEndedSlide,
  QaSlide,
  QuizSlide,
  RankingSlide,
  ScaleSlide,
} from './polls.js';
import { RespondentId } from './respondents.js';
import { PollResults, SlideResult } from './results.js';
import { JoinCode, Session, SessionId, SessionPace, SessionStatus } from './sessions.js';
import { displayText, text, untrustedText } from './text.js';

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
    name: untrustedText(z.string().nullable()).describe('As given at join; null when none was.'),
    score: z
      .number()
      .int()
      .describe(
        'Quiz points so far, as far as they are shown: a self-paced participant’s stay 0 until the session shows ' +
          'scores (`showScores`).',
      ),
    joinedAt: Timestamp,
  })
  .meta({ id: 'Participant' });
export type Participant = z.output<typeof Participant>;

/**
 * Where a self-paced participant is on their walk: the slide's place on their path, and the path's
 * length as far as it is known — slides already passed, plus the rest of the deck from here (skip
 * logic only jumps forward, so the total can only shrink as rules skip slides).
 */
export const WalkProgress = z
  .object({
    step: z.number().int().describe('1-based: this slide is the `step`-th of the participant’s walk.'),
    of: z
      .number()
      .int()
      .describe('Slides on the walk as far as known: those passed, this one, and the deck’s slides after it.'),
  })
  .meta({ id: 'WalkProgress' });
export type WalkProgress = z.output<typeof WalkProgress>;

/** What a participant sees now: the `slide` event's data, and part of the join answer. */
export const LiveState = z
  .object({
    sessionId: SessionId,
    pace: SessionPace,
    status: SessionStatus,
    slideIndex: z
      .number()
      .int()
      .describe('0-based index of the current slide (self-paced: this participant’s own slide).'),
    slideCount: z.number().int(),
    slide: ParticipantSlide.nullable().describe(
      'The current slide; null until the session starts (and, self-paced, once the participant completed it).',
    ),
    locked: z.boolean().describe('Whether the current slide refuses answers.'),
    resultsVisible: z.boolean(),
    slideStartedAt: Timestamp.nullable().describe(
      'When the current slide went live (self-paced: when this participant reached it): quiz answers are timed from it.',
    ),
    answered: z
      .boolean()
      .describe('Whether this participant already answered the current slide (false without a participant token).'),
    progress: WalkProgress.nullable().describe('Self-paced: where the participant is on their walk; null otherwise.'),
    completed: z
      .boolean()
      .describe('Self-paced: the participant walked to the end (their `completed` event says how).'),
  })
  .meta({ id: 'LiveState' });
export type LiveState = z.output<typeof LiveState>;

export const LeaderboardEntry = z
  .object({
    rank: z.number().int().describe('1 for the highest score; equal scores share a rank.'),
    participantId: ParticipantId,
    name: untrustedText(z.string().nullable()).describe(
      'Flagged words masked, unless the poll’s `textFilter` is `off`.',
    ),
    score: z.number().int(),
    flagged: z
      .boolean()
      .optional()
      .describe('`session.ended` webhooks only, whose names are as written: whether the text filter flags the name.'),
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
export type LeaderboardEntry = z.output<typeof LeaderboardEntry>;

/** The ten highest scores of a session, or null when its poll has no quiz slide. */
const SessionLeaderboard = z
  .array(LeaderboardEntry)
  .nullable()
  .describe(
    'The ten highest scores, highest first (equal scores share a rank, listed by join order); null when the ' +
      'poll has no quiz slide. Every participant counts, removed ones included; the whole list is ' +
      '`GET /sessions/{id}/participants`.',
  );

/**
 * `GET /sessions/{id}/results`: the session's own results, and its outcome — how many joined and who
 * leads — readable long after the `ended` stream event is gone.
 */
export const SessionResults = PollResults.extend({
  participantCount: z.number().int().describe('Participants who joined the session, removed ones included.'),
  leaderboard: SessionLeaderboard,
}).meta({ id: 'SessionResults' });
export type SessionResults = z.output<typeof SessionResults>;

/** The data of the `session.ended` webhook: the session as it ended, and its leaderboard. */
export const EndedSession = Session.extend({ leaderboard: SessionLeaderboard }).meta({ id: 'EndedSession' });
export type EndedSession = z.output<typeof EndedSession>;

/** A participant as the owner reads them after the fact: `GET /sessions/{id}/participants`. */
export const SessionParticipant = Participant.extend({
  score: z
    .number()
    .int()
    .describe(
      'Quiz points of all its answers, results shown or not (what participants see follows the session: ' +
        '`showScores`, `showResults`); 0 without quiz slides.',
    ),
  rank: z.number().int().describe('1 for the highest score; equal scores share a rank (1, 2, 2, 4).'),
  answerCount: z.number().int().describe('Slides the participant answered (several Q&A questions count once).'),
  completedAt: Timestamp.nullable().describe('Self-paced: when the participant walked to the end; null otherwise.'),
  removedAt: Timestamp.nullable().describe(
    'When the host removed the participant (`DELETE /sessions/{id}/participants/{participantId}`); null otherwise.',
  ),
  flagged: z.boolean().describe('Whether the text filter flags `name`, which this list gives as written.'),
}).meta({ id: 'SessionParticipant' });
export type SessionParticipant = z.output<typeof SessionParticipant>;

export const ListSessionParticipantsInput = z
  .strictObject({ id: SessionId, limit: ListLimit, cursor: ListCursor })
  .meta({ id: 'ListSessionParticipantsInput' });
export type ListSessionParticipantsInput = z.input<typeof ListSessionParticipantsInput>;

export const SessionParticipantList = pageOf(SessionParticipant, 'SessionParticipantList');
export type SessionParticipantList = z.output<typeof SessionParticipantList>;

export const SessionSummary = z
  .object({
    sessionId: SessionId,
    participantCount: z.number().int(),
    leaderboard: Leaderboard.nullable().describe('When the deck has quiz slides.'),
    slides: z.array(SlideResult).describe("Each slide's results, in deck order."),
  })
  .meta({ id: 'SessionSummary' });
export type SessionSummary = z.output<typeof SessionSummary>;

/** A quiz slide a self-paced participant answered, as shown once scores are (`showScores`). */
export const QuizOutcome = z
  .object({
    slideId: SlideId,
    optionIds: z.array(z.string()).describe('The options the participant chose.'),
    correctOptionIds: z.array(z.string()),
    points: z.number().int(),
  })
  .meta({ id: 'QuizOutcome' });
export type QuizOutcome = z.output<typeof QuizOutcome>;

/**
 * A self-paced participant's walk, done: the `completed` event's data. Score, rank and correct answers
 * are null until the session shows them (`showScores`: at the end, or on completion).
 */
export const ParticipantCompletion = z
  .object({
    sessionId: SessionId,
    participantId: ParticipantId,
    completedAt: Timestamp,
    answerCount: z.number().int().describe('Slides the participant answered.'),
    skippedCount: z.number().int().describe('Answerable slides the participant skipped.'),
    score: z.number().int().nullable().describe('Quiz points; null until scores are shown, or without quiz slides.'),
    rank: z
      .number()
      .int()
      .nullable()
      .describe('Rank among the participants as it stands (1 highest); null as for `score`.'),
    quiz: z
      .array(QuizOutcome)
      .nullable()
      .describe('The quiz slides answered, with their correct options; null as for `score`.'),
  })
  .meta({ id: 'ParticipantCompletion' });
export type ParticipantCompletion = z.output<typeof ParticipantCompletion>;

/** A self-paced participant's place after an answer or `advance`. */
export const ParticipantProgress = z
  .object({
    state: LiveState,
    completion: ParticipantCompletion.nullable().describe('When this step completed the walk.'),
  })
  .meta({ id: 'ParticipantProgress' });
export type ParticipantProgress = z.output<typeof ParticipantProgress>;

/** The longest `challenge` a join takes: a solution of ours is about 400 characters. */
export const JOIN_CHALLENGE_SOLUTION_MAX_LENGTH = 2048;

export const JoinSessionInput = z
  .strictObject({
    pin: JoinCode,
    name: displayText()
      .trim()
      .min(1)
      .max(40)
      .optional()
      .describe('Shown on the leaderboard. Ignored when an `X-Participant-Token` resumes a participant.'),
    respondentId: RespondentId.optional().describe(
      'Your own id for this person (the join page passes its link’s `?rid=`), to find and erase their records ' +
        'later (`GET/DELETE /respondents/{id}`). Unverified: anyone with the link can send any value. Ignored ' +
        'when an `X-Participant-Token` resumes a participant.',
    ),
    challenge: text()
      .max(JOIN_CHALLENGE_SOLUTION_MAX_LENGTH)
      .regex(/^[A-Za-z0-9+/]+={0,2}$/, 'Base64, as ALTCHA sends a solution')
      .optional()
      .describe(
        'A session with `joinChallenge: "pow"`: the solution of a challenge from `GET /live/{pin}/challenge`, as ALTCHA ' +
          'sends it (base64 of the JSON `{ algorithm, challenge, number, salt, signature }`). Each challenge joins ' +
          'once, within five minutes. Ignored by a session without the challenge, and when an `X-Participant-Token` ' +
          'resumes a participant.',
      ),
  })
  .meta({ id: 'JoinSessionInput' });
export type JoinSessionInput = z.input<typeof JoinSessionInput>;

export const JoinChallengeInput = z.strictObject({ pin: JoinCode }).meta({ id: 'JoinChallengeInput' });
export type JoinChallengeInput = z.input<typeof JoinChallengeInput>;

/**
 * A proof-of-work challenge in ALTCHA's format (v1, SHA-256): find the `number` between 0 and
 * `maxnumber` whose SHA-256 of `salt` followed by the number (in decimal) is `challenge`, in hex.
 */
export const JoinChallenge = z
  .object({
    algorithm: z.literal('SHA-256').describe('The hash function.'),
    challenge: z.string().describe('The hex SHA-256 of `salt` followed by the secret number, in decimal.'),
    maxnumber: z.number().int().describe('The secret number is between 0 and this, both included.'),
    salt: z
      .string()
      .describe('Random, followed by the challenge’s parameters (its expiry and its session); part of what is hashed.'),
    signature: z.string().describe('The server’s HMAC of `challenge`: only the server can make one.'),
    expiresAt: Timestamp.describe(
      'Until when a solution joins (five minutes after issue); each challenge joins one participant.',
    ),
  })
  .meta({ id: 'JoinChallenge' });
export type JoinChallenge = z.output<typeof JoinChallenge>;

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

export const LiveEventsInput = z.strictObject({ pin: JoinCode });
export type LiveEventsInput = z.input<typeof LiveEventsInput>;

export const LiveAnswerInput = z
  .strictObject({
    pin: JoinCode,
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
    progress: ParticipantProgress.nullable().describe(
      'Self-paced: where the answer sent the participant (the next slide by the skip logic, or the end); null otherwise.',
    ),
  })
  .meta({ id: 'LiveAnswerReceipt' });
export type LiveAnswerReceipt = z.output<typeof LiveAnswerReceipt>;

export const LiveAdvanceInput = z
  .strictObject({
    pin: JoinCode,
    slideId: SlideId.describe(
      'The participant’s current slide: a repeated request (its answer lost) then answers 409 `slide_not_active` ' +
        'rather than moving on twice.',
    ),
  })
  .meta({ id: 'LiveAdvanceInput' });
export type LiveAdvanceInput = z.input<typeof LiveAdvanceInput>;

export const LiveUpvoteInput = z.strictObject({
  pin: JoinCode,
  questionId: ResponseId.describe('A question of the current Q&A slide.'),
});
export type LiveUpvoteInput = z.input<typeof LiveUpvoteInput>;
