/**
 * Compile-time checks of the client's derived types. Vitest does not run this file (it is not a
 * `*.test.ts`); `tsc --noEmit -p sdk` checks it, and an `@ts-expect-error` that stops erroring fails
 * that check.
 */
import { expectTypeOf } from 'vitest';
import {
  type AnswersReset,
  type ConflictError,
  type CreatePollInput,
  createClient,
  type DeletedPoll,
  type Page,
  type PagePromise,
  type Poll,
  type PollkitClient,
  type PollkitError,
  type PollList,
  type RequestOptions,
  type RotatedApiKey,
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
client.sessions;

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
