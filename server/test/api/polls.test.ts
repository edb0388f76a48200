import type { ErrorEnvelope } from '@pollkit/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ContentInput, sampleContent } from '../support/decks.js';
import { rawCall } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';
import {
  type ApiResponse,
  type BodyOf,
  errorDetails,
  expectOk,
  expectStatus,
  testClient,
} from '../support/test-client.js';

let t: TestServer;
const api = testClient(() => t.api);
let apiKey: string;

beforeAll(async () => {
  t = await startTestServer();
  ({ apiKey } = await t.workspace('pro'));
});
afterAll(() => t?.close());

const createPoll = (body: BodyOf<'POST /polls'> = { title: 'Team lunch', content: sampleContent() }, key = apiKey) =>
  api.request('POST /polls', { apiKey: key, body });

describe('polls', () => {
  it('creates a draft poll with every slide kind and answers 201 with defaults filled in', async () => {
    const res = await createPoll();
    expectStatus(res, 201);
    expect(res.body.id).toMatch(/^poll_[0-9A-Z]{26}$/);
    expect(res.body).toMatchObject({
      title: 'Team lunch',
      status: 'draft',
      branching: null,
      publishedAt: null,
      closedAt: null,
    });
    expect(res.body.content.questions.map((q) => q.kind)).toEqual([
      'multiple_choice',
      'quiz',
      'scale',
      'ranking',
      'open_ended',
      'qa',
      'content',
    ]);
    const created = new Date(res.body.createdAt).getTime();
    expect(Math.abs(created - Date.now())).toBeLessThan(60_000);
  });

  it('fills kind defaults the client left out', async () => {
    const res = await createPoll({
      title: 'Defaults',
      content: {
        questions: [
          {
            id: 'q',
            kind: 'quiz',
            text: 'Q',
            options: [
              { id: 'a', label: 'A' },
              { id: 'b', label: 'B' },
            ],
            correctOptionIds: ['a'],
          },
          { id: 'o', kind: 'open_ended', text: 'O' },
        ],
      },
    });
    expectStatus(res, 201);
    expect(res.body.content.questions[0]).toMatchObject({ timeLimitSec: 30, points: 1000, speedBonus: false });
    expect(res.body.content.questions[1]).toMatchObject({ maxLength: 500, render: 'list' });
  });

  it('gets a poll by id and 404s unknown and malformed ids', async () => {
    const poll = expectOk(await createPoll());
    const got = await api.request('GET /polls/{id}', { params: { id: poll.id }, apiKey });
    expectStatus(got, 200);
    expect(got.body).toEqual(poll);

    const missing = await api.request('GET /polls/{id}', { params: { id: 'poll_01AAAAAAAAAAAAAAAAAAAAAAAA' }, apiKey });
    expectStatus(missing, 404);
    expect(missing.body).toEqual({ error: { code: 'not_found', message: 'Poll not found' } });

    // A malformed id names nothing that could exist: the same 404 as an unknown one, on every
    // route that takes an id in its path, whatever else the request holds.
    for (const id of ['abc', 'poll 1/../x', 'poll_01aaaaaaaaaaaaaaaaaaaaaaaa', '\u0000', 'constructor', '__proto__']) {
      const malformed = await api.request('GET /polls/{id}', { params: { id }, apiKey });
      expect(malformed.status, id).toBe(404);
      expect(malformed.body).toEqual({ error: { code: 'not_found', message: 'Poll not found' } });
    }
    const badBody = await rawCall('POST', `${t.api}/polls/abc/votes`, { apiKey, body: { voterId: '' } });
    expect(badBody.body).toEqual({ error: { code: 'not_found', message: 'Poll not found' } });
    const question = await api.request('PATCH /polls/{id}/questions/{questionId}', {
      params: { id: poll.id, questionId: 'rsp_x' },
      apiKey,
      body: { status: 'approved' },
    });
    expectStatus(question, 404);
    expect(question.body).toEqual({ error: { code: 'not_found', message: 'Question not found' } });
  });

  it('decodes percent-encoded path parameters', async () => {
    const poll = expectOk(await createPoll());
    const encoded = poll.id.replace('_', '%5F');
    const got = await rawCall<{ id: string }>('GET', `${t.api}/polls/${encoded}`, { apiKey });
    expect(got.status).toBe(200);
    expect(got.body.id).toBe(poll.id);
  });

  it('walks draft -> published -> closed -> published -> draft', async () => {
    const poll = expectOk(await createPoll());
    const patch = (body: BodyOf<'PATCH /polls/{id}'>) =>
      api.request('PATCH /polls/{id}', { params: { id: poll.id }, apiKey, body });

    const published = await patch({ publish: true });
    expectStatus(published, 200);
    expect(published.body.status).toBe('published');
    expect(published.body.publishedAt).not.toBeNull();

    const closed = expectOk(await patch({ closed: true }));
    expect(closed.status).toBe('closed');
    expect(closed.closedAt).not.toBeNull();

    const reopened = expectOk(await patch({ publish: true }));
    expect(reopened.status).toBe('published');
    expect(reopened.closedAt).toBeNull();

    const draft = await patch({ publish: false });
    expect(draft.body).toMatchObject({ status: 'draft', publishedAt: null, closedAt: null });
  });

  it('refuses to close a draft with 409 poll_not_published and changes nothing', async () => {
    const poll = expectOk(await createPoll());
    const res = await api.request('PATCH /polls/{id}', { params: { id: poll.id }, apiKey, body: { closed: true } });
    expectStatus(res, 409);
    expect(res.body.error.code).toBe('poll_not_published');
    const after = await api.request('GET /polls/{id}', { params: { id: poll.id }, apiKey });
    expect(after.body).toEqual(poll);
  });

  it('updates title and content', async () => {
    const poll = expectOk(await createPoll());
    const res = await api.request('PATCH /polls/{id}', {
      params: { id: poll.id },
      apiKey,
      body: { title: 'Renamed', content: { questions: [{ id: 'only', kind: 'content', text: 'Hi' }] } },
    });
    expectStatus(res, 200);
    expect(res.body.title).toBe('Renamed');
    expect(res.body.content.questions).toEqual([{ id: 'only', kind: 'content', text: 'Hi' }]);
    expect(new Date(res.body.updatedAt).getTime()).toBeGreaterThanOrEqual(new Date(poll.updatedAt).getTime());
  });

  it('refuses to publish a poll with no slides (422 on content.questions) and changes nothing', async () => {
    const expectNoSlides = (res: ApiResponse<'PATCH /polls/{id}'>) => {
      expectStatus(res, 422);
      expect(res.body.error.code).toBe('validation_failed');
      expect(Object.keys(errorDetails(res).fieldErrors)).toEqual(['content.questions']);
    };
    const empty = expectOk(await createPoll({ title: 'Empty' }));
    expect(empty.content.questions).toEqual([]);
    expectNoSlides(
      await api.request('PATCH /polls/{id}', { params: { id: empty.id }, apiKey, body: { publish: true } }),
    );
    expectNoSlides(
      await api.request('PATCH /polls/{id}', {
        params: { id: empty.id },
        apiKey,
        body: { title: 'Still empty', publish: true },
      }),
    );
    expect((await api.request('GET /polls/{id}', { params: { id: empty.id }, apiKey })).body).toEqual(empty);

    // Emptying the deck in the publishing request, or emptying a published poll's deck, is the same 422.
    const full = expectOk(await createPoll());
    const noQuestions = { questions: [] };
    expectNoSlides(
      await api.request('PATCH /polls/{id}', {
        params: { id: full.id },
        apiKey,
        body: { content: noQuestions, publish: true },
      }),
    );
    expect(
      (await api.request('PATCH /polls/{id}', { params: { id: full.id }, apiKey, body: { publish: true } })).status,
    ).toBe(200);
    expectNoSlides(
      await api.request('PATCH /polls/{id}', { params: { id: full.id }, apiKey, body: { content: noQuestions } }),
    );

    // A draft may be emptied; with a slide added it publishes.
    const draft = expectOk(await createPoll());
    const emptied = await api.request('PATCH /polls/{id}', {
      params: { id: draft.id },
      apiKey,
      body: { content: noQuestions },
    });
    expectStatus(emptied, 200);
    const oneSlide: ContentInput = { questions: [{ id: 'hello', kind: 'content', text: 'Hello' }] };
    const published = await api.request('PATCH /polls/{id}', {
      params: { id: empty.id },
      apiKey,
      body: { content: oneSlide, publish: true },
    });
    expectStatus(published, 200);
    expect(published.body.status).toBe('published');
  });

  it('treats {"publish":"false"} as a 422, not a publish', async () => {
    const poll = expectOk(await createPoll());
    const res = await rawCall<ErrorEnvelope>('PATCH', `${t.api}/polls/${poll.id}`, {
      apiKey,
      body: { publish: 'false' },
    });
    expect(res.status).toBe(422);
    expect(errorDetails(res).fieldErrors.publish).toBeDefined();
    const after = await api.request('GET /polls/{id}', { params: { id: poll.id }, apiKey });
    expect(expectOk(after).status).toBe('draft');
  });

  it('refuses an empty PATCH and a PATCH sending both publish and closed', async () => {
    const poll = expectOk(await createPoll());
    const empty = await api.request('PATCH /polls/{id}', { params: { id: poll.id }, apiKey, body: {} });
    expectStatus(empty, 422);
    expect(errorDetails(empty).formErrors).toEqual(['Send at least one field to change']);
    const both = await api.request('PATCH /polls/{id}', {
      params: { id: poll.id },
      apiKey,
      body: { publish: true, closed: true },
    });
    expectStatus(both, 422);
  });

  it('deletes a poll; it is gone afterwards', async () => {
    const poll = expectOk(await createPoll());
    const res = await api.request('DELETE /polls/{id}', { params: { id: poll.id }, apiKey });
    expectStatus(res, 200);
    expect(res.body).toEqual({ id: poll.id, deleted: true });
    expect((await api.request('GET /polls/{id}', { params: { id: poll.id }, apiKey })).status).toBe(404);
    expect((await api.request('DELETE /polls/{id}', { params: { id: poll.id }, apiKey })).status).toBe(404);
  });

  it('isolates workspaces: another workspace sees 404 and its list stays empty', async () => {
    const poll = expectOk(await createPoll());
    const other = await t.workspace('pro');
    for (const [method, body] of [
      ['GET', undefined],
      ['PATCH', { title: 'stolen' }],
      ['DELETE', undefined],
    ] as const) {
      const res = await rawCall<ErrorEnvelope>(method, `${t.api}/polls/${poll.id}`, { apiKey: other.apiKey, body });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
    const list = await api.request('GET /polls', { apiKey: other.apiKey });
    expect(list.body).toEqual({ data: [], nextCursor: null });
    expect(expectOk(await api.request('GET /polls/{id}', { params: { id: poll.id }, apiKey })).title).toBe(poll.title);
  });
});

describe('listing polls', () => {
  it('pages newest first with a cursor and filters by status', async () => {
    const { apiKey: key } = await t.workspace('pro');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await createPoll({ title: `Poll ${i}`, content: sampleContent() }, key);
      ids.push(expectOk(res).id);
    }
    await api.request('PATCH /polls/{id}', { params: { id: ids[1]! }, apiKey: key, body: { publish: true } });

    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: ApiResponse<'GET /polls'> = await api.request('GET /polls', {
        apiKey: key,
        query: { limit: 2, cursor: cursor ?? undefined },
      });
      expectStatus(page, 200);
      expect(page.body.data.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.data.map((p) => p.id));
      cursor = page.body.nextCursor;
      pages += 1;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual([...ids].reverse());

    const published = await api.request('GET /polls', { query: { status: 'published' }, apiKey: key });
    expect(expectOk(published).data.map((p) => p.id)).toEqual([ids[1]]);
  });

  it('rejects a bad limit, a bad status and a forged cursor with 422', async () => {
    for (const query of ['limit=0', 'limit=101', 'limit=abc', 'status=archived', 'cursor=bm90LWFuLWlk', 'unknown=1']) {
      const res = await rawCall<ErrorEnvelope>('GET', `${t.api}/polls?${query}`, { apiKey });
      expect(res.status, query).toBe(422);
      expect(res.body.error.code, query).toBe('validation_failed');
    }
  });
});
