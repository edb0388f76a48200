/**
 * `@pollkit/sdk/live`: the live helpers over the schema-free route table. Against a real server it
 * does what the main entry's helpers do (the same calls, events and errors, the same error classes),
 * only without response validation; and a browser bundle of it holds no zod, which is what it is for.
 */
import { fileURLToPath } from 'node:url';
import * as live from '@pollkit/sdk/live';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleContent } from '../../../server/test/support/polls.js';
import { startTestServer, type TestServer } from '../../../server/test/support/server.js';
import * as sdk from '../../src/index.js';
import { bundledModules, fromZod } from '../support/bundle.js';
import { rejectionOf } from '../support/rejection.js';

let t: TestServer;
let client: sdk.PollkitClient;

beforeAll(async () => {
  // Per-address limits count every test file's requests from 127.0.0.1 when Redis is shared:
  // they are tested on their own addresses in server/test/api/live-sessions.participants.test.ts.
  t = await startTestServer({
    LIVE_RATE_LIMIT_PER_IP_PER_MINUTE: '1000000',
    LIVE_PIN_MISSES_PER_IP_PER_MINUTE: '1000000',
    LIVE_JOINS_PER_IP_PER_MINUTE: '1000000',
  });
  const { apiKey } = await t.workspace('pro');
  client = sdk.createClient({ apiKey, baseUrl: t.url });
});
afterAll(() => t?.close());

/** What both entries export for a live session: the live entry's signatures, which the main entry's accept. */
interface LiveEntry {
  presenterSession: typeof live.presenterSession;
  joinSession: typeof live.joinSession;
  PollkitError: typeof live.PollkitError;
}

/** A session of a published poll of the sample deck, its `ask` slide (moderated Q&A) at `askIndex`. */
async function newSession(): Promise<{ session: sdk.CreatedSession; askIndex: number }> {
  const content = sampleContent();
  const poll = await client.polls.create({ title: 'Live entry', content });
  await client.polls.update({ id: poll.id, publish: true });
  const askIndex = content.questions.findIndex((slide) => slide.id === 'ask');
  return { session: await client.sessions.create({ pollId: poll.id }), askIndex };
}

/** A stream's events one at a time; `until` reads on past the throttled snapshots in between. */
function reader<T extends { type: string }>(stream: live.EventStream<T>) {
  const iterator = stream[Symbol.asyncIterator]();
  const next = async (): Promise<T> => {
    const result = await iterator.next();
    if (result.done) throw new Error('the stream ended');
    return result.value;
  };
  return {
    next,
    async until(matches: (event: T) => boolean): Promise<T> {
      for (let i = 0; i < 50; i++) {
        const event = await next();
        if (matches(event)) return event;
      }
      throw new Error('no matching event in 50');
    },
  };
}

/** What a participant event says, without the ids and times that differ from one session to the next. */
function gist(event: live.ParticipantEvent): unknown[] {
  switch (event.type) {
    case 'slide':
      return [event.type, event.data.status, event.data.slideIndex, event.data.slide?.id ?? null, event.data.answered];
    case 'questions':
      return [event.type, event.data.slideId, event.data.questions.map((q) => q.text)];
    case 'ended':
      return [event.type, event.data.participantCount];
    default:
      return [event.type];
  }
}

/**
 * One session driven through `entry`: a presenter on the host token (the deck, control, its stream,
 * the moderation queue) and a participant (join, stream, answers, a question). Its transcript.
 */
async function transcript(entry: LiveEntry): Promise<unknown[]> {
  const { session, askIndex } = await newSession();
  const out: unknown[] = [];
  const presenter = entry.presenterSession({ baseUrl: t.url, sessionId: session.id, hostToken: session.hostToken });
  const deck = await presenter.deck();
  out.push(['deck', deck.sessionId === session.id, deck.title, deck.slides.length]);
  const presenterEvents = presenter.events();
  const onConnect = await reader(presenterEvents).next();
  out.push(['presenter', onConnect.type, onConnect.type === 'session' && onConnect.data.status]);
  presenterEvents.close();

  const me = await entry.joinSession({ baseUrl: t.url, pin: session.pin as string, name: 'Ada' });
  out.push(['joined', me.resumed, me.participant.name, me.state.status]);
  const stream = me.events();
  const events = reader(stream);
  out.push(gist(await events.next()));

  const started = await presenter.control('start');
  out.push(['control', started.status, started.currentSlideIndex]);
  out.push(gist(await events.next()));
  const receipt = await me.answer({ slideId: 'lunch', optionIds: ['pizza'] });
  out.push(['answer', receipt.slideId, receipt.participantId === me.participant.id]);
  const refused = await rejectionOf(me.answer({ slideId: 'lunch', optionIds: ['sushi'] }));
  out.push([
    'refused',
    refused instanceof entry.PollkitError,
    (refused as live.PollkitError).status,
    (refused as live.PollkitError).code,
  ]);

  await presenter.control('goto', askIndex);
  out.push(gist(await events.next()));
  out.push(gist(await events.next()));
  const question = await me.answer({ slideId: 'ask', text: 'Will there be cake?' });
  const queue = await presenter.questions({ status: 'pending' });
  out.push(['queue', queue.data.map((q) => [q.id === question.id, q.text, q.status])]);
  const approved = await presenter.moderate(question.id, 'approved');
  out.push(['moderated', approved.status]);
  out.push(gist(await events.until((e) => e.type === 'questions' && e.data.questions.length > 0)));

  const ended = await presenter.control('end');
  out.push(['control', ended.status]);
  out.push(gist(await events.until((e) => e.type === 'ended')));
  return out;
}

describe('@pollkit/sdk/live against a real server', () => {
  const expected = [
    ['deck', true, 'Live entry', 7],
    ['presenter', 'session', 'pending'],
    ['joined', false, 'Ada', 'pending'],
    ['slide', 'pending', 0, null, false],
    ['control', 'active', 0],
    ['slide', 'active', 0, 'lunch', false],
    ['answer', 'lunch', true],
    ['refused', true, 409, 'already_responded'],
    ['slide', 'active', 5, 'ask', false],
    ['questions', 'ask', []],
    ['queue', [[true, 'Will there be cake?', 'pending']]],
    ['moderated', 'approved'],
    ['questions', 'ask', ['Will there be cake?']],
    ['control', 'ended'],
    ['ended', 1],
  ];

  it('presents, joins, answers, moderates and streams as the main entry does', async () => {
    expect(await transcript(live)).toEqual(expected);
    expect(await transcript(sdk)).toEqual(expected);
  });

  it('throws the main entry’s error classes', async () => {
    const pairs = {
      PollkitError: [live.PollkitError, sdk.PollkitError],
      AuthenticationError: [live.AuthenticationError, sdk.AuthenticationError],
      ConflictError: [live.ConflictError, sdk.ConflictError],
      ConnectionError: [live.ConnectionError, sdk.ConnectionError],
      NotFoundError: [live.NotFoundError, sdk.NotFoundError],
      PermissionDeniedError: [live.PermissionDeniedError, sdk.PermissionDeniedError],
      RateLimitError: [live.RateLimitError, sdk.RateLimitError],
      TimeoutError: [live.TimeoutError, sdk.TimeoutError],
      ValidationError: [live.ValidationError, sdk.ValidationError],
      InternalServerError: [live.InternalServerError, sdk.InternalServerError],
      UpgradeRequiredError: [live.UpgradeRequiredError, sdk.UpgradeRequiredError],
    };
    for (const [name, [ofLive, ofMain]] of Object.entries(pairs)) expect(ofLive, name).toBe(ofMain);
    // Every error class of the main entry is one of these: the live entry lacks none.
    const errorClasses = Object.entries(sdk).filter(
      ([, value]) =>
        typeof value === 'function' && (value === sdk.PollkitError || value.prototype instanceof sdk.PollkitError),
    );
    expect(errorClasses.map(([name]) => name).sort()).toEqual(Object.keys(pairs).sort());
    const missing = await rejectionOf(live.joinSession({ baseUrl: t.url, pin: '000000' }));
    expect(missing).toBeInstanceOf(sdk.NotFoundError);
    expect(missing).toMatchObject({ status: 404, code: 'not_found' });
    const { session } = await newSession();
    const wrong = live.presenterSession({ baseUrl: t.url, sessionId: session.id, hostToken: 'pht_wrong' });
    const refused = await rejectionOf(wrong.deck());
    expect(refused).toBeInstanceOf(sdk.AuthenticationError);
    expect(refused).toMatchObject({ status: 401, code: 'invalid_host_token' });
  });

  it('gives up response validation: what the server answers is what the call returns', async () => {
    const { session } = await newSession();
    // A server that answers a session in a shape the contract does not have.
    const doctored: live.FetchLike = async (url, init) => {
      const response = await fetch(url, init);
      if (new URL(url).pathname !== `/api/v1/sessions/${session.id}`) return response;
      const body = { ...((await response.json()) as object), status: 'paused' };
      return new Response(JSON.stringify(body), {
        status: response.status,
        headers: { 'content-type': 'application/json' },
      });
    };
    const options = { baseUrl: t.url, sessionId: session.id, hostToken: session.hostToken, fetch: doctored };

    const checked = sdk.presenterSession({ ...options, validateResponses: true });
    const invalid = await rejectionOf(checked.get());
    expect(invalid).toBeInstanceOf(sdk.PollkitError);
    expect(invalid).toMatchObject({ code: 'invalid_response' });

    const unchecked = live.presenterSession(options);
    expect(await unchecked.get()).toMatchObject({ id: session.id, status: 'paused' });
    // Asked for on one call, it has no schema to check against either.
    expect(await unchecked.get({ validateResponse: true })).toMatchObject({ status: 'paused' });
  });
});

describe('a browser bundle', () => {
  const sdkRoot = fileURLToPath(new URL('../..', import.meta.url));

  /** The workspace's packages as a bundler in the workspace sees them: from their sources. */
  const fromSources = (contents: string) => bundledModules(contents, sdkRoot, ['@pollkit/source']);
  const fromTheContractSchemas = (path: string) => /contracts\/src\/(schemas|routes)\//.test(path);

  it('of @pollkit/sdk/live holds no zod and none of the contract’s schemas', async () => {
    const modules = await fromSources(
      "export { joinSession, presenterSession, PollkitError } from '@pollkit/sdk/live';",
    );
    expect(modules).toContain('src/live-entry.ts');
    expect(modules).toContain('../contracts/src/route-table.ts');
    expect(modules.filter(fromZod)).toEqual([]);
    expect(modules.filter(fromTheContractSchemas)).toEqual([]);
  });

  it('of the same helpers from @pollkit/sdk holds zod (what the live entry spares a page)', async () => {
    const modules = await fromSources("export { joinSession, presenterSession, PollkitError } from '@pollkit/sdk';");
    expect(modules.filter(fromZod).length).toBeGreaterThan(0);
    expect(modules.filter(fromTheContractSchemas).length).toBeGreaterThan(0);
  });
});
