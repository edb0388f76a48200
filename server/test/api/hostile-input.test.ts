import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enableOAuth } from '../../src/modules/oauth/oauth.service.js';
import { expectError } from '../support/assertions.js';
import { type ContentInput, sampleContent } from '../support/decks.js';
import { type LooseJson, rawCall } from '../support/http.js';
import type { OAuthReply } from '../support/oauth.js';
import { pollPublisher } from '../support/polls.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { errorDetails, expectStatus, slideOf, testClient } from '../support/test-client.js';

/**
 * The samples issue 10 listed, each a regression test of its own: text PostgreSQL cannot store is
 * 422 naming the field (never a 500), and names of `Object.prototype` members are just names. The
 * fuzz test (fuzz.test.ts) covers the same classes on every operation; these name the cases.
 */

let t: TestServer;
const api = testClient(() => t.api);
let apiKey: string;
let pollId: string;
const publish = pollPublisher(() => ({ api: t.api, apiKey, title: 'Hostile input', content: sampleContent() }));

beforeAll(async () => {
  t = await startTestServer();
  ({ apiKey } = await t.workspace('enterprise'));
  ({ id: pollId } = await publish());
});
afterAll(() => t?.close());

const NUL = '\u0000';
const LONE = '\ud800';

function pollWith(edit: (content: ReturnType<typeof sampleContent>) => void, title = 'Poll') {
  const content = sampleContent();
  edit(content);
  return { title, content };
}

describe('text PostgreSQL cannot store is refused up front with 422 naming the field', () => {
  const slide = (content: ReturnType<typeof sampleContent>, index: number) => content.questions[index] as LooseJson;

  it.each([
    ['poll title', () => pollWith(() => {}, `Lunch${NUL}`), 'title'],
    ['slide text', () => pollWith((c) => (slide(c, 0).text = `Where${NUL}`)), 'content.questions.0.text'],
    [
      'option label',
      () => pollWith((c) => (slide(c, 0).options[1].label = NUL)),
      'content.questions.0.options.1.label',
    ],
    [
      'statement text',
      () => pollWith((c) => (slide(c, 2).statements[0].text = LONE)),
      'content.questions.2.statements.0.text',
    ],
    ['scale label', () => pollWith((c) => (slide(c, 2).minLabel = `Bad${LONE}`)), 'content.questions.2.minLabel'],
    [
      'media URL',
      () => pollWith((c) => (slide(c, 6).media = { type: 'link', url: `https://example.com/${NUL}` })),
      'content.questions.6.media.url',
    ],
  ])('%s', async (_what, body, field) => {
    const before = await api.request('GET /polls', { query: { limit: 100 }, apiKey });
    expectStatus(before, 200);
    const res = await api.request('POST /polls', { apiKey, body: body() });
    expectError(res, 422, 'validation_failed');
    expect(Object.keys(errorDetails(res).fieldErrors)).toEqual([field]);
    const after = await api.request('GET /polls', { query: { limit: 100 }, apiKey });
    expectStatus(after, 200);
    expect(after.body.data.length).toBe(before.body.data.length);
  });

  it.each([
    ['voterId of a vote', 'votes', { voterId: `ada${NUL}`, slideId: 'lunch', optionIds: ['pizza'] }, 'voterId'],
    ['open-ended text', 'responses', { voterId: 'ada', slideId: 'words', text: `hi${NUL}` }, 'text'],
    ['open-ended text, lone surrogate', 'responses', { voterId: 'ada', slideId: 'words', text: `hi${LONE}` }, 'text'],
    ['Q&A question, lone surrogate', 'responses', { voterId: 'ada', slideId: 'ask', text: `\udc00?` }, 'text'],
  ])('%s', async (_what, resource, body, field) => {
    const res = await rawCall('POST', `${t.api}/polls/${pollId}/${resource}`, { apiKey, body });
    expectError(res, 422, 'validation_failed');
    expect(Object.keys(errorDetails(res).fieldErrors)).toEqual([field]);
    const stored = await rawCall<{ data: unknown[] }>('GET', `${t.api}/polls/${pollId}/${resource}`, { apiKey });
    expect(stored.body.data).toEqual([]);
  });

  it('in query strings: voterId=%00, cursor=%00', async () => {
    for (const [path, field] of [
      [`/polls/${pollId}/votes?voterId=%00`, 'voterId'],
      [`/polls/${pollId}/responses?voterId=a%00b`, 'voterId'],
      ['/polls?cursor=%00', 'cursor'],
    ] as const) {
      const res = await rawCall('GET', `${t.api}${path}`, { apiKey });
      expectError(res, 422, 'validation_failed');
      expect(Object.keys(errorDetails(res).fieldErrors)).toEqual([field]);
    }
  });

  it('key names and media URLs', async () => {
    const key = await api.request('POST /keys', { apiKey, body: { name: `ci${NUL}` } });
    expectError(key, 422, 'validation_failed');
    expect(Object.keys(errorDetails(key).fieldErrors)).toEqual(['name']);
    const media = await api.request('POST /media', { apiKey, body: { url: `https://example.com/a${NUL}.png` } });
    expectError(media, 422, 'validation_failed');
    expect(Object.keys(errorDetails(media).fieldErrors)).toEqual(['url']);
  });

  it('OAuth client_id and client_secret, in a form, in JSON and in HTTP Basic: invalid_request / invalid_client', async () => {
    const workspace = await t.workspace('enterprise');
    await enableOAuth(t.server.deps.db, workspace.id);
    const tokenUrl = `${t.url}/api/oauth/token`;
    const form = await rawCall<OAuthReply>('POST', tokenUrl, {
      rawBody: `grant_type=client_credentials&client_id=oc%00&client_secret=x`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form.status).toBe(400);
    expect(form.body.error).toBe('invalid_request');
    const json = await rawCall<OAuthReply>('POST', tokenUrl, {
      body: { grant_type: 'client_credentials', client_id: 'oc', client_secret: `x${LONE}` },
    });
    expect(json.status).toBe(400);
    expect(json.body.error).toBe('invalid_request');
    const basic = await rawCall<OAuthReply>('POST', tokenUrl, {
      rawBody: 'grant_type=client_credentials',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from('oc%00:secret').toString('base64')}`,
      },
    });
    expect(basic.status).toBe(401);
    expect(basic.body.error).toBe('invalid_client');
  });
});

describe('names of Object.prototype members are just names', () => {
  it('as query-string keys and body fields: 422 naming them as unknown fields', async () => {
    const query = await rawCall('GET', `${t.api}/polls?constructor=1&toString=2&hasOwnProperty=3`, { apiKey });
    expectError(query, 422, 'validation_failed');
    expect(errorDetails(query).fieldErrors).toEqual({
      constructor: ['Unknown field'],
      toString: ['Unknown field'],
      hasOwnProperty: ['Unknown field'],
    });
    const body = await rawCall('POST', `${t.api}/polls`, {
      apiKey,
      rawBody: '{"title":"x","toString":1,"valueOf":{},"content":{"questions":[],"constructor":[]}}',
      headers: { 'content-type': 'application/json' },
    });
    expectError(body, 422, 'validation_failed');
    expect(Object.keys(errorDetails(body).fieldErrors).sort()).toEqual(
      ['content.constructor', 'toString', 'valueOf'].sort(),
    );
  });

  it('as slide, option and statement ids, and as voters: a whole poll works end to end', async () => {
    const names = ['constructor', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__'];
    const content: ContentInput = {
      questions: [
        {
          id: 'constructor',
          kind: 'multiple_choice',
          text: 'Pick',
          options: [
            { id: 'toString', label: 'a' },
            { id: 'valueOf', label: 'b' },
          ],
        },
        {
          id: 'toString',
          kind: 'scale',
          text: 'Rate',
          statements: [
            { id: 'hasOwnProperty', text: 'x' },
            { id: 'constructor', text: 'y' },
          ],
        },
        {
          id: 'valueOf',
          kind: 'ranking',
          text: 'Rank',
          options: [
            { id: 'constructor', label: 'a' },
            { id: '__defineGetter__', label: 'b' },
          ],
        },
      ],
    };
    const poll = await publish({ content });
    for (const voterId of names) {
      const vote = await api.request('POST /polls/{id}/votes', {
        params: { id: poll.id },
        apiKey,
        body: { voterId, slideId: 'constructor', optionIds: ['valueOf'] },
      });
      expectStatus(vote, 201);
      const scale = await api.request('POST /polls/{id}/responses', {
        params: { id: poll.id },
        apiKey,
        body: { voterId, slideId: 'toString', scaleValues: { hasOwnProperty: 2, constructor: 5 } },
      });
      expectStatus(scale, 201);
    }
    // A statement left out is named, even when the name is a member of every object's prototype.
    const missing = await api.request('POST /polls/{id}/responses', {
      params: { id: poll.id },
      apiKey,
      body: { voterId: 'someone', slideId: 'toString', scaleValues: { hasOwnProperty: 2 } },
    });
    expectError(missing, 422, 'validation_failed');
    expect(missing.body.error.message).toContain('constructor');
    const ranked = await api.request('POST /polls/{id}/responses', {
      params: { id: poll.id },
      apiKey,
      body: { voterId: 'toString', slideId: 'valueOf', rankingOrder: ['__defineGetter__', 'constructor'] },
    });
    expectStatus(ranked, 201);

    const results = await api.request('GET /polls/{id}/results', { params: { id: poll.id }, apiKey });
    expectStatus(results, 200);
    expect(results.body.totalVoters).toBe(names.length);
    const pick = slideOf(results.body.slides, 'constructor', 'multiple_choice');
    const rate = slideOf(results.body.slides, 'toString', 'scale');
    const rank = slideOf(results.body.slides, 'valueOf', 'ranking');
    expect(pick.options.map((o) => [o.id, o.count])).toEqual([
      ['toString', 0],
      ['valueOf', names.length],
    ]);
    expect(rate.statements.map((s) => [s.id, s.average])).toEqual([
      ['hasOwnProperty', 2],
      ['constructor', 5],
    ]);
    expect(rank.options.map((o) => [o.id, o.averageRank])).toEqual([
      ['constructor', 2],
      ['__defineGetter__', 1],
    ]);
    const csv = await fetch(`${t.api}/polls/${poll.id}/export`, { headers: { authorization: `Bearer ${apiKey}` } });
    expect(csv.status).toBe(200);
    expect(await csv.text()).toContain('1,"Pick",multiple_choice,b,5');
  });
});
