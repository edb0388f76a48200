import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../support/http.js';
import { sampleContent } from '../support/polls.js';
import { startTestServer, type TestServer, usingPostgres } from '../support/server.js';

let t: TestServer;
let apiKey: string;

beforeAll(async () => {
  t = await startTestServer();
  ({ apiKey } = await t.workspace('pro'));
});
afterAll(() => t?.close());

async function createPoll(server: TestServer, key: string, title = 'Cached') {
  const res = await call('POST', `${server.api}/polls`, { apiKey: key, body: { title, content: sampleContent() } });
  expect(res.status).toBe(201);
  return res.body as { id: string; title: string };
}

/** Changes a poll behind the API's back, as another process or an operator would. */
async function setTitleInDatabase(server: TestServer, id: string, title: string) {
  await server.server.deps.db.updateTable('polls').set({ title }).where('id', '=', id).execute();
}

describe('poll read cache', () => {
  it('serves repeated reads from memory and shows a write through the API at once', async () => {
    const poll = await createPoll(t, apiKey);
    expect((await call('GET', `${t.api}/polls/${poll.id}`, { apiKey })).body.title).toBe('Cached');

    // A change the cache was not told about stays invisible: reads really come from the cache.
    await setTitleInDatabase(t, poll.id, 'Changed underneath');
    expect((await call('GET', `${t.api}/polls/${poll.id}`, { apiKey })).body.title).toBe('Cached');

    // A write through the API invalidates; the next read sees the database again.
    const patched = await call('PATCH', `${t.api}/polls/${poll.id}`, { apiKey, body: { title: 'Renamed' } });
    expect(patched.status).toBe(200);
    expect((await call('GET', `${t.api}/polls/${poll.id}`, { apiKey })).body.title).toBe('Renamed');
  });

  it('forgets a deleted poll at once', async () => {
    const poll = await createPoll(t, apiKey);
    expect((await call('GET', `${t.api}/polls/${poll.id}`, { apiKey })).status).toBe(200);
    expect((await call('DELETE', `${t.api}/polls/${poll.id}`, { apiKey })).status).toBe(200);
    expect((await call('GET', `${t.api}/polls/${poll.id}`, { apiKey })).status).toBe(404);
  });

  it.runIf(usingPostgres && process.env.TEST_REDIS_URL)(
    'invalidates across processes through Redis: a write on one server is seen by the other',
    async () => {
      const other = await startTestServer({ DATABASE_URL: t.databaseUrl });
      try {
        const poll = await createPoll(t, apiKey, 'Before');
        // Warm the other server's cache.
        expect((await call('GET', `${other.api}/polls/${poll.id}`, { apiKey })).body.title).toBe('Before');
        const patched = await call('PATCH', `${t.api}/polls/${poll.id}`, { apiKey, body: { title: 'After' } });
        expect(patched.status).toBe(200);
        // Pub/sub delivery is asynchronous; it arrives within milliseconds, the loop allows seconds.
        let seen = '';
        for (let attempt = 0; attempt < 100 && seen !== 'After'; attempt++) {
          seen = (await call('GET', `${other.api}/polls/${poll.id}`, { apiKey })).body.title;
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
    const res = await call('GET', `${t.api}/polls/${poll.id}`, { apiKey });
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: { code: 'internal_error', message: 'Internal server error' } });
  });

  it('sends the response unchecked when off (the production default)', async () => {
    const unchecked = await startTestServer({ RESPONSE_VALIDATION: 'false' });
    try {
      const { apiKey: key } = await unchecked.workspace('pro');
      const poll = await corruptPoll(unchecked, key);
      const res = await call('GET', `${unchecked.api}/polls/${poll.id}`, { apiKey: key });
      expect(res.status).toBe(200);
      expect(res.body.content.questions[0].kind).toBe('bogus');
    } finally {
      await unchecked.close();
    }
  });
});
