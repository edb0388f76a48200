import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  chromiumAvailable,
  expectAccessible,
  LAPTOP,
  launchChromium,
  PagePool,
  PHONE,
  poll,
  type WatchedPage,
} from '../support/browser.js';
import { UNLIMITED } from '../support/limits.js';
import { createLiveSession } from '../support/live-deck.js';
import { startTestServer, type TestServer } from '../support/server.js';

/**
 * The text filter as the room sees it (docs/moderation.md), in Debian's Chromium against a real
 * server: a word cloud that leaves a vulgar word out, a refused name and the audience page's request
 * to rephrase, and the presenter's review queue — a held answer masked, approved from the screen,
 * then shown masked. With POLLKIT_DOCS_SCREENSHOTS=1 the docs' pictures are written too.
 */

let t: TestServer;
let browser: Browser;
const pages = new PagePool(() => browser);
const open = pages.open;

describe.skipIf(!chromiumAvailable)('moderation on the pages, in Chromium', () => {
  beforeAll(async () => {
    t = await startTestServer(UNLIMITED);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  afterEach(async (context) => pages.closeAll(context.task.result?.state === 'fail', 'failed'));

  it('masks the cloud, refuses a name, and runs the presenter’s review queue', async () => {
    const session = await createLiveSession(t, {
      questions: [
        // The poll reviews; the cloud slide masks (its own filter).
        { id: 'word', kind: 'open_ended', text: 'One word for this meeting?', render: 'cloud', textFilter: 'mask' },
        { id: 'wish', kind: 'open_ended', text: 'One wish for next quarter?', render: 'list' },
      ],
    });
    const reviewed = await fetch(`${t.api}/polls/${session.pollId}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${session.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ textFilter: 'review' }),
    });
    expect(reviewed.status).toBe(200);

    const presenter = await open('presenter', LAPTOP);
    const phone = await open('phone', PHONE);
    const ada = await open('ada', LAPTOP);
    const p = presenter.page;
    await p.goto(session.presenterUrl);
    await p.getByTestId('waiting').waitFor();

    // A flagged name is refused at join, in words that do not repeat it; another name goes through.
    await phone.page.goto(session.joinUrl);
    await phone.page.getByLabel(/Your name/).fill('Sh1thead');
    // The browser logs the 422 it was answered: expected here, and only here.
    await phone.expectNetworkErrors(/\/live\/\d+\/join/, async () => {
      await phone.page.getByRole('button', { name: 'Join' }).click();
      await poll(() => phone.page.getByRole('alert').textContent()).toContain('Please rephrase');
    });
    expect(await phone.page.content()).not.toContain('content_rejected');
    await phone.screenshot('01-name-refused', { docs: 'moderation-name-refused-phone.png' });
    await expectAccessible(phone.page, 'the audience page refusing a name');
    await phone.page.getByLabel(/Your name/).fill('Linus');
    await phone.page.getByRole('button', { name: 'Join' }).click();
    await phone.page.getByTestId('waiting').waitFor();
    await ada.page.goto(session.joinUrl);
    await ada.page.getByLabel(/Your name/).fill('Ada');
    await ada.page.getByRole('button', { name: 'Join' }).click();
    await ada.page.getByTestId('waiting').waitFor();

    // The cloud: the vulgar word is left out; the rest of the answer counts.
    await p.getByRole('button', { name: /Start/ }).click();
    await say(phone, 'fucking long');
    await say(ada, 'long');
    await poll(() => p.locator('.cloud li').allTextContents()).toEqual(['long']);
    expect(await p.locator('main').textContent()).not.toMatch(/fuck/i);
    await presenter.screenshot('02-masked-cloud', { docs: 'moderation-cloud.png' });

    // The review queue: a flagged answer waits, masked, folded away from the room.
    await p.getByRole('button', { name: /Next/ }).click();
    await phone.page.locator('[data-slide-id=wish]').waitFor();
    await say(phone, 'less shit meetings');
    await say(ada, 'a shorter agenda');
    const queue = p.getByTestId('moderation');
    await poll(() => queue.locator('summary').textContent()).toContain('Waiting for approval (1)');
    await poll(() => p.locator('.screen .recent li').allTextContents()).toEqual(['a shorter agenda']);
    await queue.locator('summary').click();
    const held = queue.locator('li');
    expect(await held.locator('.question-text').textContent()).toBe('less s*** meetings');
    await presenter.screenshot('03-review-queue', { docs: 'moderation-review-queue.png' });
    await expectAccessible(p, 'the presenter screen with the review queue open');

    // Approved from the screen: it joins the answers, masked, and the queue empties.
    await held.getByRole('button', { name: 'Approve' }).click();
    await poll(() => queue.locator('summary').textContent()).toContain('Waiting for approval (0)');
    // Newest first, by when they were given: the approved answer was given first.
    await poll(() => p.locator('.screen .recent li').allTextContents()).toEqual([
      'a shorter agenda',
      'less s*** meetings',
    ]);
    expect(await p.locator('main').textContent()).not.toMatch(/shit/i);
    pages.expectNoErrors();
  });
});

async function say(participant: WatchedPage, text: string): Promise<void> {
  await participant.page.getByLabel('Your answer').fill(text);
  await participant.page.getByRole('button', { name: 'Send' }).click();
  await participant.page.getByTestId('answer-received').waitFor();
}
