import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SlideInput, sampleContent } from '../support/decks.js';
import { UNLIMITED } from '../support/limits.js';
import type { ControlAction } from '../support/live-deck.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { openSse, type SseStream } from '../support/sse.js';
import {
  type ApiResponse,
  type BodyOf,
  errorDetails,
  expectStatus,
  type OutputOf,
  type RouteKey,
  slideOf,
  testClient,
} from '../support/test-client.js';

/**
 * Display text is normalised on the way in (issue 24, finding 15; contracts/src/schemas/text.ts
 * `displayText()`): bidirectional overrides and isolates dropped, NFC, at most four combining marks
 * in a row. A participant whose name is built to mislead (a right-to-left override that turns
 * "nimda" into "admin", an isolate, a tower of accents) is shown, to everyone and everywhere, as the
 * normalised name: the join answer, the event stream's leaderboard, the end summary. Titles, slide
 * texts, labels, answers and questions likewise; identifiers are kept exactly.
 */

const RLO = '\u202e';
const PDF = '\u202c';
const LRI = '\u2066';
const PDI = '\u2069';
const LRM = '\u200e';
/** `n` different combining marks above (all of combining class 230, so NFD keeps their order). */
const marks = (n: number) => '\u0301\u0302\u0303\u0304\u0305\u0306\u0307\u0308\u0309\u030a\u030b\u030c'.slice(0, n);

const HOSTILE_NAME = `${RLO}nimda${PDF} ${LRI}Bob${PDI}${LRM} Z${marks(12)}`;
/** What everyone is shown: the controls gone, LRM kept, Z with four marks (one of them composed in). */
const SHOWN_NAME = `nimda Bob${LRM} \u0179${marks(4).slice(1)}`;

let t: TestServer;
const api = testClient(() => t.api);
let apiKey: string;
const streams: SseStream[] = [];

beforeAll(async () => {
  t = await startTestServer(UNLIMITED);
  ({ apiKey } = await t.workspace('pro'));
});
afterAll(async () => {
  for (const stream of streams) stream.close();
  await t?.close();
});

/** The body of a response that must have `status`. */
function ok<K extends RouteKey>(res: ApiResponse<K>, status = 200): OutputOf<K> {
  expect(res.status, res.text).toBe(status);
  return res.body as OutputOf<K>;
}

async function stream(url: string, headers: Record<string, string>) {
  const opened = await openSse(url, headers);
  streams.push(opened);
  expect(opened.status).toBe(200);
  return opened;
}

describe('display text', () => {
  it('the expectation itself: the shown name is what a reader sees, nothing hidden in it', () => {
    expect(SHOWN_NAME).toBe(SHOWN_NAME.normalize('NFC'));
    expect(SHOWN_NAME).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/);
    expect(SHOWN_NAME).toBe(`nimda Bob${LRM} Z${marks(4)}`.normalize('NFC'));
  });

  it('a hostile participant name comes back normalised in the join, the stream, the results and the summary', async () => {
    const quiz: SlideInput = {
      id: 'capital',
      kind: 'quiz',
      text: `Capital of France${RLO}?`,
      options: [
        { id: 'paris', label: `Pa${marks(9)}ris` },
        { id: 'lyon', label: 'Lyon' },
      ],
      correctOptionIds: ['paris'],
      timeLimitSec: 60,
      points: 500,
      speedBonus: false,
    };
    const { questions } = sampleContent();
    const words = slideOf(questions, 'words', 'open_ended');
    const ask = slideOf(questions, 'ask', 'qa');
    const created = ok(
      await api.request('POST /polls', {
        apiKey,
        body: {
          title: `${RLO}weiver${PDF} Cafe\u0301`,
          content: { questions: [quiz, words, { ...ask, moderated: false }] },
        },
      }),
      201,
    );
    // The deck as stored: normalised; the ids exactly as sent.
    expect(created.title).toBe('weiver Café');
    const capital = slideOf(created.content.questions, 'capital', 'quiz');
    expect(capital.text).toBe('Capital of France?');
    expect(capital.options.map((o) => [o.id, o.label])).toEqual([
      ['paris', `Pa${marks(4)}ris`.normalize('NFC')],
      ['lyon', 'Lyon'],
    ]);
    const pollId = created.id;
    ok(await api.request('PATCH /polls/{id}', { params: { id: pollId }, apiKey, body: { publish: true } }));
    const session = ok(await api.request('POST /sessions', { apiKey, body: { pollId } }), 201);
    const presenter = await stream(`${t.api}/sessions/${session.id}/events`, { 'x-host-token': session.hostToken });

    // The join answer.
    const joined = ok(
      await api.request('POST /live/{pin}/join', { params: { pin: session.pin! }, body: { name: HOSTILE_NAME } }),
    );
    expect(joined.participant.name).toBe(SHOWN_NAME);
    const token = joined.participantToken;
    const participant = await stream(`${t.api}/live/${session.pin}/events`, { 'x-participant-token': token });
    const control = (action: ControlAction) =>
      api.request('POST /sessions/{id}/control', {
        params: { id: session.id },
        headers: { 'x-host-token': session.hostToken },
        body: { action },
      });
    const answer = async (body: BodyOf<'POST /live/{pin}/answers'>) =>
      ok(
        await api.request('POST /live/{pin}/answers', {
          params: { pin: session.pin! },
          headers: { 'x-participant-token': token },
          body,
        }),
        201,
      );

    // The stream: the quiz's results carry the leaderboard, with the name as everyone sees it.
    ok(await control('start'));
    await answer({ slideId: 'capital', optionIds: ['paris'] });
    ok(await control('showResults'));
    for (const feed of [participant, presenter]) {
      const shown = await feed.waitFor((event) => event.type === 'results' && event.data.slideId === 'capital');
      expect(shown.data.leaderboard.top.map((entry: { name: string }) => entry.name)).toEqual([SHOWN_NAME]);
      expect(feed.raw()).not.toContain(RLO);
      expect(feed.raw()).not.toContain('\\u202e');
    }

    // Free text: an open-ended answer and a Q&A question, in the poll's results.
    ok(await control('next'));
    await answer({ slideId: 'words', text: `${RLO}sdrawkcab${PDF} e\u0301` });
    ok(await control('next'));
    await answer({ slideId: 'ask', text: `Why ${LRI}this${PDI}${marks(7)}?` });
    const results = ok(await api.request('GET /polls/{id}/results', { params: { id: pollId }, apiKey }));
    expect(slideOf(results.slides, 'capital', 'quiz').options.map((o) => o.label)).toContain(
      `Pa${marks(4)}ris`.normalize('NFC'),
    );
    expect(slideOf(results.slides, 'words', 'open_ended').recent.map((r) => r.text)).toEqual(['sdrawkcab é']);
    expect(slideOf(results.slides, 'ask', 'qa').questions.map((q) => q.text)).toEqual([
      `Why this${marks(4)}?`.normalize('NFC'),
    ]);

    // The summary at the end.
    ok(await control('end'));
    const summary = await participant.next('ended');
    expect(summary.data.leaderboard.top.map((entry: { name: string }) => entry.name)).toEqual([SHOWN_NAME]);
    expect(summary.data.leaderboard.you.name).toBe(SHOWN_NAME);
  });

  it('counts limits on the normalised text, and refuses a name that is nothing but controls', async () => {
    const poll = ok(
      await api.request('POST /polls', { apiKey, body: { title: 'Limits', content: sampleContent() } }),
      201,
    );
    ok(await api.request('PATCH /polls/{id}', { params: { id: poll.id }, apiKey, body: { publish: true } }));
    const session = ok(await api.request('POST /sessions', { apiKey, body: { pollId: poll.id } }), 201);
    const join = (name: string) =>
      api.request('POST /live/{pin}/join', { params: { pin: session.pin! }, body: { name } });

    // 40 characters once normalised (the limit), 80 as sent.
    const padded = `${RLO}${'x'.repeat(20)}${PDF}`.repeat(2).padEnd(80, RLO);
    expect(ok(await join(padded)).participant.name).toBe('x'.repeat(40));
    const empty = await join(`${RLO}${LRI}${PDI}${PDF}`);
    expectStatus(empty, 422);
    expect(Object.keys(errorDetails(empty).fieldErrors)).toEqual(['name']);
  });

  it('keeps identifiers exact: a voter id is stored and matched as sent', async () => {
    const poll = ok(
      await api.request('POST /polls', { apiKey, body: { title: 'Exact', content: sampleContent() } }),
      201,
    );
    ok(await api.request('PATCH /polls/{id}', { params: { id: poll.id }, apiKey, body: { publish: true } }));
    const voterId = `Cafe\u0301${RLO}1`;
    const vote = ok(
      await api.request('POST /polls/{id}/votes', {
        params: { id: poll.id },
        apiKey,
        body: { slideId: 'lunch', voterId, optionIds: ['pizza'] },
      }),
      201,
    );
    expect(vote.voterId).toBe(voterId);
    const next = ok(
      await api.request('GET /polls/{id}/next-slide', {
        params: { id: poll.id },
        query: { voterId, afterSlideId: 'lunch' },
        apiKey,
      }),
    );
    expect(next).toEqual({ slideId: 'capital' });
  });
});
