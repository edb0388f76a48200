import { z } from 'zod';
import { QuestionStatus, ResponseId, SlideId } from './answers.js';
import { ListCursor, ListLimit, pageOf, resourceId, Timestamp } from './common.js';
import { Language, LanguageInput } from './language.js';
import {
  ContentSlide,
  MultipleChoiceSlide,
  OpenEndedSlide,
  PollId,
  QaSlide,
  QuizSlide,
  RankingSlide,
  ScaleSlide,
} from './polls.js';
import { storableText, text } from './text.js';
import { ThemeId } from './themes.js';

export const SessionId = resourceId('ses', 'Session id.');

/** Six digits: what an audience types on a phone. Unique among sessions that have not ended. */
export const Pin = text()
  .regex(/^[0-9]{6}$/, 'A PIN is six digits')
  .describe('The six-digit code an audience joins with.');

export const SessionStatus = z
  .enum(['pending', 'active', 'ended'])
  .describe('`pending` (created) -`start`-> `active` -`end`-> `ended`; `end` also ends a pending session.')
  .meta({ id: 'SessionStatus' });

export const sessionActions = [
  'start',
  'next',
  'prev',
  'goto',
  'showResults',
  'hideResults',
  'lock',
  'unlock',
  'end',
] as const;
export const SessionAction = z.enum(sessionActions).meta({ id: 'SessionAction' });

/** The control actions that move or change the one slide everybody shares: a presenter-paced session's. */
export const sharedSlideActions = ['next', 'prev', 'goto', 'showResults', 'hideResults', 'lock', 'unlock'] as const;

export const SessionPace = z
  .enum(['presenter', 'audience'])
  .describe(
    '`presenter`: everybody sees the slide the presenter shows. `audience` (self-paced): each participant walks the ' +
      'deck at their own pace, sent on by the poll’s skip logic (see docs/live-sessions.md, "Self-paced sessions").',
  )
  .meta({ id: 'SessionPace' });

export const ShowScores = z
  .enum(['at_end', 'on_completion'])
  .describe(
    'When the participants of a self-paced session see scores and correct answers: `at_end` (everybody, when the ' +
      'session ends) or `on_completion` (each participant theirs, on finishing; early finishers can pass the ' +
      'answers on). Presenter-paced sessions show them with each slide’s results.',
  )
  .meta({ id: 'ShowScores' });

/** A self-paced session's link id: `lnk_` and 43 base64url characters (256 random bits). */
export const LinkId = text()
  .regex(/^lnk_[A-Za-z0-9_-]{43}$/, 'A link id is `lnk_` and 43 characters')
  .describe('The id in a self-paced session’s join link: it joins without the PIN.');

/** What a participant route's `{pin}` takes: the six-digit PIN, or a self-paced session's link id. */
export const JoinCode = text()
  .regex(/^(?:[0-9]{6}|lnk_[A-Za-z0-9_-]{43})$/, 'A six-digit PIN or a link id (`lnk_…`)')
  .describe('The six-digit PIN, or the link id (`lnk_…`) of a self-paced session’s join link.');

/** What a new participant must do before joining, besides knowing the PIN: `pow`, solve a proof-of-work challenge. */
export const JoinChallengeMode = z
  .enum(['pow'])
  .describe(
    '`pow`: a join without a participant token must carry the solution of a proof-of-work challenge from ' +
      '`GET /live/{pin}/challenge` (ALTCHA’s format), or it answers 422 `challenge_failed` (docs/moderation.md, "The ' +
      'join challenge").',
  )
  .meta({ id: 'JoinChallengeMode' });

export const Session = z
  .object({
    id: SessionId,
    pollId: PollId,
    pin: Pin.nullable().describe(
      'The six-digit code an audience joins with; null for a session created with `pin: false`.',
    ),
    pace: SessionPace,
    status: SessionStatus,
    currentSlideIndex: z
      .number()
      .int()
      .describe(
        '0-based index of the slide on screen (always 0 when `pace` is `audience`: each participant has their own).',
      ),
    slideCount: z.number().int().describe('Slides in the poll’s deck.'),
    resultsVisible: z.boolean().describe('Whether participants see the current slide’s results.'),
    locked: z.boolean().describe('Whether the current slide refuses answers.'),
    slideStartedAt: Timestamp.nullable().describe(
      'When the current slide went live (null before `start`): a quiz slide’s countdown runs from it.',
    ),
    joinUrl: z
      .url()
      .describe(
        'Where the audience joins; the QR code (`GET /sessions/{id}/qr.svg`) encodes it. A self-paced session’s ends ' +
          'in its link id, which joins without the PIN.',
      ),
    participantCount: z.number().int().describe('Participants who joined (removed ones included).'),
    completedCount: z
      .number()
      .int()
      .describe('Participants who walked to the end of a self-paced session (always 0 when `pace` is `presenter`).'),
    showScores: ShowScores.nullable().describe('A self-paced session’s `showScores`; null when `pace` is `presenter`.'),
    closesAt: Timestamp.nullable().describe('When the session ends itself; null when it waits for `end`.'),
    maxParticipants: z
      .number()
      .int()
      .describe('Participants the session takes at most; a join past it answers 409 `session_full`.'),
    joinsLocked: z
      .boolean()
      .describe('No new participants: a join answers 409 `joins_locked`; those who joined carry on.'),
    language: Language.nullable().describe(
      'The language of its audience page and presenter screen; `null`: the poll’s (docs/languages.md).',
    ),
    themeId: ThemeId.nullable().describe('The theme of its pages; `null`: the poll’s, else the workspace’s.'),
    joinChallenge: JoinChallengeMode.nullable()
      .default(null)
      .describe(
        'What a new participant solves before joining: `pow`, a proof-of-work challenge; `null`: nothing (a participant ' +
          'resuming with its token is never asked).',
      ),
    createdAt: Timestamp,
    startedAt: Timestamp.nullable(),
    endedAt: Timestamp.nullable(),
  })
  .meta({ id: 'Session' });
export type Session = z.output<typeof Session>;

export const CreatedSession = Session.extend({
  hostToken: z
    .string()
    .describe(
      'Authorises `POST /sessions/{id}/control` and `GET /sessions/{id}/events` as `X-Host-Token`, for a presenter ' +
        'device that holds no API key. Carries the scopes of the credential that created the session: without ' +
        '`polls:read` it reads no quiz answer key, without `responses:read` no results, questions or live counts. ' +
        'Shown this once; stored only as a hash.',
    ),
}).meta({ id: 'CreatedSession' });
export type CreatedSession = z.output<typeof CreatedSession>;

const MaxParticipants = z
  .number()
  .int()
  .min(1)
  .describe(
    'Participants the session takes at most (default and ceiling: the server’s `LIVE_MAX_PARTICIPANTS_DEFAULT` and ' +
      '`LIVE_MAX_PARTICIPANTS_CEILING`, 2,000 and 20,000 unless configured).',
  );

const ClosesAt = z.iso
  .datetime({ offset: true })
  .check(storableText)
  .describe(
    'When the session ends itself (durably, once, on whichever server process is running): its `ended` event and ' +
      '`session.ended` webhook follow as for `end`. In the future.',
  );

const SessionLanguage = LanguageInput.nullable().describe('Another language than the poll’s; `null`: the poll’s.');
const SessionThemeId = ThemeId.nullable().describe(
  'A theme of this workspace other than the poll’s; `null`: the poll’s, else the workspace’s.',
);
const SessionJoinChallenge = JoinChallengeMode.nullable().describe(
  '`pow`: new participants solve a proof-of-work challenge before joining (for a join link posted in public); ' +
    '`null`: none, the default.',
);

export const CreateSessionInput = z
  .strictObject({
    pollId: PollId.describe('A published poll: its slides are the session’s deck.'),
    maxParticipants: MaxParticipants.optional(),
    pace: SessionPace.default('presenter'),
    pin: z
      .boolean()
      .default(true)
      .describe('`false`: no PIN; the audience joins only by the link (`joinUrl`). Self-paced sessions only.'),
    showScores: ShowScores.optional().describe(
      'Self-paced sessions only (default `at_end`): when participants see scores and correct answers.',
    ),
    closesAt: ClosesAt.optional(),
    language: SessionLanguage.optional(),
    themeId: SessionThemeId.optional(),
    joinChallenge: SessionJoinChallenge.optional(),
  })
  .superRefine((input, ctx) => {
    if (input.pace !== 'audience' && input.pin === false) {
      ctx.addIssue({
        code: 'custom',
        path: ['pin'],
        message: 'Only a self-paced session (`pace: "audience"`) goes without a PIN',
      });
    }
    if (input.pace !== 'audience' && input.showScores !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['showScores'],
        message:
          'Only a self-paced session (`pace: "audience"`) takes `showScores`: a presenter shows scores with results',
      });
    }
  })
  .meta({ id: 'CreateSessionInput' });
export type CreateSessionInput = z.input<typeof CreateSessionInput>;

export const GetSessionInput = z.strictObject({ id: SessionId });
export type GetSessionInput = z.input<typeof GetSessionInput>;

export const ListSessionsInput = z
  .strictObject({
    limit: ListLimit,
    cursor: ListCursor,
    pollId: PollId.optional().describe('Only sessions of this poll.'),
    status: SessionStatus.optional().describe('Only sessions in this status.'),
  })
  .meta({ id: 'ListSessionsInput' });
export type ListSessionsInput = z.input<typeof ListSessionsInput>;

export const SessionList = pageOf(Session, 'SessionList');
export type SessionList = z.output<typeof SessionList>;

export const SessionControlInput = z
  .strictObject({
    id: SessionId,
    action: SessionAction,
    slideIndex: z.number().int().min(0).optional().describe('0-based; required with `goto`, refused otherwise.'),
  })
  .superRefine((input, ctx) => {
    if (input.action === 'goto' && input.slideIndex === undefined) {
      ctx.addIssue({ code: 'custom', path: ['slideIndex'], message: '`goto` needs a `slideIndex`' });
    }
    if (input.action !== 'goto' && input.slideIndex !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['slideIndex'], message: 'Only `goto` takes a `slideIndex`' });
    }
  })
  .meta({ id: 'SessionControlInput' });
export type SessionControlInput = z.input<typeof SessionControlInput>;

export const UpdateSessionInput = z
  .strictObject({
    id: SessionId,
    joinsLocked: z.boolean().optional().describe('`true`: no new participants; those who joined carry on.'),
    maxParticipants: MaxParticipants.optional().describe('A new cap, not below the participants who already joined.'),
    closesAt: ClosesAt.nullable().optional().describe('A new time for the session to end itself; `null`: none.'),
    language: SessionLanguage.optional().describe(
      'The pages’ language from their next load (a participant’s `?lang=` still wins); `null`: the poll’s.',
    ),
    themeId: SessionThemeId.optional(),
    joinChallenge: SessionJoinChallenge.optional().describe(
      '`pow` asks new participants to solve a proof-of-work challenge from now on; `null` turns it off. Those who ' +
        'joined carry on.',
    ),
  })
  .refine(
    (input) =>
      input.joinsLocked !== undefined ||
      input.maxParticipants !== undefined ||
      input.closesAt !== undefined ||
      input.language !== undefined ||
      input.themeId !== undefined ||
      input.joinChallenge !== undefined,
    {
      message: 'Send `joinsLocked`, `maxParticipants`, `closesAt`, `language`, `themeId`, `joinChallenge`, or several',
    },
  )
  .meta({ id: 'UpdateSessionInput' });
export type UpdateSessionInput = z.input<typeof UpdateSessionInput>;

export const RemoveParticipantInput = z.strictObject({
  id: SessionId,
  participantId: resourceId(
    'prt',
    'A participant of the session (`prt_…`: the `voterId` of its answers and questions).',
  ),
});
export type RemoveParticipantInput = z.input<typeof RemoveParticipantInput>;

export const RemovedParticipant = z
  .object({
    sessionId: SessionId,
    participantId: z.string(),
    removedAt: Timestamp,
  })
  .describe('The participant’s token names nobody from now on; its answers stay.')
  .meta({ id: 'RemovedParticipant' });
export type RemovedParticipant = z.output<typeof RemovedParticipant>;

export const RotateHostTokenInput = z.strictObject({ id: SessionId });
export type RotateHostTokenInput = z.input<typeof RotateHostTokenInput>;

export const RotatedHostToken = z
  .object({
    sessionId: SessionId,
    hostToken: z
      .string()
      .describe(
        'The session’s new host token, shown this once; the one it replaces stops working at once. It carries the ' +
          'scopes of the credential that asked for it (a host token: its own).',
      ),
  })
  .meta({ id: 'RotatedHostToken' });
export type RotatedHostToken = z.output<typeof RotatedHostToken>;

export const SessionQrInput = z.strictObject({ id: SessionId });
export type SessionQrInput = z.input<typeof SessionQrInput>;

export const SessionEventsInput = z.strictObject({ id: SessionId });
export type SessionEventsInput = z.input<typeof SessionEventsInput>;

export const SessionDeckInput = z.strictObject({ id: SessionId });
export type SessionDeckInput = z.input<typeof SessionDeckInput>;

/** A quiz slide of a deck: its answer key only for a reader that may know it (`polls:read`). */
export const DeckQuizSlide = QuizSlide.extend({
  correctOptionIds: QuizSlide.shape.correctOptionIds
    .optional()
    .describe(
      'Ids of the correct options. Absent for a host token created by a credential without `polls:read` (the ' +
        'answer key is the poll’s content).',
    ),
}).meta({ id: 'DeckQuizSlide' });

/** A slide as a presenter's deck carries it: the poll's, a quiz's answer key as the reader may know it. */
export const DeckSlide = z
  .discriminatedUnion('kind', [
    MultipleChoiceSlide,
    DeckQuizSlide,
    ScaleSlide,
    RankingSlide,
    OpenEndedSlide,
    QaSlide,
    ContentSlide,
  ])
  .meta({ id: 'DeckSlide' });
export type DeckSlide = z.output<typeof DeckSlide>;

/**
 * The slides a presenter shows: the poll's as they are now, with quiz answers (the presenter reveals
 * them) unless a host token was created without `polls:read`. A presenter device that holds only
 * the host token cannot read the poll itself.
 */
export const SessionDeck = z
  .object({
    sessionId: SessionId,
    pollId: PollId,
    title: z.string(),
    slides: z.array(DeckSlide).describe('In deck order: `currentSlideIndex` indexes it.'),
    answersVisible: z
      .boolean()
      .describe(
        'Whether this reader sees the audience’s answers: counts, results and Q&A questions (`responses:read`). ' +
          'False for a host token created by a credential without it, which controls the session without them: a ' +
          'presenter screen says so rather than show empty counts.',
      ),
  })
  .meta({ id: 'SessionDeck' });
export type SessionDeck = z.output<typeof SessionDeck>;

export const ListSessionQuestionsInput = z
  .strictObject({
    id: SessionId,
    limit: ListLimit,
    cursor: ListCursor,
    slideId: SlideId.optional().describe('Only questions asked on this slide.'),
    status: QuestionStatus.optional().describe('`pending` for the moderation queue.'),
  })
  .meta({ id: 'ListSessionQuestionsInput' });
export type ListSessionQuestionsInput = z.input<typeof ListSessionQuestionsInput>;

export const ModerateSessionQuestionInput = z
  .strictObject({
    id: SessionId,
    questionId: ResponseId.describe('A question asked in this session.'),
    status: QuestionStatus.describe('`approved` shows the question; `dismissed` hides it.'),
  })
  .meta({ id: 'ModerateSessionQuestionInput' });
export type ModerateSessionQuestionInput = z.input<typeof ModerateSessionQuestionInput>;

export const ListSessionResponsesInput = z
  .strictObject({
    id: SessionId,
    limit: ListLimit,
    cursor: ListCursor,
    slideId: SlideId.optional().describe('Only answers to this slide.'),
    status: QuestionStatus.optional().describe('`pending`: the answers the text filter holds for review.'),
  })
  .meta({ id: 'ListSessionResponsesInput' });
export type ListSessionResponsesInput = z.input<typeof ListSessionResponsesInput>;

export const ModerateSessionResponseInput = z
  .strictObject({
    id: SessionId,
    responseId: ResponseId.describe('An open-ended answer or a Q&A question given in this session.'),
    status: z.enum(['approved', 'dismissed']).describe('`approved`: counted and shown; `dismissed`: never shown.'),
  })
  .meta({ id: 'ModerateSessionResponseInput' });
export type ModerateSessionResponseInput = z.input<typeof ModerateSessionResponseInput>;

export const SessionAnswersInput = z.strictObject({ id: SessionId }).meta({ id: 'SessionAnswersInput' });
export type SessionAnswersInput = z.input<typeof SessionAnswersInput>;

const DeletedCount = z.number().int().min(0);

/** What `DELETE /sessions/{id}/answers` answers: how much of the room was deleted. */
export const SessionAnswersReset = z
  .object({
    sessionId: SessionId,
    pollId: PollId,
    deleted: z.object({
      votes: DeletedCount.describe('Votes on multiple-choice slides.'),
      responses: DeletedCount.describe('Responses to quiz, scale, ranking and open-ended slides.'),
      questions: DeletedCount.describe('Q&A questions asked in the session.'),
      upvotes: DeletedCount.describe('Upvotes of those questions.'),
    }),
  })
  .meta({ id: 'SessionAnswersReset' });
export type SessionAnswersReset = z.output<typeof SessionAnswersReset>;

// Types of the same names: `*Input` schemas as a client writes them, the rest as the API answers.
export type SessionStatus = z.output<typeof SessionStatus>;
export type SessionAction = z.output<typeof SessionAction>;
export type SessionId = z.output<typeof SessionId>;
export type Pin = z.output<typeof Pin>;
export type SessionPace = z.output<typeof SessionPace>;
export type ShowScores = z.output<typeof ShowScores>;
export type JoinChallengeMode = z.output<typeof JoinChallengeMode>;
export type LinkId = z.output<typeof LinkId>;
export type JoinCode = z.output<typeof JoinCode>;
