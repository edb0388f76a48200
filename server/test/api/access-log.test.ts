import { createHash } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleContent } from '../support/decks.js';
import { rawCall } from '../support/http.js';
import { UNLIMITED } from '../support/limits.js';
import { pollPublisher } from '../support/polls.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { expectOk, expectStatus, testClient } from '../support/test-client.js';

/**
 * The access log over real HTTP: a respondent's id never reaches it, in the path
 * (`/respondents/{id}`, respondents.test.ts) nor as a query value — the `voterId` filter of
 * `GET /polls/{id}/votes` and `/responses`, `GET /polls/{id}/next-slide`'s respondent, a
 * `respondentId` — since erasure cannot reach the logs. Each is written as `sha256:` and 16 hex digits.
 */

let t: TestServer;
const api = testClient(() => t.api);
let apiKey: string;
const logOut = new PassThrough();
let log = '';
logOut.on('data', (chunk: Buffer) => {
  log += chunk.toString('utf8');
});

beforeAll(async () => {
  t = await startTestServer({ ...UNLIMITED, LOG_LEVEL: 'info', LOG_FORMAT: 'json' }, { logOut });
  ({ apiKey } = await t.workspace('pro'));
});
afterAll(() => t?.close());

const hashed = (id: string) => `sha256:${createHash('sha256').update(id).digest('hex').slice(0, 16)}`;

/** The access log's lines so far, parsed. */
function requestLines(): { url: string; statusCode: number }[] {
  return log
    .split('\n')
    .filter((line) => line.includes('"msg":"request"'))
    .map((line) => JSON.parse(line));
}

describe('the access log', () => {
  it('writes a voterId or respondentId query value as a hash, never the id', async () => {
    const poll = await pollPublisher(() => ({ api: t.api, apiKey, title: 'Logged', content: sampleContent() }))();
    const email = 'ada.query@example.com';
    const vote = await api.request('POST /polls/{id}/votes', {
      params: { id: poll.id },
      apiKey,
      body: { voterId: email, slideId: 'lunch', optionIds: ['pizza'] },
    });
    expectStatus(vote, 201);
    const byQuery = [
      `/polls/${poll.id}/votes?voterId=${encodeURIComponent(email)}`,
      `/polls/${poll.id}/responses?limit=5&voterId=${email}`,
      `/polls/${poll.id}/next-slide?voterId=${encodeURIComponent(email)}&afterSlideId=lunch`,
      // Not a parameter of this route (422), and still a person in the log.
      `/polls/${poll.id}/votes?respondentId=${encodeURIComponent(email)}`,
    ];
    const statuses = [];
    for (const path of byQuery) statuses.push((await rawCall('GET', `${t.api}${path}`, { apiKey })).status);
    expect(statuses).toEqual([200, 200, 200, 422]);
    const listed = await api.request('GET /polls/{id}/votes', {
      params: { id: poll.id },
      query: { voterId: email },
      apiKey,
    });
    expect(expectOk(listed).data).toHaveLength(1);

    await waitFor(() => requestLines().filter((line) => line.url.includes(poll.id)).length >= byQuery.length + 2);
    const urls = requestLines()
      .map((line) => line.url)
      .filter((url) => url.includes(`/polls/${poll.id}/`) && url.includes('?'));
    expect(urls).toEqual(
      expect.arrayContaining([
        `/api/v1/polls/${poll.id}/votes?voterId=${hashed(email)}`,
        `/api/v1/polls/${poll.id}/responses?limit=5&voterId=${hashed(email)}`,
        `/api/v1/polls/${poll.id}/next-slide?voterId=${hashed(email)}&afterSlideId=lunch`,
        `/api/v1/polls/${poll.id}/votes?respondentId=${hashed(email)}`,
      ]),
    );
    expect(log).not.toContain(email);
    expect(log).not.toContain(encodeURIComponent(email));
    expect(log).not.toContain('ada.query');
  });

  it('writes a join link’s rid as a hash, and no secret sent in a query string', async () => {
    const email = 'rid.link@example.com';
    const page = await fetch(`${t.url}/join/123456?rid=${encodeURIComponent(email)}`);
    await page.text();
    expect(page.status).toBe(200);
    // Not a parameter of this route: a secret where none belongs, which the log must not keep.
    await rawCall('GET', `${t.api}/workspace?key=${apiKey}`, { apiKey });
    await waitFor(() => requestLines().some((line) => line.url.startsWith('/api/v1/workspace?key=')));
    const urls = requestLines().map((line) => line.url);
    expect(urls).toEqual(
      expect.arrayContaining([`/join/123456?rid=${hashed(email)}`, '/api/v1/workspace?key=[secret]']),
    );
    expect(log).not.toContain(email);
    expect(log).not.toContain('rid.link');
    expect(log).not.toContain(apiKey);
  });
});

async function waitFor(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out waiting for the access log');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('start-up', () => {
  it('warns once for each development-only setting in effect, naming it, and for no other', async () => {
    const out = new PassThrough();
    let lines = '';
    out.on('data', (chunk: Buffer) => {
      lines += chunk.toString('utf8');
    });
    const loose = await startTestServer(
      { LOG_LEVEL: 'info', LOG_FORMAT: 'json', WEBHOOK_ALLOW_HTTP: 'true', MEDIA_ALLOW_LOOPBACK: 'true' },
      { logOut: out },
    );
    try {
      const warnings = lines
        .split('\n')
        .filter((line) => line.includes('"level":40') && line.includes('"setting"'))
        .map((line) => JSON.parse(line) as { setting: string; msg: string });
      // The test servers always validate responses (RESPONSE_VALIDATION=true); WEBHOOK_ALLOW_HTTP and
      // MEDIA_ALLOW_LOOPBACK were asked for here; WEBHOOK_ALLOW_LOOPBACK is off, and not named.
      const settings = warnings.map((warning) => warning.setting).sort();
      expect(settings).toEqual(['MEDIA_ALLOW_LOOPBACK', 'RESPONSE_VALIDATION', 'WEBHOOK_ALLOW_HTTP']);
      for (const warning of warnings) {
        expect(warning.msg).toContain(`${warning.setting}=true`);
        expect(warning.msg).toContain('never in production');
      }
    } finally {
      await loose.close();
    }
  });
});
