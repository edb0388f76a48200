import { branchDraftLimits } from '@pollkit/contracts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { clipped, draftWithOpenAI, REASON_TEXT_LIMIT } from '../../src/modules/branching/openai-drafter.js';
import { expectError } from '../support/assertions.js';
import { branchingDeck, condition, type SlideInput } from '../support/decks.js';
import { apiError, completion, type FakeOpenAI, output, startFakeOpenAI, wire } from '../support/fake-openai.js';
import { UNLIMITED } from '../support/limits.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { errorDetails, expectOk, expectStatus, testClient } from '../support/test-client.js';

/**
 * What bounds `POST /polls/{id}/branch` (issue 24, finding 13): a limit per workspace, however many
 * keys share it (BRANCH_RATE_LIMIT_PER_MINUTE); a largest deck, refused before the provider is asked;
 * and provider text that reaches the log clipped to REASON_TEXT_LIMIT characters with its length.
 * Against the loopback stand-in for OpenAI, through the real `openai` client.
 */

const LIMIT = 3;

let fake: FakeOpenAI;
let t: TestServer;
const api = testClient(() => t.api);

beforeAll(async () => {
  fake = await startFakeOpenAI();
  t = await startTestServer({
    ...UNLIMITED,
    OPENAI_API_KEY: 'sk-test-0123456789abcdef',
    OPENAI_BASE_URL: fake.baseURL,
    OPENAI_TIMEOUT_MS: '1500',
    BRANCH_RATE_LIMIT_PER_MINUTE: String(LIMIT),
  });
});

afterAll(async () => {
  await t?.close();
  await fake?.close();
});

beforeEach(() => {
  fake.received = [];
  fake.reply = () => completion(output([wire('mood', 'less_than', 3, 'drinks')]));
});

async function pollOf(apiKey: string, questions: SlideInput[] = branchingDeck, title = 'Branched') {
  const created = await api.request('POST /polls', { apiKey, body: { title, content: { questions } } });
  expectStatus(created, 201);
  return created.body.id as string;
}

function branch(apiKey: string, pollId: string, instruction = 'If Q2 is below 3, skip to Q4') {
  return api.request('POST /polls/{id}/branch', { params: { id: pollId }, apiKey, body: { instruction } });
}

/** Windows are clock-aligned minutes: start a counting test early enough in one to finish inside it. */
async function freshWindow(): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 15_000) await new Promise((resolve) => setTimeout(resolve, left + 50));
}

describe('the per-workspace limit', () => {
  it('counts every key of a workspace together; past it, 429 rate_limited without asking the provider', async () => {
    await freshWindow();
    const first = await t.workspace('pro');
    const second = await api.request('POST /keys', { apiKey: first.apiKey, body: { name: 'second key' } });
    expectStatus(second, 201);
    const pollId = await pollOf(first.apiKey);

    const keys = [first.apiKey, second.body.secret, first.apiKey];
    for (const apiKey of keys) {
      const res = await branch(apiKey, pollId);
      expectStatus(res, 200);
      expect(expectOk(res).data.source).toBe('openai');
    }
    expect(fake.received).toHaveLength(LIMIT);

    // The fourth, from either key: the workspace has used its drafts for this minute.
    for (const apiKey of [second.body.secret, first.apiKey]) {
      const over = await branch(apiKey, pollId);
      expectError(over, 429, 'rate_limited');
      expect(over.body.error.message).toBe(
        `Skip logic can be drafted ${LIMIT} times a minute per workspace; this workspace has used them`,
      );
      expect(over.body.error.details).toEqual({ limit: LIMIT, resetAt: expect.any(String) });
      expect(Date.parse(errorDetails(over).resetAt as string)).toBeGreaterThan(Date.now());
    }
    expect(fake.received).toHaveLength(LIMIT);

    // Other routes of the workspace, and other workspaces' drafts, are not affected.
    expect((await api.request('GET /polls/{id}', { params: { id: pollId }, apiKey: first.apiKey })).status).toBe(200);
    const other = await t.workspace('pro');
    const res = await branch(other.apiKey, await pollOf(other.apiKey));
    expectStatus(res, 200);
  });

  it('is not replayed for an Idempotency-Key: the key is free again for a retry once the window resets', async () => {
    await freshWindow();
    const { apiKey } = await t.workspace('pro');
    const pollId = await pollOf(apiKey);
    const headers = { 'idempotency-key': 'draft-once' };
    const draft = () =>
      api.request('POST /polls/{id}/branch', {
        params: { id: pollId },
        apiKey,
        headers,
        body: { instruction: 'If Q2 is below 3, skip to Q4' },
      });
    for (let i = 0; i < LIMIT; i++) {
      const res = await api.request('POST /polls/{id}/branch', {
        params: { id: pollId },
        apiKey,
        body: { instruction: 'If Q2 is below 3, skip to Q4' },
      });
      expectStatus(res, 200);
    }
    // Refused by the limit, twice with the same key: each time counted and refused afresh, never the
    // first 429 replayed (the SDK retries a 429 with the same key; a replay would refuse it for 24 h).
    for (let i = 0; i < 2; i++) {
      const over = await draft();
      expectError(over, 429, 'rate_limited');
      expect(over.headers.get('idempotent-replayed')).toBeNull();
    }
    // The key holds nothing, so once the window resets the same request with the same key runs again.
    const stored = await t.server.deps.db
      .selectFrom('idempotency_keys')
      .select('key')
      .where('key', 'like', '%draft-once')
      .execute();
    expect(stored).toEqual([]);
  });
});

describe('the largest deck drafted for', () => {
  const slide = (index: number, label = 'An option'): SlideInput => ({
    id: `s${index}`,
    kind: 'multiple_choice',
    text: `Question ${index}?`,
    type: 'single',
    options: [
      { id: 'a', label },
      { id: 'b', label },
    ],
  });

  it(`refuses more than ${branchDraftLimits.slides} slides with 422, before the provider is asked`, async () => {
    const { apiKey } = await t.workspace('pro');
    const questions = Array.from({ length: branchDraftLimits.slides + 1 }, (_, index) => slide(index + 1));
    const res = await branch(apiKey, await pollOf(apiKey, questions), 'If Q1 is "An option", skip to Q3');
    expectError(res, 422, 'validation_failed');
    expect(res.body.error.message).toMatch(
      new RegExp(
        `^The poll is too large to draft skip logic for: ${branchDraftLimits.slides + 1} slides \\(at most ${branchDraftLimits.slides}\\) and \\d+ characters of text \\(at most ${branchDraftLimits.textLength}\\)\\. Write its branching with PATCH /polls/\\{id\\} instead$`,
      ),
    );
    expect(res.body.error.details).toMatchObject({
      fieldErrors: {},
      formErrors: [res.body.error.message],
      slides: branchDraftLimits.slides + 1,
      maxSlides: branchDraftLimits.slides,
      maxTextLength: branchDraftLimits.textLength,
    });
    expect(fake.received).toEqual([]);
  });

  it(`refuses more than ${branchDraftLimits.textLength} characters of text, and drafts at the limits`, async () => {
    const { apiKey } = await t.workspace('pro');
    // 50 slides whose labels bring the text just past the limit, then just to it.
    const base = Array.from({ length: branchDraftLimits.slides }, (_, index) => slide(index + 1, ''));
    const fixed = 'Limits'.length + base.reduce((sum, s) => sum + s.text.length, 0);
    const labels = (branchDraftLimits.textLength - fixed) / (2 * branchDraftLimits.slides);
    const deck = (extra: number) =>
      base.map((s, index) => ({
        ...s,
        options: [
          { id: 'a', label: 'x'.repeat(Math.floor(labels) + (index === 0 ? extra : 0)) },
          { id: 'b', label: 'y'.repeat(Math.ceil(labels)) },
        ],
      })) as SlideInput[];
    const textOf = (questions: SlideInput[]) =>
      'Limits'.length +
      questions.reduce(
        (sum, s) =>
          sum + s.text.length + ('options' in s ? (s.options ?? []).reduce((n, o) => n + o.label.length, 0) : 0),
        0,
      );
    const atLimit = deck(branchDraftLimits.textLength - textOf(deck(0)));
    expect(textOf(atLimit)).toBe(branchDraftLimits.textLength);

    const over = await branch(
      apiKey,
      await pollOf(apiKey, deck(branchDraftLimits.textLength - textOf(deck(0)) + 1), 'Limits'),
    );
    expectError(over, 422, 'validation_failed');
    expect(over.body.error.details).toMatchObject({
      slides: branchDraftLimits.slides,
      textLength: branchDraftLimits.textLength + 1,
    });
    expect(fake.received).toEqual([]);

    fake.reply = () => completion(output([wire('s1', 'not_answered', null, 's3')]));
    const drafted = await branch(apiKey, await pollOf(apiKey, atLimit, 'Limits'), 'If Q1 is not answered, skip to Q3');
    expectStatus(drafted, 200);
    expect(expectOk(drafted).data).toMatchObject({
      source: 'openai',
      draftJson: { conditions: [condition('rule-1', 's1', 'not_answered', undefined, 's3')] },
    });
    expect(fake.received).toHaveLength(1);
  });
});

describe('provider text in the log', () => {
  const settings = () => ({
    apiKey: 'sk-test-0123456789abcdef',
    baseURL: fake.baseURL,
    model: 'gpt-4o-mini',
    timeoutMs: 5_000,
  });
  const poll = { title: 'Team lunch', slides: branchingDeck };
  const long = (letter: string, length: number) => letter.repeat(length);

  it('is clipped to its first characters and its length, in every reason that quotes it', async () => {
    const cases: [string, () => ReturnType<typeof completion> | ReturnType<typeof apiError>, string][] = [
      [
        'a refusal',
        () => completion(null, long('r', 5000)),
        `refused: ${long('r', REASON_TEXT_LIMIT)}… (5000 characters)`,
      ],
      [
        "the model's problem",
        () => completion(output([], long('p', 3000))),
        `declined: ${long('p', REASON_TEXT_LIMIT)}… (3000 characters)`,
      ],
      [
        'a key the model made up',
        () => completion(JSON.stringify({ conditions: [], problem: null, ignored: [], [long('k', 2000)]: 1 })),
        'malformed output: ',
      ],
      [
        "a provider's error code",
        () => apiError(400, long('c', 1000), 'Bad request'),
        `provider error 400 (${long('c', REASON_TEXT_LIMIT)}… (1000 characters))`,
      ],
    ];
    for (const [what, reply, reason] of cases) {
      fake.reply = reply;
      const result = await draftWithOpenAI(settings(), poll, 'If Q2 is below 3, skip to Q4');
      expect(result.ok, what).toBe(false);
      const got = (result as { reason: string }).reason;
      expect(got.startsWith(reason), `${what}: ${got.slice(0, 80)}`).toBe(true);
      expect(got.length, what).toBeLessThan(REASON_TEXT_LIMIT + 80);
    }
  });

  it('is quoted whole when short, and never cut between the halves of a surrogate pair', () => {
    expect(clipped('I cannot help with that.')).toBe('I cannot help with that.');
    expect(clipped(long('a', REASON_TEXT_LIMIT))).toBe(long('a', REASON_TEXT_LIMIT));
    const emoji = `${long('a', REASON_TEXT_LIMIT - 1)}😀${long('b', 10)}`;
    expect(clipped(emoji)).toBe(`${long('a', REASON_TEXT_LIMIT - 1)}… (${emoji.length} characters)`);
  });
});
