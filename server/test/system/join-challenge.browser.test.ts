import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, expectAccessible, launchChromium, PagePool, PHONE, poll } from '../support/browser.js';
import { sampleContent } from '../support/decks.js';
import { UNLIMITED } from '../support/limits.js';
import { createLiveSession } from '../support/live-deck.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { expectStatus, testClient } from '../support/test-client.js';

/**
 * The audience page joining a session with the join challenge (`joinChallenge: "pow"`), in Debian's
 * Chromium on a 360-px phone: rendered for such a session, the page gets a challenge as it loads and
 * solves it in a Web Worker (`/assets/join-challenge.js`) while the visitor types a name; Join before
 * it is done says "Checking this device…" (checked with axe-core then), and joins once it is; a
 * reload resumes without solving again. A page loaded before the host
 * turned the challenge on learns it from its refused join and gets in all the same. No console
 * error on the way but that refusal's.
 */

let t: TestServer;
const api = testClient(() => t.api);
let browser: Browser;
const pages = new PagePool(() => browser);

describe.skipIf(!chromiumAvailable)('the audience page on a session with the join challenge', () => {
  beforeAll(async () => {
    t = await startTestServer(UNLIMITED);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  afterEach(async (context) => pages.closeAll(context.task.result?.state === 'fail', 'failed-join-challenge'));

  it('solves the challenge in a worker, says so accessibly, joins, and resumes without it', async () => {
    const session = await createLiveSession(t, sampleContent());
    const on = await api.request('PATCH /sessions/{id}', {
      params: { id: session.sessionId },
      apiKey: session.apiKey,
      body: { joinChallenge: 'pow' },
    });
    expectStatus(on, 200);

    const phone = await pages.open('phone', PHONE);
    const page = phone.page;
    const seen: string[] = [];
    page.on('request', (request) => {
      const { pathname } = new URL(request.url());
      if (pathname.startsWith('/api/') || pathname === '/assets/join-challenge.js') {
        seen.push(`${request.method()} ${pathname}`);
      }
    });
    const joins: number[] = [];
    page.on('response', (response) => {
      if (new URL(response.url()).pathname.endsWith('/join')) joins.push(response.status());
    });
    // The worker's script is held back a moment, so that the page is seen while it checks the device.
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route('**/assets/join-challenge.js', async (route) => {
      await held;
      await route.continue();
    });

    await page.goto(session.joinUrl);
    // The challenge is fetched, and its worker asked for, as the page loads: before anyone clicks Join.
    await poll(() => seen).toEqual([`GET /api/v1/live/${session.pin}/challenge`, 'GET /assets/join-challenge.js']);
    await page.getByLabel(/Your name/).fill('Ada');
    await page.getByRole('button', { name: 'Join' }).click();
    const checking = page.getByTestId('join-checking');
    await phone.waitFor(checking);
    expect(await checking.textContent()).toBe('Checking this device before you join…');
    expect(await checking.getAttribute('role')).toBe('status');
    await phone.screenshot('join-challenge-checking');
    await expectAccessible(page, 'the join form while it checks the device');
    release();

    await phone.waitFor(page.getByTestId('waiting'));
    await phone.screenshot('join-challenge-joined');
    expect(await checking.count()).toBe(0);
    // The page knew the session asks for a challenge: no refused join on the way.
    expect(joins).toEqual([200]);
    expect(seen).toEqual([
      `GET /api/v1/live/${session.pin}/challenge`,
      'GET /assets/join-challenge.js',
      `POST /api/v1/live/${session.pin}/join`,
      `GET /api/v1/live/${session.pin}/events`,
    ]);
    const read = await api.request('GET /sessions/{id}', { params: { id: session.sessionId }, apiKey: session.apiKey });
    expectStatus(read, 200);
    expect(read.body.participantCount).toBe(1);

    // A reload rejoins with the stored token: the same participant, no challenge.
    joins.length = 0;
    await page.reload();
    await phone.waitFor(page.getByTestId('waiting'));
    await poll(() => joins.length).toBe(1);
    expect(joins).toEqual([200]);
    expect(await page.getByTestId('me-name').textContent()).toBe('Ada');
    pages.expectNoErrors();
  });

  it('joins a session whose host turned the challenge on after the page loaded', async () => {
    const session = await createLiveSession(t, sampleContent());
    const phone = await pages.open('late', PHONE);
    const page = phone.page;
    const joins: number[] = [];
    page.on('response', (response) => {
      if (new URL(response.url()).pathname.endsWith('/join')) joins.push(response.status());
    });
    await page.goto(session.joinUrl);
    const on = await api.request('PATCH /sessions/{id}', {
      params: { id: session.sessionId },
      apiKey: session.apiKey,
      body: { joinChallenge: 'pow' },
    });
    expectStatus(on, 200);
    await page.getByLabel(/Your name/).fill('Grace');
    // The refused join is the page's way to learn of the challenge: Chromium logs its 422.
    await phone.expectNetworkErrors(/status of 422/, async () => {
      await page.getByRole('button', { name: 'Join' }).click();
      await phone.waitFor(page.getByTestId('waiting'));
    });
    expect(joins).toEqual([422, 200]);
    const read = await api.request('GET /sessions/{id}', { params: { id: session.sessionId }, apiKey: session.apiKey });
    expectStatus(read, 200);
    expect(read.body.participantCount).toBe(1);
    pages.expectNoErrors();
  });
});
