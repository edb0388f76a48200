/**
 * Compile-time checks of the client's derived types. Vitest does not run this file (it is not a
 * `*.test.ts`); `tsc --noEmit -p sdk` checks it, and an `@ts-expect-error` that stops erroring fails
 * that check.
 */
import { expectTypeOf } from 'vitest';
import {
  type AnswersReset,
  type ConflictError,
  type CreatedSession,
  type CreatePollInput,
  createClient,
  type DeletedPoll,
  type EventStream,
  type EventStreamOptions,
  joinSession,
  type LiveAnswerReceipt,
  type LiveParticipant,
  type LiveState,
  type Page,
  type PagePromise,
  type ParticipantEvent,
  type Poll,
  type PollkitClient,
  type PollkitError,
  type PollList,
  type PresenterEvent,
  type PresenterSession,
  presenterSession,
  type Question,
  type RequestOptions,
  type RotatedApiKey,
  type Session,
  type ValidationError,
  type Vote,
  type Workspace,
} from '../src/index.js';

declare const client: PollkitClient;

expectTypeOf(createClient).returns.toEqualTypeOf<PollkitClient>();

// create: `title` is required, `content` is not; the result is a Poll.
expectTypeOf(client.polls.create).parameter(0).toEqualTypeOf<CreatePollInput>();
expectTypeOf<CreatePollInput>().toHaveProperty('title').toEqualTypeOf<string>();
expectTypeOf(client.polls.create).returns.resolves.toEqualTypeOf<Poll>();
expectTypeOf<Poll['status']>().toEqualTypeOf<'draft' | 'published' | 'closed'>();
expectTypeOf<Poll['id']>().toEqualTypeOf<string>();
expectTypeOf<Poll['publishedAt']>().toEqualTypeOf<string | null>();
client.polls.create({ title: 'No content is fine' });
// @ts-expect-error `title` is required
client.polls.create({});
// @ts-expect-error the input is required
client.polls.create();
// @ts-expect-error unknown fields are refused (the server would answer 422)
client.polls.create({ title: 'x', colour: 'red' });
// @ts-expect-error `title` is a string
client.polls.create({ title: 42 });

// get and delete: `id` is required.
expectTypeOf(client.polls.get).parameter(0).toEqualTypeOf<{ id: string }>();
expectTypeOf(client.polls.get).returns.resolves.toEqualTypeOf<Poll>();
expectTypeOf(client.polls.delete).returns.resolves.toEqualTypeOf<DeletedPoll>();
// @ts-expect-error `id` is required
client.polls.get({});
// @ts-expect-error the input is required
client.polls.get();
// @ts-expect-error the input is required
client.polls.delete();

// list: every field is optional, so is the input; the result is a page of polls.
client.polls.list();
client.polls.list({ limit: 2, cursor: 'abc', status: 'published' });
expectTypeOf(client.polls.list).returns.toEqualTypeOf<PagePromise<Poll>>();
expectTypeOf(client.polls.list).returns.resolves.toEqualTypeOf<Page<Poll>>();
expectTypeOf<Page<Poll>>().toExtend<PollList>();
expectTypeOf(client.votes.list).returns.resolves.toHaveProperty('data').toEqualTypeOf<Vote[]>();
// Only list routes page: a route answering anything else resolves to its plain output.
expectTypeOf(client.polls.get).returns.toEqualTypeOf<Promise<Poll>>();
expectTypeOf<PollList['data']>().toEqualTypeOf<Poll[]>();
expectTypeOf<PollList['nextCursor']>().toEqualTypeOf<string | null>();
// @ts-expect-error `status` is one of the poll statuses
client.polls.list({ status: 'archived' });

// update: `id` plus the fields to change.
client.polls.update({ id: 'poll_1', publish: true });
// @ts-expect-error `publish` is a boolean
client.polls.update({ id: 'poll_1', publish: 'true' });

// Every method takes per-call options last.
expectTypeOf(client.polls.get).parameter(1).toEqualTypeOf<RequestOptions | undefined>();
client.polls.list(undefined, { signal: AbortSignal.timeout(1000), headers: { 'x-request-id': 'abc' } });
// @ts-expect-error a route the contract does not have
client.polls.archive;
// @ts-expect-error a group the contract does not have
client.billing;

// Error codes autocomplete from the registry and still accept codes from a newer server.
declare const error: PollkitError;
expectTypeOf<'not_found'>().toExtend<typeof error.code>();
expectTypeOf<'some_future_code'>().toExtend<typeof error.code>();
expectTypeOf(error.status).toEqualTypeOf<number | undefined>();
expectTypeOf(error.details?.fieldErrors).toEqualTypeOf<Record<string, string[]> | undefined>();

// Family classes narrow `code` to the registry's codes of their status, still open to newer ones.
declare const conflict: ConflictError;
expectTypeOf<'already_responded'>().toExtend<typeof conflict.code>();
expectTypeOf<'poll_closed'>().toExtend<typeof conflict.code>();
declare const invalid: ValidationError;
expectTypeOf(invalid.fieldErrors).toEqualTypeOf<Record<string, string[]>>();
expectTypeOf(invalid.formErrors).toEqualTypeOf<string[]>();

// Per-call options: timeout, retries, idempotency key, validation.
client.polls.create({ title: 'x' }, { timeout: 5_000, maxRetries: 0, idempotencyKey: 'k', validateResponse: true });
// withOptions derives a client of the same type.
expectTypeOf(client.withOptions({ maxRetries: 5 })).toEqualTypeOf<PollkitClient>();

// workspace.get takes no input; answers.reset takes the poll id; rotate answers the previous key too.
expectTypeOf(client.workspace.get).returns.resolves.toEqualTypeOf<Workspace>();
client.workspace.get();
expectTypeOf<Workspace['credential']['kind']>().toEqualTypeOf<'api_key' | 'oauth_token'>();
expectTypeOf<Workspace['credential']['expiresAt']>().toEqualTypeOf<string | null>();
expectTypeOf(client.answers.reset).returns.resolves.toEqualTypeOf<AnswersReset>();
client.answers.reset({ id: 'poll_1' });
// @ts-expect-error the poll id is required
client.answers.reset();
expectTypeOf(client.keys.rotate).returns.resolves.toEqualTypeOf<RotatedApiKey>();
expectTypeOf<RotatedApiKey['previousKey']['expiresAt']>().toEqualTypeOf<string | null>();

// Live sessions: create answers the host token once; list pages; get and control answer the session.
expectTypeOf(client.sessions.create).returns.resolves.toEqualTypeOf<CreatedSession>();
expectTypeOf<CreatedSession['hostToken']>().toEqualTypeOf<string>();
expectTypeOf(client.sessions.list).returns.toEqualTypeOf<PagePromise<Session>>();
client.sessions.list({ status: 'active', limit: 5 });
expectTypeOf(client.sessions.get).returns.toEqualTypeOf<Promise<Session>>();
expectTypeOf(client.sessions.control).returns.resolves.toEqualTypeOf<Session>();
client.sessions.control({ id: 'ses_1', action: 'goto', slideIndex: 2 });
// @ts-expect-error an action the contract does not have
client.sessions.control({ id: 'ses_1', action: 'restart' });
expectTypeOf<Session['status']>().toEqualTypeOf<'pending' | 'active' | 'ended'>();

// An SVG route answers the document's text.
expectTypeOf(client.sessions.qrCode).returns.toEqualTypeOf<Promise<string>>();

// An SSE route answers an EventStream of its union, not a promise; its options are the stream's.
expectTypeOf(client.sessions.events).returns.toEqualTypeOf<EventStream<PresenterEvent>>();
expectTypeOf(client.live.events).returns.toEqualTypeOf<EventStream<ParticipantEvent>>();
expectTypeOf(client.sessions.events).parameter(1).toEqualTypeOf<EventStreamOptions | undefined>();
expectTypeOf<EventStream<PresenterEvent>>().toExtend<AsyncIterable<PresenterEvent>>();
expectTypeOf<EventStream<PresenterEvent>['lastEventId']>().toEqualTypeOf<string | undefined>();
expectTypeOf<EventStream<PresenterEvent>['close']>().toEqualTypeOf<() => void>();
client.live.events({ pin: '123456' }, { lastEventId: '7', maxReconnects: 3, idleTimeout: 10_000 });
// @ts-expect-error streams take no idempotency key
client.sessions.events({ id: 'ses_1' }, { idempotencyKey: 'k' });
// @ts-expect-error the session id is required
client.sessions.events({});
// The union narrows on `type`.
async function readPresenter(stream: EventStream<PresenterEvent>) {
  for await (const event of stream) {
    if (event.type === 'counts') expectTypeOf(event.data.participantCount).toEqualTypeOf<number>();
    if (event.type === 'session') expectTypeOf(event.data).toEqualTypeOf<Session>();
    expectTypeOf(event.id).toEqualTypeOf<string | undefined>();
    // @ts-expect-error `answerCount` is on `counts` events only
    event.data.answerCount;
  }
}
async function readParticipant(stream: EventStream<ParticipantEvent>) {
  for await (const event of stream) {
    if (event.type === 'slide') expectTypeOf(event.data).toEqualTypeOf<LiveState>();
    expectTypeOf(event.type).toEqualTypeOf<
      'slide' | 'completed' | 'results' | 'results_hidden' | 'locked' | 'unlocked' | 'questions' | 'ended'
    >();
  }
}
void readPresenter;
void readParticipant;

// A presenter device: the host token instead of an API key.
const presenter = presenterSession({ baseUrl: 'https://polls.example.com', sessionId: 'ses_1', hostToken: 't' });
expectTypeOf(presenter).toEqualTypeOf<PresenterSession>();
expectTypeOf(presenter.get).returns.toEqualTypeOf<Promise<Session>>();
expectTypeOf(presenter.control('goto', 1)).toEqualTypeOf<Promise<Session>>();
expectTypeOf(presenter.events()).toEqualTypeOf<EventStream<PresenterEvent>>();
expectTypeOf(presenter.qrCode()).toEqualTypeOf<Promise<string>>();
// @ts-expect-error an action the contract does not have
presenter.control('restart');
// @ts-expect-error the host token is required
presenterSession({ baseUrl: 'https://polls.example.com', sessionId: 'ses_1' });

// A participant: the PIN, no API key.
expectTypeOf(joinSession).returns.toEqualTypeOf<Promise<LiveParticipant>>();
// @ts-expect-error the PIN is required
joinSession({ baseUrl: 'https://polls.example.com' });
declare const participant: LiveParticipant;
expectTypeOf(participant.participantToken).toEqualTypeOf<string>();
expectTypeOf(participant.resumed).toEqualTypeOf<boolean>();
expectTypeOf(participant.state).toEqualTypeOf<LiveState>();
expectTypeOf(participant.events()).toEqualTypeOf<EventStream<ParticipantEvent>>();
expectTypeOf(participant.answer({ slideId: 's', optionIds: ['a'] })).toEqualTypeOf<Promise<LiveAnswerReceipt>>();
participant.answer({ slideId: 's', scaleValue: 3 }, { idempotencyKey: 'k' });
// @ts-expect-error the participant knows its PIN: the answer does not take one
participant.answer({ pin: '123456', slideId: 's', optionIds: ['a'] });
expectTypeOf(participant.upvote('rsp_1')).toEqualTypeOf<Promise<Question>>();
