import type { TextFilter } from '@pollkit/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/modules/api-keys/api-keys.service.js';
import { UNLIMITED } from '../support/limits.js';
import type { ControlAction } from '../support/live-deck.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { type BodyOf, errorOf, expectOk, expectStatus, slideOf, testClient } from '../support/test-client.js';

/**
 * The text filter through the API (docs/moderation.md): each mode on open-ended answers, Q&A
 * questions and names; what the owner's raw views, the shown views, the export and webhooks carry;
 * the review queue; the workspace's own terms; and `maxRespondents`, exact under concurrency.
 */

let t: TestServer;
const api = testClient(() => t.api);
let apiKey: string;
let workspaceId: string;
let otherApiKey: string;

beforeAll(async () => {
  t = await startTestServer({
    ...UNLIMITED,
    // An endpoint on loopback that nothing delivers to: the test reads the outbox the answers write.
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_LOOPBACK: 'true',
    WEBHOOK_DELIVERY: 'false',
  });
  ({ apiKey, id: workspaceId } = await t.workspace('pro'));
  ({ apiKey: otherApiKey } = await t.workspace('pro'));
});
afterAll(() => t?.close());

const VULGAR = 'this meeting is fucking long';
const CLEAN = 'Scunthorpe has a classic cocktail bar';

function deck(textFilter?: TextFilter, slideFilter?: TextFilter): BodyOf<'POST /polls'> {
  return {
    title: 'Town hall',
    ...(textFilter ? { textFilter } : {}),
    content: {
      questions: [
        {
          id: 'words',
          kind: 'open_ended',
          text: 'One line on the meeting?',
          ...(slideFilter ? { textFilter: slideFilter } : {}),
        },
        { id: 'ask', kind: 'qa', text: 'Questions?' },
        {
          id: 'q1',
          kind: 'quiz',
          text: '2 + 2?',
          options: [
            { id: 'four', label: '4' },
            { id: 'five', label: '5' },
          ],
          correctOptionIds: ['four'],
        },
      ],
    },
  };
}

async function publishedPoll(body: BodyOf<'POST /polls'>, key = apiKey): Promise<string> {
  const created = await api.request('POST /polls', { apiKey: key, body });
  expectStatus(created, 201);
  const published = await api.request('PATCH /polls/{id}', {
    params: { id: created.body.id },
    apiKey: key,
    body: { publish: true },
  });
  expectStatus(published, 200);
  return created.body.id;
}

const respond = (pollId: string, voterId: string, slideId: string, text: string, key = apiKey) =>
  api.request('POST /polls/{id}/responses', { params: { id: pollId }, apiKey: key, body: { voterId, slideId, text } });

async function results(pollId: string) {
  const res = await api.request('GET /polls/{id}/results', { params: { id: pollId }, apiKey });
  expectStatus(res, 200);
  return { open: slideOf(res.body.slides, 'words', 'open_ended'), qa: slideOf(res.body.slides, 'ask', 'qa') };
}

async function responses(pollId: string) {
  const res = await api.request('GET /polls/{id}/responses', { params: { id: pollId }, query: { limit: 100 }, apiKey });
  expectStatus(res, 200);
  return res.body.data as Array<{ id: string; text?: string; flagged?: boolean; status?: string }>;
}

async function exportCsv(pollId: string): Promise<string> {
  const res = await api.request('GET /polls/{id}/export', { params: { id: pollId }, apiKey });
  expectStatus(res, 200);
  return res.text;
}

describe('the text filter', () => {
  it('masks by default: stored as written, shown masked in results and the export', async () => {
    const created = await api.request('POST /polls', { apiKey, body: deck() });
    expectStatus(created, 201);
    expect(created.body.textFilter).toBe('mask');
    expect(created.body.maxRespondents).toBeNull();
    const pollId = await publishedPoll(deck());
    expect((await respond(pollId, 'v1', 'words', VULGAR)).status).toBe(201);
    expect((await respond(pollId, 'v2', 'words', CLEAN)).status).toBe(201);
    expect((await respond(pollId, 'v1', 'ask', 'Why is this shit so slow?')).status).toBe(201);
    // The cloud counts the words of the text as shown: no piece of an evasion ("hole" of "a$$hole").
    expect((await respond(pollId, 'v3', 'words', 'great a$$hole managers')).status).toBe(201);

    const raw = await responses(pollId);
    const vulgar = raw.find((r) => r.text === VULGAR);
    expect(vulgar).toMatchObject({ flagged: true, status: 'approved' });
    expect(raw.find((r) => r.text === CLEAN)).toMatchObject({ flagged: false, status: 'approved' });
    expect(raw.find((r) => r.text === 'Why is this shit so slow?')).toMatchObject({ flagged: true });

    const { open, qa } = await results(pollId);
    expect(open.totalAnswers).toBe(3);
    const shown = open.recent.map((r) => r.text);
    expect(shown).toContain(CLEAN);
    expect(shown.join(' ')).not.toMatch(/fucking/i);
    expect(shown.some((text: string) => /^this meeting is f\*+ long$/.test(text))).toBe(true);
    const words = open.words.map((w) => w.word);
    expect(words).toContain('meeting');
    expect(words).toContain('scunthorpe');
    expect(words).not.toContain('fucking');
    expect(words).toContain('managers');
    expect(words).not.toContain('hole');
    expect(qa.questions[0]!.text).toMatch(/^Why is this s\*+ so slow\?$/);

    const csv = await exportCsv(pollId);
    expect(csv).toContain('Scunthorpe has a classic cocktail bar');
    expect(csv).not.toMatch(/fucking|shit/i);

    const questions = await api.request('GET /polls/{id}/questions', { params: { id: pollId }, apiKey });
    expectStatus(questions, 200);
    expect(questions.body.data[0]).toMatchObject({ text: 'Why is this shit so slow?', flagged: true });
  });

  it('off shows everything as written, yet the raw views still say what is flagged', async () => {
    const pollId = await publishedPoll(deck('off'));
    expect((await respond(pollId, 'v1', 'words', VULGAR)).status).toBe(201);
    const { open } = await results(pollId);
    expect(open.recent[0]!.text).toBe(VULGAR);
    expect(open.words.map((w) => w.word)).toContain('fucking');
    expect((await responses(pollId))[0]).toMatchObject({ text: VULGAR, flagged: true });
  });

  it('block refuses a flagged text without echoing it, and stores nothing', async () => {
    const pollId = await publishedPoll(deck('block'));
    for (const [slideId, text] of [
      ['words', VULGAR],
      ['ask', 'f u c k this'],
    ] as const) {
      const refused = await respond(pollId, 'v1', slideId, text);
      expectStatus(refused, 422);
      expect(refused.body.error.code).toBe('content_rejected');
      expect(refused.body.error.details).toEqual({ field: 'text' });
      expect(refused.text).not.toMatch(/fuck|f u c k/i);
    }
    expect(await responses(pollId)).toEqual([]);
    expect((await results(pollId)).open.totalAnswers).toBe(0);
    // A clean answer goes through, and the voter could still answer after a refusal.
    expect((await respond(pollId, 'v1', 'words', CLEAN)).status).toBe(201);
  });

  it('a slide may set its own mode over the poll’s', async () => {
    const pollId = await publishedPoll(deck('off', 'block'));
    expect((await respond(pollId, 'v1', 'words', VULGAR)).status).toBe(422);
    // The Q&A slide follows the poll (off).
    expect((await respond(pollId, 'v1', 'ask', 'shit happens?')).status).toBe(201);
  });

  it('review holds a flagged answer until approved; it counts nowhere meanwhile', async () => {
    const pollId = await publishedPoll(deck('review'));
    const held = await respond(pollId, 'v1', 'words', VULGAR);
    expectStatus(held, 201);
    expect((await respond(pollId, 'v2', 'words', CLEAN)).status).toBe(201);
    const question = await respond(pollId, 'v3', 'ask', 'who the fuck planned this?');

    expect((await responses(pollId)).find((r) => r.id === expectOk(held).id)).toMatchObject({
      status: 'pending',
      flagged: true,
      text: VULGAR,
    });
    // The review queue through the API: only what is held, Q&A questions included.
    const queue = await api.request('GET /polls/{id}/responses', {
      params: { id: pollId },
      query: { status: 'pending' },
      apiKey,
    });
    expectStatus(queue, 200);
    expect(queue.body.data.map((r: { id: string }) => r.id)).toEqual([expectOk(question).id, expectOk(held).id]);
    const approvedOnes = await api.request('GET /polls/{id}/responses', {
      params: { id: pollId },
      query: { status: 'approved' },
      apiKey,
    });
    expectStatus(approvedOnes, 200);
    expect(approvedOnes.body.data.map((r) => r.text)).toEqual([CLEAN]);
    let view = await results(pollId);
    expect(view.open.totalAnswers).toBe(1);
    expect(view.open.recent.map((r) => r.text)).toEqual([CLEAN]);
    expect(view.open.words.map((w) => w.word)).not.toContain('long');
    expect(view.qa.questions).toEqual([]);
    expect(await exportCsv(pollId)).not.toContain('this meeting');

    const approve = (id: string, status: 'approved' | 'dismissed', key = apiKey) =>
      api.request('PATCH /polls/{id}/responses/{responseId}', {
        params: { id: pollId, responseId: id },
        apiKey: key,
        body: { status },
      });
    // Another workspace cannot see or decide it.
    expect((await approve(expectOk(held).id, 'approved', otherApiKey)).status).toBe(404);

    const approved = await approve(expectOk(held).id, 'approved');
    expectStatus(approved, 200);
    expect(approved.body).toMatchObject({ status: 'approved', flagged: true, text: VULGAR });
    view = await results(pollId);
    expect(view.open.totalAnswers).toBe(2);
    expect(view.open.recent.map((r) => r.text)).toContain('this meeting is f****** long');
    expect(view.open.words.map((w) => w.word)).toContain('long');
    // Approving twice changes nothing.
    expect((await approve(expectOk(held).id, 'approved')).status).toBe(200);
    expect((await results(pollId)).open.totalAnswers).toBe(2);

    // Dismissing an approved answer takes it out again.
    expect(expectOk(await approve(expectOk(held).id, 'dismissed')).status).toBe('dismissed');
    view = await results(pollId);
    expect(view.open.totalAnswers).toBe(1);
    expect(view.open.words.map((w) => w.word)).not.toContain('long');

    // A Q&A question's id works here too.
    const shown = await approve(expectOk(question).id, 'approved');
    expectStatus(shown, 200);
    expect((await results(pollId)).qa.questions[0]!.text).toMatch(/^who the f\*+ planned this\?$/);

    // Votes and quiz answers are not moderated texts.
    expect((await approve('rsp_01ARZ3NDEKTSV4RRFFQ69G5FAV', 'approved')).status).toBe(404);
  });

  it('a key without responses:write cannot decide', async () => {
    const pollId = await publishedPoll(deck('review'));
    const held = await respond(pollId, 'v1', 'words', VULGAR);
    const { secret } = await createApiKey(t.server.deps.db, {
      workspaceId,
      name: 'reader',
      scopes: ['responses:read', 'polls:read'],
    });
    const res = await api.request('PATCH /polls/{id}/responses/{responseId}', {
      params: { id: pollId, responseId: expectOk(held).id },
      apiKey: secret,
      body: { status: 'approved' },
    });
    expectStatus(res, 403);
    expect((await responses(pollId))[0]?.status).toBe('pending');
  });

  it('the workspace’s own terms: blocked ones flag, allowed ones win', async () => {
    const { apiKey: key } = await t.workspace('pro');
    const patched = await api.request('PATCH /workspace', {
      apiKey: key,
      body: { blockedTerms: ['pineapple pizza', 'Durian'], allowedTerms: ['shit'] },
    });
    expectStatus(patched, 200);
    expect(patched.body).toMatchObject({ blockedTerms: ['pineapple pizza', 'Durian'], allowedTerms: ['shit'] });
    const pollId = await publishedPoll(deck('block'), key);
    expect((await respond(pollId, 'v1', 'words', 'I love PINEAPPLE   pizza', key)).status).toBe(422);
    expect((await respond(pollId, 'v2', 'words', 'd.u.r.i.a.n for lunch', key)).status).toBe(422);
    expect((await respond(pollId, 'v3', 'words', 'pineapple on its own is fine', key)).status).toBe(201);
    expect((await respond(pollId, 'v4', 'words', 'oh shit, I forgot', key)).status).toBe(201);

    // A PATCH replaces each list; the change applies at once.
    await api.request('PATCH /workspace', { apiKey: key, body: { allowedTerms: [] } });
    expect((await respond(pollId, 'v5', 'words', 'oh shit, again', key)).status).toBe(422);

    const tooMany = await api.request('PATCH /workspace', {
      apiKey: key,
      body: { blockedTerms: Array.from({ length: 501 }, (_, i) => `term${i}`) },
    });
    expectStatus(tooMany, 422);
    const tooLong = await api.request('PATCH /workspace', { apiKey: key, body: { blockedTerms: ['x'.repeat(65)] } });
    expectStatus(tooLong, 422);
    const blank = await api.request('PATCH /workspace', { apiKey: key, body: { blockedTerms: ['   '] } });
    expectStatus(blank, 422);
  });

  it('PATCH /polls/{id} changes the mode, even once the poll has answers', async () => {
    const pollId = await publishedPoll(deck());
    expect((await respond(pollId, 'v1', 'words', CLEAN)).status).toBe(201);
    const patched = await api.request('PATCH /polls/{id}', {
      params: { id: pollId },
      apiKey,
      body: { textFilter: 'block' },
    });
    expectStatus(patched, 200);
    expect(patched.body.textFilter).toBe('block');
    expect((await respond(pollId, 'v2', 'words', VULGAR)).status).toBe(422);
    const bad = await api.unchecked('PATCH /polls/{id}', {
      params: { id: pollId },
      apiKey,
      body: { textFilter: 'shout' },
    });
    expectStatus(bad, 422);
  });
});

describe('names and the presenter’s views', () => {
  async function liveSession(body: BodyOf<'POST /polls'>) {
    const pollId = await publishedPoll(body);
    const session = await api.request('POST /sessions', { apiKey, body: { pollId } });
    expectStatus(session, 201);
    const { id, hostToken } = session.body;
    const pin = session.body.pin!;
    const control = (action: ControlAction) =>
      api.request('POST /sessions/{id}/control', { params: { id }, apiKey, body: { action } });
    expect((await control('start')).status).toBe(200);
    return { pollId, id, pin, hostToken, control };
  }

  const join = (pin: string, name: string) => api.request('POST /live/{pin}/join', { params: { pin }, body: { name } });

  it('block and review refuse a flagged name at join; mask shows it masked, the owner as written', async () => {
    for (const mode of ['block', 'review'] as const) {
      const { pin } = await liveSession(deck(mode));
      const refused = await join(pin, 'B1gD1ck');
      expectStatus(refused, 422);
      expect(refused.body.error).toMatchObject({ code: 'content_rejected', details: { field: 'name' } });
      expect(refused.text).not.toMatch(/b1gd1ck/i);
      expect((await join(pin, 'Dick Advocaat')).status).toBe(200);
    }

    const session = await liveSession(deck('mask'));
    const player = await join(session.pin, 'shithead99');
    expectStatus(player, 200);
    // The quiz is slide 3: answer it so the leaderboard has a score.
    await session.control('next');
    await session.control('next');
    const answered = await api.request('POST /live/{pin}/answers', {
      params: { pin: session.pin },
      body: { slideId: 'q1', optionIds: ['four'] },
      headers: { 'x-participant-token': expectOk(player).participantToken },
    });
    expectStatus(answered, 201);

    const shown = await api.request('GET /sessions/{id}/results', { params: { id: session.id }, apiKey });
    expectStatus(shown, 200);
    expect(shown.body.leaderboard![0]!.name).toMatch(/^s\*+99$/);
    const listed = await api.request('GET /sessions/{id}/participants', { params: { id: session.id }, apiKey });
    expectStatus(listed, 200);
    expect(listed.body.data[0]).toMatchObject({ name: 'shithead99', flagged: true });
  });

  it('the host token’s review queue: masked, decided from the presenter’s device, confined to its room', async () => {
    const session = await liveSession(deck('review'));
    const player = await join(session.pin, 'Ana');
    const answer = await api.request('POST /live/{pin}/answers', {
      params: { pin: session.pin },
      body: { slideId: 'words', text: VULGAR },
      headers: { 'x-participant-token': expectOk(player).participantToken },
    });
    expectStatus(answer, 201);

    const host = { 'x-host-token': session.hostToken };
    const queue = await api.request('GET /sessions/{id}/responses', {
      params: { id: session.id },
      query: { status: 'pending' },
      headers: host,
    });
    expectStatus(queue, 200);
    expect(queue.body.data).toHaveLength(1);
    expect(queue.body.data[0]).toMatchObject({
      status: 'pending',
      flagged: true,
      text: 'this meeting is f****** long',
    });

    // Another session's host cannot decide this room's answer.
    const other = await liveSession(deck('review'));
    const foreign = await api.request('PATCH /sessions/{id}/responses/{responseId}', {
      params: { id: other.id, responseId: answer.body.id },
      headers: { 'x-host-token': other.hostToken },
      body: { status: 'approved' },
    });
    expectStatus(foreign, 404);

    const decided = await api.request('PATCH /sessions/{id}/responses/{responseId}', {
      params: { id: session.id, responseId: answer.body.id },
      headers: host,
      body: { status: 'approved' },
    });
    expectStatus(decided, 200);
    expect(decided.body.text).toBe('this meeting is f****** long');
    const room = await api.request('GET /sessions/{id}/results', { params: { id: session.id }, headers: host });
    expectStatus(room, 200);
    const open = slideOf(room.body.slides, 'words', 'open_ended');
    expect(open.totalAnswers).toBe(1);
    expect(
      expectOk(
        await api.request('GET /sessions/{id}/responses', {
          params: { id: session.id },
          query: { status: 'pending' },
          headers: host,
        }),
      ).data,
    ).toEqual([]);
  });
});

describe('webhooks', () => {
  it('carry the text as written with `flagged`', async () => {
    const { apiKey: key, id } = await t.workspace('pro');
    const endpoint = await api.request('POST /webhooks', {
      apiKey: key,
      body: { url: 'http://127.0.0.1:9/hook', events: ['response.created', 'question.created'] },
    });
    expectStatus(endpoint, 201);
    const pollId = await publishedPoll(deck('review'), key);
    await respond(pollId, 'v1', 'words', VULGAR, key);
    await respond(pollId, 'v1', 'ask', 'Any news?', key);
    await t.server.deps.answerWriter.drained();
    const batches = await t.server.deps.db
      .selectFrom('webhook_event_batches')
      .innerJoin('webhook_endpoints', 'webhook_endpoints.id', 'webhook_event_batches.endpoint_id')
      .select('webhook_event_batches.payloads')
      .where('webhook_endpoints.workspace_id', '=', id)
      .execute();
    const payloads = batches.flatMap((b) => b.payloads).map((p) => JSON.parse(p as unknown as string));
    const response = payloads.find((p) => p.type === 'response.created');
    const question = payloads.find((p) => p.type === 'question.created');
    expect(response.data).toMatchObject({ text: VULGAR, flagged: true, status: 'pending' });
    expect(question.data).toMatchObject({ text: 'Any news?', flagged: false });
  });
});

describe('maxRespondents', () => {
  it('is exact under 20 concurrent first answers, and lets seated respondents answer on', async () => {
    const body: BodyOf<'POST /polls'> = {
      title: 'Capped',
      maxRespondents: 5,
      content: {
        questions: [
          { id: 'a', kind: 'open_ended', text: 'A?' },
          { id: 'b', kind: 'open_ended', text: 'B?' },
        ],
      },
    };
    const pollId = await publishedPoll(body);
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, (_, i) => respond(pollId, `voter-${i}`, 'a', `answer ${i}`)),
    );
    const accepted = outcomes.filter((r) => r.status === 201);
    const full = outcomes.filter((r) => r.status === 409);
    expect(accepted).toHaveLength(5);
    expect(full).toHaveLength(15);
    expect(errorOf(full[0]!)).toMatchObject({ code: 'poll_full', details: { maxRespondents: 5 } });
    // A seated respondent answers the next slide; a newcomer still cannot.
    const seated = accepted[0]?.body.voterId as string;
    expect((await respond(pollId, seated, 'b', 'more')).status).toBe(201);
    expect((await respond(pollId, 'latecomer', 'b', 'me too')).status).toBe(409);
    // Raising the cap lets one more in; resetting the answers frees every seat.
    await api.request('PATCH /polls/{id}', { params: { id: pollId }, apiKey, body: { maxRespondents: 6 } });
    expect((await respond(pollId, 'latecomer', 'b', 'me too')).status).toBe(201);
    expect((await api.request('DELETE /polls/{id}/answers', { params: { id: pollId }, apiKey })).status).toBe(200);
    expect((await respond(pollId, 'fresh', 'a', 'hello')).status).toBe(201);
  });
});
