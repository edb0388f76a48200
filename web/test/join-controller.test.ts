import { joinChallengeSolution } from '@pollkit/sdk/live';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { JoinController, type View } from '../src/join/controller.js';
import { t } from '../src/shared/i18n.js';
import {
  ASK,
  type Browser,
  FakeServer,
  fakeFetch,
  joinChallenge,
  json,
  LUNCH,
  liveState,
  loadEnglish,
  newBrowser,
  openPage,
  refusal,
  WORDS,
} from './support/fake-join-page.js';

/**
 * The audience page's controller (web/src/join/controller.ts), the state machine behind app.tsx,
 * without a browser: its page and its server are stood in for (support/fake-join-page.ts) through
 * the globals it reads, the server behind `fetch`. Each test drives it as the page does (join,
 * submit, advance, upvote, the window's `online`) and as the server does (answers, stream events, a
 * dropped stream), and reads `view`, the states the page renders, and what reached the server.
 * The same behaviours in Chromium: server/test/system/live-pages.*.browser.test.ts,
 * join-challenge.browser.test.ts, self-paced.browser.test.ts.
 */

let browser: Browser;
const controllers: JoinController[] = [];
const servers: FakeServer[] = [];

beforeAll(async () => {
  await loadEnglish();
});
beforeEach(() => {
  // Per test: vitest unstubs every global before each one (vitest.config.ts, SHARED_MODULES).
  vi.stubGlobal('fetch', fakeFetch);
  browser = newBrowser();
});
afterEach(() => {
  // Their streams end and their PINs name nothing: a page left over reconnects to a 404 and stops.
  for (const server of servers.splice(0)) server.close();
  controllers.length = 0;
});

function server(...args: ConstructorParameters<typeof FakeServer>): FakeServer {
  const made = new FakeServer(...args);
  servers.push(made);
  return made;
}

/** A page opened at `/join/{pin}` (or elsewhere), its controller, and every view it went through. */
function page(code: string, options: Parameters<typeof openPage>[1] = {}) {
  const opened = openPage(browser, { path: code ? `/join/${code}` : '/join', ...options });
  const controller = new JoinController(code);
  controllers.push(controller);
  const views: View[] = [controller.view];
  controller.subscribe(() => views.push(controller.view));
  return { ...opened, controller, views };
}

/** The values `of` the views took, each change once (`['form', 'joining', 'live']`). */
function changes<T>(views: View[], of: (view: View) => T): T[] {
  return views.map(of).filter((value, index, all) => index === 0 || value !== all[index - 1]);
}

/** Waits for `check` to pass (the controller's promises and the stream's reads settle on their own). */
function until(check: () => void): Promise<void> {
  return vi.waitFor(check, { timeout: 5_000, interval: 2 });
}

async function joined(live: FakeServer, name = 'Ada', options: Parameters<typeof openPage>[1] = {}) {
  const opened = page(live.pin, options);
  await opened.controller.join(live.pin, name);
  await until(() => expect(opened.controller.view.connected).toBe(true));
  return opened;
}

describe('the form', () => {
  it('opens empty at /join, and says what is wrong with a code in the address that is no PIN', () => {
    expect(page('').controller.view).toMatchObject({ phase: 'form', pin: '', formError: undefined });
    expect(page('12ab').controller.view).toMatchObject({
      phase: 'form',
      pin: '',
      formError: t('join.error.notAPin', { pin: '12ab' }),
    });
    expect(page('lnk_short').controller.view.formError).toBe(t('join.error.badLink'));
  });

  it('refuses a PIN that is not six digits without asking the server', async () => {
    const live = server(LUNCH);
    const { controller } = page('');
    await controller.join('12345', 'Ada');
    expect(controller.view).toMatchObject({ phase: 'form', formError: t('join.error.pinFormat') });
    expect(live.received).toEqual([]);
  });
});

describe('joining', () => {
  it('goes from the form through joining to live, keeps the token, and follows the stream', async () => {
    const live = server(LUNCH);
    const { controller, views, replaceState } = page('', { search: '?lang=de&rid=u-42' });
    const joining = controller.join(live.pin, 'Ada');
    expect(controller.view).toMatchObject({ phase: 'joining', pin: live.pin, formError: undefined });
    await joining;
    expect(controller.view).toMatchObject({
      phase: 'live',
      participantId: 'prt_ada',
      name: 'Ada',
      score: 0,
      state: { slide: { id: 'lunch' } },
      answer: { kind: 'idle' },
    });
    expect(changes(views, (view) => view.phase)).toEqual(['form', 'joining', 'live']);
    expect(live.of('join')[0]?.body).toEqual({ name: 'Ada', respondentId: 'u-42' });
    expect(browser.stored('local', `pollkit.participant.${live.pin}`)).toEqual({ token: 'ptk_ada' });
    // The address a reload rejoins at, in the language chosen.
    expect(replaceState).toHaveBeenCalledWith(null, '', `/join/${live.pin}?lang=de`);
    await until(() => expect(controller.view.connected).toBe(true));
    expect(live.of('events')[0]?.headers.get('x-participant-token')).toBe('ptk_ada');
  });

  it('shows the form again on a PIN that names no session, and forgets a token kept for it', async () => {
    const live = server(LUNCH);
    live.close();
    browser.local.setItem(`pollkit.participant.${live.pin}`, JSON.stringify({ token: 'ptk_old' }));
    const { controller } = page(live.pin);
    await until(() => expect(controller.view.formError).toBe(t('join.error.noSessionWithPin', { pin: live.pin })));
    expect(controller.view.phase).toBe('form');
    expect(browser.stored('local', `pollkit.participant.${live.pin}`)).toBeUndefined();
  });

  it('says that a session has ended when the server answers session_not_active', async () => {
    const live = server(LUNCH).next('join', () => refusal(409, 'session_not_active'));
    const { controller } = page(live.pin);
    await controller.join(live.pin, 'Ada');
    expect(controller.view).toMatchObject({ phase: 'form', formError: t('join.error.sessionEnded') });
  });

  it('rejoins at once with the kept token after a reload: the same participant, its answers, no form', async () => {
    const live = server(LUNCH);
    const first = await joined(live);
    first.controller.submit({ slideId: 'lunch', optionIds: ['pizza'] });
    await until(() => expect(first.controller.view.answer.kind).toBe('received'));

    live.state = { ...live.state, answered: true };
    const { controller, views } = page(live.pin);
    await until(() => expect(controller.view.phase).toBe('live'));
    // Straight from the address to the session: the form is never shown.
    expect(changes(views, (view) => view.phase)).toEqual(['joining', 'live']);
    expect(live.of('join')[1]?.headers.get('x-participant-token')).toBe('ptk_ada');
    expect(controller.view).toMatchObject({
      answer: { kind: 'received' },
      mine: { lunch: { slideId: 'lunch', optionIds: ['pizza'] } },
    });
  });

  it('drops a token the server no longer knows and joins as someone new', async () => {
    const live = server(LUNCH).next('join', () => refusal(401, 'invalid_participant_token'));
    browser.local.setItem(`pollkit.participant.${live.pin}`, JSON.stringify({ token: 'ptk_stale' }));
    live.token = 'ptk_new';
    const { controller } = page(live.pin);
    await until(() => expect(controller.view.phase).toBe('live'));
    const joins = live.of('join');
    expect(joins.map((join) => join.headers.get('x-participant-token'))).toEqual(['ptk_stale', null]);
    expect(browser.stored('local', `pollkit.participant.${live.pin}`)).toEqual({ token: 'ptk_new' });
  });
});

describe('the join challenge', () => {
  it('is fetched and solved as the page loads, and sent with the join; the form says it is checking meanwhile', async () => {
    const challenge = await joinChallenge(7);
    let answerChallenge!: () => void;
    const asked = new Promise<void>((resolve) => {
      answerChallenge = resolve;
    });
    const live = server(LUNCH).next('challenge', async () => {
      await asked;
      return json(200, challenge);
    });
    const { controller, views } = page(live.pin, { joinChallenge: 'pow' });
    const joining = controller.join(live.pin, 'Ada');
    await until(() => expect(controller.view.checking).toBe(true));
    answerChallenge();
    await joining;
    expect(controller.view).toMatchObject({ phase: 'live', checking: false });
    expect(changes(views, (view) => view.checking)).toEqual([undefined, true, false]);
    expect(live.received.map((request) => request.route).slice(0, 2)).toEqual(['challenge', 'join']);
    expect(live.of('join')[0]?.body?.challenge).toBe(joinChallengeSolution(challenge, 7));
  });

  it('is solved when a join is refused for want of one (the page was loaded before the host turned it on)', async () => {
    const challenge = await joinChallenge(42);
    const live = server(LUNCH).next('join', () => refusal(422, 'challenge_failed', { required: true, challenge }));
    const { controller, views } = page(live.pin);
    await controller.join(live.pin, 'Ada');
    expect(controller.view.phase).toBe('live');
    expect(views.some((view) => view.checking === true)).toBe(true);
    expect(controller.view.checking).toBe(false);
    expect(live.of('join').map((join) => join.body?.challenge)).toEqual([
      undefined,
      joinChallengeSolution(challenge, 42),
    ]);
  });
});

describe('the stream', () => {
  it('shows each slide, its results and the score, hides them, locks and unlocks, and keeps the Q&A board', async () => {
    const live = server(LUNCH);
    const { controller } = await joined(live);
    live.broadcast('results', {
      slideId: 'lunch',
      kind: 'multiple_choice',
      totalAnswers: 1,
      options: [],
      leaderboard: { top: [], you: { rank: 1, participantId: 'prt_ada', name: 'Ada', score: 700 } },
    });
    await until(() => expect(controller.view.results?.slideId).toBe('lunch'));
    expect(controller.view).toMatchObject({ score: 700, state: { resultsVisible: true } });
    // Results of another slide are not this one's.
    live.broadcast('results', { slideId: 'other', kind: 'multiple_choice', totalAnswers: 0, options: [] });
    live.broadcast('results_hidden', { slideId: 'lunch' });
    await until(() => expect(controller.view.results).toBeUndefined());
    expect(controller.view.state?.resultsVisible).toBe(false);
    live.broadcast('locked', { slideId: 'lunch' });
    await until(() => expect(controller.view.state?.locked).toBe(true));
    live.broadcast('unlocked', { slideId: 'lunch' });
    await until(() => expect(controller.view.state?.locked).toBe(false));

    live.show(ASK);
    await until(() => expect(controller.view.state?.slide?.id).toBe('ask'));
    const board = [{ id: 'rsp_q1', text: 'Why?', upvotes: 2, createdAt: '2026-01-01T00:00:02.000Z' }];
    live.broadcast('questions', { slideId: 'lunch', questions: [] });
    live.broadcast('questions', { slideId: 'ask', questions: board });
    await until(() => expect(controller.view.board).toEqual(board));
  });

  it('reconnects after the server drops it, from the last event it heard, and catches up', async () => {
    const live = server(LUNCH);
    const { controller, views } = await joined(live);
    const lastHeard = '1';
    live.streams[0]?.end();
    // Moved on while the page was away: the reconnection's `slide` tells it.
    live.state = liveState(WORDS);
    await until(() => expect(controller.view.state?.slide?.id).toBe('words'));
    expect(controller.view.connected).toBe(true);
    expect(live.of('events')).toHaveLength(2);
    expect(live.streams[1]?.lastEventId).toBe(lastHeard);
    expect(changes(views, (view) => view.connected)).toEqual([false, true, false, true]);
  });

  it('says the session is over when the stream finds it gone, and that the participant was removed', async () => {
    const gone = server(LUNCH);
    const ended = await joined(gone);
    gone.close();
    await until(() => expect(ended.controller.view.lost).toBe(t('join.lost.ended')));
    expect(ended.controller.view.connected).toBe(false);

    const live = server(LUNCH);
    const removed = await joined(live);
    live.next('events', () => refusal(401, 'invalid_participant_token'));
    live.streams[0]?.end();
    await until(() => expect(removed.controller.view.lost).toBe(t('error.invalid_participant_token')));
  });

  it('reopens a stream that gave up when the network is back, from where it stopped', async () => {
    const live = server(LUNCH);
    const { controller, online } = await joined(live);
    live.next('events', () => refusal(404, 'not_found'));
    live.streams[0]?.end();
    await until(() => expect(controller.view.lost).toBe(t('join.lost.ended')));
    online();
    await until(() => expect(controller.view.connected).toBe(true));
    expect(controller.view.lost).toBeUndefined();
    expect(live.of('events').at(-1)?.headers.get('last-event-id')).toBe('1');
  });

  it('shows the summary and the final score at the end, and stops', async () => {
    const live = server(LUNCH);
    const { controller } = await joined(live);
    const summary = {
      sessionId: 'ses_test',
      participantCount: 3,
      leaderboard: { top: [], you: { rank: 2, participantId: 'prt_ada', name: 'Ada', score: 1500 } },
      slides: [],
    };
    live.broadcast('ended', summary);
    await until(() => expect(controller.view.summary).toEqual(summary));
    expect(controller.view).toMatchObject({ score: 1500, connected: false });
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(live.of('events')).toHaveLength(1);
  });
});

describe('answering', () => {
  it('sends an answer once, with an Idempotency-Key, says it was received, and remembers it', async () => {
    const live = server(LUNCH);
    const { controller, views } = await joined(live);
    controller.submit({ slideId: 'lunch', optionIds: ['pizza'] });
    // A second tap while the first is on its way sends nothing.
    controller.submit({ slideId: 'lunch', optionIds: ['sushi'] });
    expect(controller.view.answer.kind).toBe('sending');
    await until(() => expect(controller.view.answer.kind).toBe('received'));
    const [sent, ...more] = live.of('answers');
    expect(more).toEqual([]);
    expect(sent?.body).toEqual({ slideId: 'lunch', optionIds: ['pizza'] });
    expect(sent?.headers.get('idempotency-key')).toMatch(/^[0-9a-f-]{36}$/);
    expect(sent?.headers.get('x-participant-token')).toBe('ptk_ada');
    expect(changes(views, (view) => view.answer.kind)).toEqual(['idle', 'sending', 'received']);
    expect(controller.view.mine).toEqual({ lunch: { slideId: 'lunch', optionIds: ['pizza'] } });
    expect(browser.stored('local', `pollkit.answers.${live.pin}`)).toEqual(controller.view.mine);
    expect(browser.stored('session', `pollkit.pending.${live.pin}`)).toBeUndefined();

    // The next slide's form is a fresh one.
    live.show(WORDS);
    await until(() => expect(controller.view.state?.slide?.id).toBe('words'));
    expect(controller.view.answer.kind).toBe('idle');
  });

  it('takes a 409 already_responded as received, and shows a refusal with its reason', async () => {
    const live = server(LUNCH);
    const { controller } = await joined(live);
    live.next('answers', () => refusal(409, 'already_responded'));
    controller.submit({ slideId: 'lunch', optionIds: ['pizza'] });
    await until(() => expect(controller.view.answer.kind).toBe('received'));
    expect(controller.view.mine.lunch).toBeDefined();

    live.show(WORDS);
    await until(() => expect(controller.view.state?.slide?.id).toBe('words'));
    live.next('answers', () => refusal(409, 'slide_not_active'));
    controller.submit({ slideId: 'words', text: 'Late' });
    await until(() =>
      expect(controller.view.answer).toEqual({ kind: 'refused', message: t('error.slide_not_active') }),
    );
    live.next('answers', () => refusal(422, 'validation_failed'));
    controller.submit({ slideId: 'words', text: 'x'.repeat(41) });
    await until(() => expect(controller.view.answer).toEqual({ kind: 'refused', message: expect.any(String) }));
    expect(controller.view.answer).not.toEqual({ kind: 'refused', message: t('error.slide_not_active') });
    expect(controller.view.mine.words).toBeUndefined();
    expect(browser.stored('session', `pollkit.pending.${live.pin}`)).toBeUndefined();
  });

  it('sends an answer whose response was lost again with the same key', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const live = server(LUNCH);
      const { controller } = await joined(live);
      live.next('answers', (request) => {
        live.answer(request); // taken by the server…
        throw new TypeError('fetch failed'); // … but the connection broke before the answer came back
      });
      controller.submit({ slideId: 'lunch', optionIds: ['pizza'] });
      await vi.advanceTimersByTimeAsync(1_000);
      expect(controller.view.answer.kind).toBe('received');
      const keys = live.of('answers').map((request) => request.headers.get('idempotency-key'));
      expect(keys).toHaveLength(2);
      expect(keys[1]).toBe(keys[0]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('queues an answer while offline, keeps it through a reload, and sends it with its key when the network is back', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const live = server(LUNCH);
      const { controller } = await joined(live);
      const offline = () => {
        throw new TypeError('fetch failed');
      };
      live.next('answers', offline, offline, offline);
      controller.submit({ slideId: 'lunch', optionIds: ['sushi'] });
      // Tried three times (the SDK's two retries, half a second and a second apart), then queued.
      await vi.advanceTimersByTimeAsync(2_000);
      expect(controller.view.answer.kind).toBe('queued');
      const pending = browser.stored('session', `pollkit.pending.${live.pin}`) as { key: string };
      expect(pending).toMatchObject({ answer: { slideId: 'lunch', optionIds: ['sushi'] }, key: expect.any(String) });

      // A reload while it waits: the new page finds it and sends it again, with the same key.
      live.next('answers', offline, offline, offline);
      const reloaded = page(live.pin);
      await until(() => expect(reloaded.controller.view.phase).toBe('live'));
      await vi.advanceTimersByTimeAsync(2_000);
      expect(reloaded.controller.view.answer.kind).toBe('queued');
      expect(live.of('answers').length).toBe(6);
      reloaded.online();
      await until(() => expect(reloaded.controller.view.answer.kind).toBe('received'));
      const keys = new Set(live.of('answers').map((request) => request.headers.get('idempotency-key')));
      expect([...keys]).toEqual([pending.key]);
      expect(browser.stored('session', `pollkit.pending.${live.pin}`)).toBeUndefined();
    } finally {
      vi.useRealTimers();
    }
  });

  it('drops an answer still queued when the presenter moves on', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const live = server(LUNCH);
      const { controller } = await joined(live);
      const offline = () => {
        throw new TypeError('fetch failed');
      };
      live.next('answers', offline, offline, offline);
      controller.submit({ slideId: 'lunch', optionIds: ['pizza'] });
      await vi.advanceTimersByTimeAsync(2_000);
      expect(controller.view.answer.kind).toBe('queued');
      live.show(WORDS);
      await until(() => expect(controller.view.state?.slide?.id).toBe('words'));
      expect(controller.view.answer.kind).toBe('idle');
      expect(browser.stored('session', `pollkit.pending.${live.pin}`)).toBeUndefined();
      await vi.advanceTimersByTimeAsync(10_000);
      expect(live.of('answers')).toHaveLength(3);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('Q&A', () => {
  it('counts the questions asked, and marks an upvote once (409 already_upvoted too)', async () => {
    const live = server(ASK);
    const { controller } = await joined(live);
    controller.submit({ slideId: 'ask', text: 'Why?' });
    await until(() => expect(controller.view).toMatchObject({ answer: { kind: 'received' }, asked: 1 }));
    controller.askAnother();
    expect(controller.view.answer.kind).toBe('idle');

    await controller.upvote('rsp_q1');
    await controller.upvote('rsp_q1');
    expect(live.of('upvotes')).toHaveLength(1);
    live.next('upvotes', () => refusal(409, 'already_upvoted'));
    await controller.upvote('rsp_q2');
    expect(controller.view.upvoted).toEqual(['rsp_q1', 'rsp_q2']);
    expect(browser.stored('local', `pollkit.upvoted.${live.pin}`)).toEqual(['rsp_q1', 'rsp_q2']);
    live.next('upvotes', () => refusal(422, 'upvotes_disabled'));
    await controller.upvote('rsp_q3');
    expect(controller.view.answer).toEqual({ kind: 'refused', message: t('error.upvotes_disabled') });
  });
});

describe('a self-paced walk', () => {
  const walk = (step: number, completed = false) => ({ progress: { step, of: 2 }, completed });

  it('moves on where an answer or Next sends the participant, and shows the completion', async () => {
    const live = server(LUNCH, 'audience');
    live.state = { ...live.state, ...walk(1) };
    const { controller } = await joined(live);
    live.next('advance', () =>
      json(200, { state: liveState(WORDS, { pace: 'audience', ...walk(2) }), completion: null }),
    );
    controller.advance();
    expect(controller.view.advance.kind).toBe('sending');
    await until(() => expect(controller.view.state?.slide?.id).toBe('words'));
    expect(controller.view.advance.kind).toBe('idle');
    expect(live.of('advance')[0]?.body).toEqual({ slideId: 'lunch' });

    const completion = {
      sessionId: 'ses_test',
      participantId: 'prt_ada',
      completedAt: '2026-01-01T00:01:00.000Z',
      answerCount: 1,
      skippedCount: 1,
      score: 900,
      rank: 1,
      quiz: null,
    };
    live.next('answers', (request) =>
      json(201, {
        id: 'rsp_1',
        sessionId: 'ses_test',
        slideId: request.body?.slideId,
        participantId: 'prt_ada',
        createdAt: '2026-01-01T00:01:00.000Z',
        progress: { state: liveState(null, { pace: 'audience', ...walk(2, true) }), completion },
      }),
    );
    controller.submit({ slideId: 'words', text: 'Done' });
    await until(() => expect(controller.view.completion).toEqual(completion));
    expect(controller.view).toMatchObject({ score: 900, state: { slide: null, completed: true } });
    expect(controller.view.mine.words).toEqual({ slideId: 'words', text: 'Done' });
  });

  it('reads its place again when the server says it is elsewhere (another tab walked on)', async () => {
    const live = server(LUNCH, 'audience');
    live.state = { ...live.state, ...walk(1) };
    const { controller } = await joined(live);
    live.next('advance', () => refusal(409, 'slide_not_active'));
    live.state = liveState(WORDS, { pace: 'audience', ...walk(2) });
    controller.advance();
    await until(() => expect(controller.view.state?.slide?.id).toBe('words'));
    expect(controller.view.advance.kind).toBe('idle');
    expect(live.of('join').at(-1)?.headers.get('x-participant-token')).toBe('ptk_ada');
  });
});
