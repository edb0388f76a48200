import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { preparedStatement } from '../../src/db/prepared.js';
import { sampleContent } from '../support/decks.js';
import { UNLIMITED } from '../support/limits.js';
import { pollPublisher } from '../support/polls.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { expectStatus, testClient } from '../support/test-client.js';

/**
 * A statement marked with `preparedStatement(name)` (db/prepared.ts) is a named prepared statement —
 * parsed and planned once per connection: by `pg` on PostgreSQL, through PGlite's wire protocol on
 * the embedded database (db/pglite-prepared.ts). The answer writer's batch statement is one: votes
 * still count, on both.
 */

let t: TestServer;
const api = testClient(() => t.api);
let apiKey: string;

beforeAll(async () => {
  t = await startTestServer(UNLIMITED);
  ({ apiKey } = await t.workspace('pro'));
});
afterAll(() => t?.close());

const publishedPoll = pollPublisher(() => ({ api: t.api, apiKey, title: 'Prepared', content: sampleContent() }));

describe('prepared statements', () => {
  it('runs a marked statement as a named prepared statement of its connection, its values parsed', async () => {
    const rows = await t.server.deps.db.connection().execute(async (connection) => {
      const probe = (n: number) =>
        sql<{ n: number; at: Date; tags: string[] | null }>`${sql.raw(preparedStatement('probe'))}
          select ${n}::int as n, ${new Date(Date.UTC(2026, 0, n))}::timestamptz as at,
                 nullif(${['a', 'b "quoted"', 'c,d']}::text[], '{}') as tags`.execute(connection);
      // The same text with other parameters: the statement prepared by the first call serves the second.
      const first = await probe(1);
      const second = await probe(2);
      const prepared = (await sql<{ name: string }>`select name from pg_prepared_statements`.execute(connection)).rows;
      return { rows: [...first.rows, ...second.rows], prepared: prepared.map((row) => row.name) };
    });
    expect(rows.rows.map((row) => row.n)).toEqual([1, 2]);
    expect(rows.rows.map((row) => new Date(row.at).toISOString())).toEqual([
      '2026-01-01T00:00:00.000Z',
      '2026-01-02T00:00:00.000Z',
    ]);
    expect(rows.rows[0]?.tags).toEqual(['a', 'b "quoted"', 'c,d']);
    expect(rows.prepared).toContain('pollkit_probe');
  });

  it("fails with the database's error and code, and the connection serves the next statement", async () => {
    const outcome = await t.server.deps.db.connection().execute(async (connection) => {
      const divide = (by: number) =>
        sql<{ q: number }>`${sql.raw(preparedStatement('divide'))} select 1 / ${by}::int as q`.execute(connection);
      const failed = await divide(0).then(
        () => undefined,
        (error: { code?: string }) => error.code,
      );
      return { failed, next: (await divide(1)).rows };
    });
    // 22012: division_by_zero — the code the answer writer reads to tell a bad answer from a retry.
    expect(outcome).toEqual({ failed: '22012', next: [{ q: 1 }] });
  });

  it('refuses a name that could not be told from the SQL after it', () => {
    expect(() => preparedStatement('probe */ drop table answers; --')).toThrow(/Bad prepared statement name/);
  });

  it('counts votes written through the prepared batch statement, many batches on few connections', async () => {
    const { id: pollId } = await publishedPoll();
    const statuses = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        api
          .request('POST /polls/{id}/votes', {
            params: { id: pollId },
            apiKey,
            body: { voterId: `prepared-${i}`, slideId: 'lunch', optionIds: ['pizza'] },
          })
          .then((res) => res.status),
      ),
    );
    expect(new Set(statuses)).toEqual(new Set([201]));
    const results = await api.request('GET /polls/{id}/results', { params: { id: pollId }, apiKey });
    expectStatus(results, 200);
    expect(results.body.totalVoters).toBe(60);
  });
});
