import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleContent } from '../support/decks.js';
import { rawCall } from '../support/http.js';
import { startTestServer, type TestServer, usingPostgres } from '../support/server.js';
import { expectOk, expectStatus, testClient } from '../support/test-client.js';

let t: TestServer;
const api = testClient(() => t.api);
let apiKey: string;

beforeAll(async () => {
  t = await startTestServer();
  ({ apiKey } = await t.workspace('pro'));
});
afterAll(() => t?.close());

async function createPoll(server: TestServer, key: string, title = 'Cached') {
  const res = await testClient(server.api).request('POST /polls', {
    apiKey: key,
    body: { title, content: sampleContent() },
  });
  expectStatus(res, 201);
  return res.body;
}

/** Changes a poll behind the API's back, as another process or an operator would. */
async function setTitleInDatabase(server: TestServer, id: string, title: string) {
  await server.server.deps.db.updateTable('polls').set({ title }).where('id', '=', id).execute();
}

describe('poll read cache', () => {
  it('serves repeated reads from memory and shows a write through the API at once', async () => {
    const poll = await createPoll(t, apiKey);
    expect(expectOk(await api.request('GET /polls/{id}', { params: { id: poll.id }, apiKey })).title).toBe('Cached');

    // A change the cache was not told about stays invisible: reads really come from the cache.
    await setTitleInDatabase(t, poll.id, 'Changed underneath');
    expect(expectOk(await api.request('GET /polls/{id}', { params: { id: poll.id }, apiKey })).title).toBe('Cached');

    // A write through the API invalidates; the next read sees the database again.
    const patched = await api.request('PATCH /polls/{id}', {
      params: { id: poll.id },
      apiKey,
      body: { title: 'Renamed' },
    });
    expectStatus(patched, 200);
    expect(expectOk(await api.request('GET /polls/{id}', { params: { id: poll.id }, apiKey })).title).toBe('Renamed');
  });

  it('forgets a deleted poll at once', async () => {
    const poll = await createPoll(t, apiKey);
    expect((await api.request('GET /polls/{id}', { params: { id: poll.id }, apiKey })).status).toBe(200);
    expect((await api.request('DELETE /polls/{id}', { params: { id: poll.id }, apiKey })).status).toBe(200);
    expect((await api.request('GET /polls/{id}', { params: { id: poll.id }, apiKey })).status).toBe(404);
  });

  it.runIf(usingPostgres && process.env.TEST_REDIS_URL)(
    'invalidates across processes through Redis: a write on one server is seen by the other',
    async () => {
      const other = await startTestServer({ DATABASE_URL: t.databaseUrl });
      try {
        const poll = await createPoll(t, apiKey, 'Before');
        // Warm the other server's cache.
        const onOther = testClient(other.api, { apiKey });
        expect(expectOk(await onOther.request('GET /polls/{id}', { params: { id: poll.id } })).title).toBe('Before');
        const patched = await api.request('PATCH /polls/{id}', {
          params: { id: poll.id },
          apiKey,
          body: { title: 'After' },
        });
        expectStatus(patched, 200);
        // Pub/sub delivery is asynchronous; it arrives within milliseconds, the loop allows seconds.
        let seen = '';
        for (let attempt = 0; attempt < 100 && seen !== 'After'; attempt++) {
          seen = expectOk(await onOther.request('GET /polls/{id}', { params: { id: poll.id } })).title;
          if (seen !== 'After') await new Promise((resolve) => setTimeout(resolve, 20));
        }
        expect(seen).toBe('After');
      } finally {
        await other.close();
      }
    },
  );
});

describe('RESPONSE_VALIDATION', () => {
  /** Stores content that breaks the contract (an unknown slide kind) straight into the table. */
  async function corruptPoll(server: TestServer, key: string) {
    // Created and corrupted before anything reads it, so no cached copy hides the corruption.
    const poll = await createPoll(server, key);
    await server.server.deps.db
      .updateTable('polls')
      .set({ content: sql`${JSON.stringify({ questions: [{ id: 'x', kind: 'bogus', text: 'X' }] })}::jsonb` as never })
      .where('id', '=', poll.id)
      .execute();
    return poll;
  }

  it('turns a response that breaks the contract into 500 internal_error when on (as in tests)', async () => {
    const poll = await corruptPoll(t, apiKey);
    const res = await api.request('GET /polls/{id}', { params: { id: poll.id }, apiKey });
    expectStatus(res, 500);
    expect(res.body).toEqual({ error: { code: 'internal_error', message: 'Internal server error' } });
  });

  it('sends the response unchecked when off (the production default)', async () => {
    const unchecked = await startTestServer({ RESPONSE_VALIDATION: 'false' });
    try {
      const { apiKey: key } = await unchecked.workspace('pro');
      const poll = await corruptPoll(unchecked, key);
      // Not a Poll any more (the kind is not one of the contract's): read as what it is.
      const res = await rawCall<{ content: { questions: Array<{ kind: string }> } }>(
        'GET',
        `${unchecked.api}/polls/${poll.id}`,
        { apiKey: key },
      );
      expect(res.status).toBe(200);
      expect(res.body.content.questions[0]!.kind).toBe('bogus');
    } finally {
      await unchecked.close();
    }
  });
});
