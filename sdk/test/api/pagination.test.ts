import { contract, defineRoute, Poll as PollSchema } from '@pollkit/contracts';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { sampleContent } from '../../../server/test/support/polls.js';
import { startTestServer, type TestServer } from '../../../server/test/support/server.js';
import { isPageRoute } from '../../src/core/pagination.js';
import { createClient, Page, PagePromise, type Poll, type PollkitClient, type Vote } from '../../src/index.js';

let t: TestServer;
let client: PollkitClient;
const requested: string[] = [];
/** The 25 polls' ids, newest first: the order the API lists them in. */
let pollIds: string[];

beforeAll(async () => {
  t = await startTestServer();
  const { apiKey } = await t.workspace('pro');
  client = createClient({
    apiKey,
    baseUrl: t.url,
    fetch: (url, init) => {
      requested.push(url.slice(t.api.length));
      return fetch(url, init);
    },
  });
  pollIds = [];
  // Each with a slide, so that a test can publish it (a poll with no slides cannot be published).
  const content = { questions: [{ id: 'hello', kind: 'content' as const, text: 'Hello' }] };
  for (let i = 0; i < 25; i++) pollIds.unshift((await client.polls.create({ title: `Poll ${i}`, content })).id);
});
afterAll(() => t?.close());

/** The list requests made while `run` runs. */
async function listRequestsDuring(run: () => Promise<void>): Promise<string[]> {
  requested.length = 0;
  await run();
  return requested.filter((url) => url.startsWith('/polls?') || url === '/polls');
}

describe('list methods', () => {
  it('iterate every item across pages with for await', async () => {
    const seen: string[] = [];
    const urls = await listRequestsDuring(async () => {
      for await (const poll of client.polls.list({ limit: 10 })) {
        expectTypeOf(poll).toEqualTypeOf<Poll>();
        seen.push(poll.id);
      }
    });
    expect(seen).toEqual(pollIds);
    expect(urls).toHaveLength(3);
    expect(urls[0]).toBe('/polls?limit=10');
    expect(urls[1]).toMatch(/^\/polls\?limit=10&cursor=[^&]+$/);
  });

  it('resolve to the first page, with hasNextPage() and getNextPage()', async () => {
    const listing = client.polls.list({ limit: 10 });
    expect(listing).toBeInstanceOf(PagePromise);
    const first = await listing;
    expect(first).toBeInstanceOf(Page);
    expect(first.data.map((p) => p.id)).toEqual(pollIds.slice(0, 10));
    expect(first.nextCursor).toEqual(expect.any(String));
    expect(first.hasNextPage()).toBe(true);

    const second = await first.getNextPage();
    expect(second.data.map((p) => p.id)).toEqual(pollIds.slice(10, 20));
    const third = await second.getNextPage();
    expect(third.data.map((p) => p.id)).toEqual(pollIds.slice(20));
    expect(third.nextCursor).toBeNull();
    expect(third.hasNextPage()).toBe(false);
    await expect(third.getNextPage()).rejects.toThrow(/last page/);

    // A page serialises as the API's body, and iterates from itself onwards.
    expect(JSON.parse(JSON.stringify(third))).toEqual({ data: third.data, nextCursor: null });
    const fromSecond: string[] = [];
    for await (const poll of second) fromSecond.push(poll.id);
    expect(fromSecond).toEqual(pollIds.slice(10));
    const pageSizes: number[] = [];
    for await (const page of first.pages()) pageSizes.push(page.data.length);
    expect(pageSizes).toEqual([10, 10, 5]);
  });

  it('keep the filters and options of the first call on every page', async () => {
    await client.polls.update({ id: pollIds[3]!, publish: true });
    await client.polls.update({ id: pollIds[17]!, publish: true });
    const published: string[] = [];
    const urls = await listRequestsDuring(async () => {
      for await (const poll of client.polls.list({ status: 'published', limit: 1 })) published.push(poll.id);
    });
    expect(published).toEqual([pollIds[3], pollIds[17]]);
    expect(urls.every((url) => url.includes('status=published') && url.includes('limit=1'))).toBe(true);
  });

  it('reject, and stop iterating, with the error of a failed page', async () => {
    const bad = client.polls.list({ limit: 1000 });
    await expect(bad).rejects.toMatchObject({ status: 422, code: 'validation_failed' });
    const iterating = async () => {
      for await (const _poll of client.polls.list({ limit: 1000 })) expect.fail('no page to iterate');
    };
    await expect(iterating()).rejects.toMatchObject({ code: 'validation_failed' });
  });

  it('page every route whose output is { data, nextCursor }, whatever its name', async () => {
    const poll = await client.polls.create({ title: 'Votes', content: sampleContent() });
    await client.polls.update({ id: poll.id, publish: true });
    for (const voterId of ['a', 'b', 'c']) {
      await client.votes.cast({ id: poll.id, voterId, slideId: 'lunch', optionIds: ['pizza'] });
    }
    const voters: string[] = [];
    for await (const vote of client.votes.list({ id: poll.id, limit: 2 })) {
      expectTypeOf(vote).toEqualTypeOf<Vote>();
      voters.push(vote.voterId);
    }
    expect(voters.sort()).toEqual(['a', 'b', 'c']);

    const paged = Object.entries(contract).flatMap(([group, routes]) =>
      Object.entries(routes)
        .filter(([, route]) => isPageRoute(route))
        .map(([name]) => `${group}.${name}`),
    );
    expect(paged).toEqual(expect.arrayContaining(['polls.list', 'votes.list', 'responses.list', 'questions.list']));
    expect(paged).not.toContain('polls.get');

    const renamed = defineRoute({
      ...contract.polls.list,
      output: z.object({ nextCursor: z.string().nullable(), data: z.array(PollSchema) }),
    });
    expect(isPageRoute(renamed)).toBe(true);
    const notAPage = defineRoute({ ...contract.polls.list, output: z.object({ data: z.array(PollSchema) }) });
    expect(isPageRoute(notAPage)).toBe(false);
  });
});
