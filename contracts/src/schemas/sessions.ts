import { z } from 'zod';
import { QuestionStatus, ResponseId, SlideId } from './answers.js';
import { ListCursor, ListLimit, pageOf, resourceId, Timestamp } from './common.js';
import { PollId, Slide } from './polls.js';
import { text } from './text.js';

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

export const Session = z
  .object({
    id: SessionId,
    pollId: PollId,
    pin: Pin,
    status: SessionStatus,
    currentSlideIndex: z.number().int().describe('0-based index of the slide on screen.'),
    slideCount: z.number().int().describe('Slides in the poll’s deck.'),
    resultsVisible: z.boolean().describe('Whether participants see the current slide’s results.'),
    locked: z.boolean().describe('Whether the current slide refuses answers.'),
    slideStartedAt: Timestamp.nullable().describe(
      'When the current slide went live (null before `start`): a quiz slide’s countdown runs from it.',
    ),
    joinUrl: z.url().describe('Where the audience joins; the QR code (`GET /sessions/{id}/qr.svg`) encodes it.'),
    participantCount: z.number().int().describe('Participants who joined (removed ones included).'),
    maxParticipants: z
      .number()
      .int()
      .describe('Participants the session takes at most; a join past it answers 409 `session_full`.'),
    joinsLocked: z
      .boolean()
      .describe('No new participants: a join answers 409 `joins_locked`; those who joined carry on.'),
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
        'device that holds no API key. Shown this once; stored only as a hash.',
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

export const CreateSessionInput = z
  .strictObject({
    pollId: PollId.describe('A published poll: its slides are the session’s deck.'),
    maxParticipants: MaxParticipants.optional(),
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
  })
  .refine((input) => input.joinsLocked !== undefined || input.maxParticipants !== undefined, {
    message: 'Send `joinsLocked`, `maxParticipants` or both',
  })
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
      .describe('The session’s new host token, shown this once; the one it replaces stops working at once.'),
  })
  .meta({ id: 'RotatedHostToken' });
export type RotatedHostToken = z.output<typeof RotatedHostToken>;

export const SessionQrInput = z.strictObject({ id: SessionId });
export type SessionQrInput = z.input<typeof SessionQrInput>;

export const SessionEventsInput = z.strictObject({ id: SessionId });
export type SessionEventsInput = z.input<typeof SessionEventsInput>;

export const SessionDeckInput = z.strictObject({ id: SessionId });
export type SessionDeckInput = z.input<typeof SessionDeckInput>;

/**
 * The slides a presenter shows: the poll's as they are now, with quiz answers (the presenter reveals
 * them). A presenter device that holds only the host token cannot read the poll itself.
 */
export const SessionDeck = z
  .object({
    sessionId: SessionId,
    pollId: PollId,
    title: z.string(),
    slides: z.array(Slide).describe('In deck order: `currentSlideIndex` indexes it.'),
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
    questionId: ResponseId.describe('A question of the session’s poll.'),
    status: QuestionStatus.describe('`approved` shows the question; `dismissed` hides it.'),
  })
  .meta({ id: 'ModerateSessionQuestionInput' });
export type ModerateSessionQuestionInput = z.input<typeof ModerateSessionQuestionInput>;

// Types of the same names: `*Input` schemas as a client writes them, the rest as the API answers.
export type SessionStatus = z.output<typeof SessionStatus>;
export type SessionAction = z.output<typeof SessionAction>;
export type SessionId = z.output<typeof SessionId>;
export type Pin = z.output<typeof Pin>;
