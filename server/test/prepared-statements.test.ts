import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { preparedStatement } from '../src/db/prepared.js';
import { call } from './support/http.js';
import { pollPublisher, sampleContent } from './support/polls.js';
import { startTestServer, type TestServer, usingPostgres } from './support/server.js';

/**
 * A statement marked with `preparedStatement(name)` (db/prepared.ts) is a named prepared statement on
 * PostgreSQL — parsed and planned once per connection — and an ordinary statement on PGlite (the
 * marker is a comment). The answer writer's batch statement is one: votes still count, on both.
 */

let t: TestServer;
let apiKey: string;

beforeAll(async () => {
  t = await startTestServer({ RATE_LIMIT_PER_MINUTE: '1000000' });
  ({ apiKey } = await t.workspace('pro'));
});
afterAll(() => t?.close());

const publishedPoll = pollPublisher(() => ({ api: t.api, apiKey, title: 'Prepared', content: sampleContent() }));

describe('prepared statements', () => {
  it(`runs a marked statement ${usingPostgres ? 'as a named prepared statement of its connection' : 'as it is'}`, async () => {
    const rows = await t.server.deps.db.connection().execute(async (connection) => {
      const probe = (n: number) =>
        sql<{ n: number }>`${sql.raw(preparedStatement('probe'))} select ${n}::int as n`.execute(connection);
      // The same text with other parameters: the statement prepared by the first call serves the second.
      const first = await probe(1);
      const second = await probe(2);
      const prepared = usingPostgres
        ? (await sql<{ name: string }>`select name from pg_prepared_statements`.execute(connection)).rows.map(
            (row) => row.name,
          )
        : [];
      return { values: [...first.rows, ...second.rows].map((row) => row.n), prepared };
    });
    expect(rows.values).toEqual([1, 2]);
    if (usingPostgres) expect(rows.prepared).toContain('pollkit_probe');
  });

  it('refuses a name that could not be told from the SQL after it', () => {
    expect(() => preparedStatement('probe */ drop table answers; --')).toThrow(/Bad prepared statement name/);
  });

  it('counts votes written through the prepared batch statement, many batches on few connections', async () => {
    const { id: pollId } = await publishedPoll();
    const statuses = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        call('POST', `${t.api}/polls/${pollId}/votes`, {
          apiKey,
          body: { voterId: `prepared-${i}`, slideId: 'lunch', optionIds: ['pizza'] },
        }).then((res) => res.status),
      ),
    );
    expect(new Set(statuses)).toEqual(new Set([201]));
    const results = await call('GET', `${t.api}/polls/${pollId}/results`, { apiKey });
    expect(results.status).toBe(200);
    expect(results.body.totalVoters).toBe(60);
  });
});
