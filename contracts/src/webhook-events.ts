import { z } from 'zod';
import { PollResponse, Question, Vote } from './schemas/answers.js';
import { Timestamp } from './schemas/common.js';
import { EndedSession } from './schemas/live.js';
import { DeletedPoll, Poll, PollId } from './schemas/polls.js';
import { RespondentErased } from './schemas/respondents.js';
import { Session, SessionId } from './schemas/sessions.js';
import { WebhookEndpointId, WebhookEventId, type WebhookEventType } from './schemas/webhooks.js';

/**
 * The events webhooks deliver: each one a JSON body `{ id, type, createdAt, data }`, POSTed to every
 * enabled endpoint that subscribed to its `type`, signed per Standard Webhooks. `id` is also the
 * `webhook-id` header, the same on every retry and for every endpoint: a receiver that stores the ids
 * it processed drops the duplicates an at-least-once delivery can bring.
 *
 * `data` is the resource as the API's own read of it answers, as it was when the event happened.
 */
function webhookEvent<T extends string, D extends z.ZodType>(type: T, data: D, id: string, description: string) {
  return z
    .object({
      id: WebhookEventId,
      type: z.literal(type),
      createdAt: Timestamp.describe('When the change happened (it committed in the same transaction as this event).'),
      data,
    })
    .meta({ id, description });
}

export const PollCreatedEvent = webhookEvent('poll.created', Poll, 'PollCreatedEvent', 'A poll was created.');
export const PollUpdatedEvent = webhookEvent(
  'poll.updated',
  Poll,
  'PollUpdatedEvent',
  'A poll’s title, slides or branching changed (`PATCH /polls/{id}` that did not only change its status).',
);
export const PollPublishedEvent = webhookEvent(
  'poll.published',
  Poll,
  'PollPublishedEvent',
  'A poll was published: it takes answers from now on.',
);
export const PollClosedEvent = webhookEvent(
  'poll.closed',
  Poll,
  'PollClosedEvent',
  'A poll was closed: it takes no more answers.',
);
export const PollDeletedEvent = webhookEvent(
  'poll.deleted',
  DeletedPoll,
  'PollDeletedEvent',
  'A poll was deleted with its answers and sessions.',
);
export const VoteCreatedEvent = webhookEvent(
  'vote.created',
  Vote.extend({ sessionId: z.string().nullable().describe('The live session it came from; null through the API.') }),
  'VoteCreatedEvent',
  'A vote was recorded (through the API or in a live session).',
);
export const ResponseCreatedEvent = webhookEvent(
  'response.created',
  PollResponse.extend({
    sessionId: z.string().nullable().describe('The live session it came from; null through the API.'),
  }),
  'ResponseCreatedEvent',
  'A response to a quiz, scale, ranking or open-ended slide was recorded. Q&A questions are `question.created`.',
);
export const QuestionCreatedEvent = webhookEvent(
  'question.created',
  Question.extend({
    sessionId: z.string().nullable().describe('The live session it was asked in; null through the API.'),
  }),
  'QuestionCreatedEvent',
  'A question was asked on a Q&A slide (`status: pending` on a moderated slide).',
);
export const SessionCreatedEvent = webhookEvent(
  'session.created',
  Session,
  'SessionCreatedEvent',
  'A live session was created (it waits for `start`).',
);
export const SessionStartedEvent = webhookEvent(
  'session.started',
  Session,
  'SessionStartedEvent',
  'A live session started: its first slide is on screen.',
);
export const SessionSlideChangedEvent = webhookEvent(
  'session.slide_changed',
  Session,
  'SessionSlideChangedEvent',
  'The presenter moved to another slide (`next`, `prev` or `goto`); `currentSlideIndex` is the new one.',
);
export const SessionEndedEvent = webhookEvent(
  'session.ended',
  EndedSession,
  'SessionEndedEvent',
  'A live session ended: the session as it ended (`participantCount`) and its `leaderboard`, the ten highest ' +
    'scores (null without quiz slides). `GET /sessions/{id}/participants` lists everyone.',
);
export const ParticipantCompleted = z
  .object({
    sessionId: SessionId,
    pollId: PollId,
    participantId: z.string().describe('The participant (`prt_…`): the `voterId` of its answers.'),
    name: z.string().nullable().describe('As given at join; null when none was.'),
    answerCount: z.number().int().describe('Slides the participant answered.'),
    score: z.number().int().describe('Quiz points (0 without quiz slides).'),
  })
  .meta({ id: 'ParticipantCompleted' });
export const SessionParticipantCompletedEvent = webhookEvent(
  'session.participant_completed',
  ParticipantCompleted,
  'SessionParticipantCompletedEvent',
  'A participant walked to the end of a self-paced session.',
);
export const RespondentErasedEvent = webhookEvent(
  'respondent.erased',
  RespondentErased,
  'RespondentErasedEvent',
  'A respondent was erased (`DELETE /respondents/{id}`): `data.id` is the id erased, so your systems can erase ' +
    'it downstream too. Once delivered, the stored copy of this payload is purged (the delivery log keeps ' +
    '`"[erased]"` in place of the id).',
);
export const WebhookTestEvent = webhookEvent(
  'webhook.test',
  z.object({
    endpointId: WebhookEndpointId,
    message: z.string(),
  }),
  'WebhookTestEvent',
  'Sent by `POST /webhooks/{id}/test` to that endpoint only, to check that it receives and verifies deliveries.',
);

/** Each subscribable event type's schema (the OpenAPI document's `webhooks` section lists them). */
export const webhookEventSchemas = {
  'poll.created': PollCreatedEvent,
  'poll.updated': PollUpdatedEvent,
  'poll.published': PollPublishedEvent,
  'poll.closed': PollClosedEvent,
  'poll.deleted': PollDeletedEvent,
  'vote.created': VoteCreatedEvent,
  'response.created': ResponseCreatedEvent,
  'question.created': QuestionCreatedEvent,
  'session.created': SessionCreatedEvent,
  'session.started': SessionStartedEvent,
  'session.slide_changed': SessionSlideChangedEvent,
  'session.ended': SessionEndedEvent,
  'session.participant_completed': SessionParticipantCompletedEvent,
  'respondent.erased': RespondentErasedEvent,
} as const satisfies Record<WebhookEventType, z.ZodType>;

/** Any event a webhook delivery carries, discriminated by `type`. */
export const WebhookEvent = z
  .discriminatedUnion('type', [
    PollCreatedEvent,
    PollUpdatedEvent,
    PollPublishedEvent,
    PollClosedEvent,
    PollDeletedEvent,
    VoteCreatedEvent,
    ResponseCreatedEvent,
    QuestionCreatedEvent,
    SessionCreatedEvent,
    SessionStartedEvent,
    SessionSlideChangedEvent,
    SessionEndedEvent,
    SessionParticipantCompletedEvent,
    RespondentErasedEvent,
    WebhookTestEvent,
  ])
  .meta({ id: 'WebhookEvent' });
export type WebhookEvent = z.output<typeof WebhookEvent>;

/** The event of one type, e.g. `WebhookEventOf<'vote.created'>`. */
export type WebhookEventOf<T extends WebhookEvent['type']> = Extract<WebhookEvent, { type: T }>;

/** The `data` of each event type, as the server builds it. */
export type WebhookEventData = { [T in WebhookEvent['type']]: WebhookEventOf<T>['data'] };
