import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { expectError } from '../support/assertions.js';
import { branchingDeck, condition } from '../support/decks.js';
import {
  apiError,
  completion,
  type FakeOpenAI,
  output,
  type Reply,
  startFakeOpenAI,
  wire,
} from '../support/fake-openai.js';
import { UNLIMITED } from '../support/limits.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { expectOk, expectStatus, testClient } from '../support/test-client.js';

/**
 * `POST /polls/{id}/branch` with a provider configured (OPENAI_API_KEY, OPENAI_BASE_URL pointing at a
 * loopback stand-in that speaks the Chat Completions API), over real HTTP: the provider's draft when
 * it fits the poll (`source: "openai"`), and the rule-based parser's whenever the provider fails —
 * an error, a rate limit, a timeout, a refusal, malformed output, or output that does not fit.
 */

let fake: FakeOpenAI;
let t: TestServer;
const api = testClient(() => t.api);
let apiKey: string;
let pollId: string;

const INSTRUCTION = 'If Q2 is below 3, skip to Q4';
const RULES_DRAFT = [condition('rule-1', 'mood', 'less_than', 3, 'drinks')];

beforeAll(async () => {
  fake = await startFakeOpenAI();
  t = await startTestServer({
    // One workspace drafts throughout: the per-workspace limit is tested in branching-limits.test.ts.
    ...UNLIMITED,
    OPENAI_API_KEY: 'sk-test-0123456789abcdef',
    OPENAI_BASE_URL: fake.baseURL,
    OPENAI_MODEL: 'gpt-4o-mini',
    OPENAI_TIMEOUT_MS: '1500',
  });
  ({ apiKey } = await t.workspace('pro'));
  const created = await api.request('POST /polls', {
    apiKey,
    body: { title: 'Branched', content: { questions: branchingDeck } },
  });
  expectStatus(created, 201);
  pollId = created.body.id;
});

afterAll(async () => {
  await t?.close();
  await fake?.close();
});

beforeEach(() => {
  fake.received = [];
});

function branch(instruction = INSTRUCTION) {
  return api.request('POST /polls/{id}/branch', { params: { id: pollId }, apiKey, body: { instruction } });
}

describe('POST /polls/{id}/branch with OpenAI configured', () => {
  it('answers the provider’s draft, with source "openai", when it fits the poll', async () => {
    fake.reply = () =>
      completion(output([wire('mood', 'at_most', 2, 'drinks'), wire('feedback', 'not_answered', null, 'end')]));
    const res = await branch('Send the unhappy ones to the drinks question, and end it for those who skip feedback');
    expectStatus(res, 200);
    expect(expectOk(res).data).toEqual({
      source: 'openai',
      draftJson: {
        conditions: [
          condition('rule-1', 'mood', 'at_most', 2, 'drinks'),
          condition('rule-2', 'feedback', 'not_answered', undefined, 'end'),
        ],
      },
      report: {
        rules: [
          { id: 'rule-1', source: 'mood at_most', reading: 'If “How do you feel?” is at most 2, skip to “Drinks?”' },
          { id: 'rule-2', source: 'feedback not_answered', reading: 'If “Any feedback?” is left blank, end the poll' },
        ],
        ignored: [],
        corrected: [],
      },
    });
    // The real client: one Chat Completions call, the key as a Bearer token, strict structured output.
    expect(fake.received).toHaveLength(1);
    const [request] = fake.received;
    expect(request?.path).toBe('/v1/chat/completions');
    expect(request?.headers.authorization).toBe('Bearer sk-test-0123456789abcdef');
    expect(request?.body.model).toBe('gpt-4o-mini');
    expect(request?.body.response_format.type).toBe('json_schema');
    expect(request?.body.response_format.json_schema.strict).toBe(true);
    expect(JSON.stringify(request?.body.messages)).toContain('Send the unhappy ones');
  });

  it('reports what the model left out, beside the draft', async () => {
    fake.reply = () =>
      completion(
        output([wire('mood', 'at_most', 2, 'drinks')], null, [
          { text: 'Otherwise carry on as normal', why: 'says nothing changes' },
        ]),
      );
    const res = await branch('If Q2 is 1 or 2, go to the drinks. Otherwise carry on as normal');
    expectStatus(res, 200);
    expect(expectOk(res).data.report.ignored).toEqual([
      { text: 'Otherwise carry on as normal', why: 'says nothing changes' },
    ]);
    expect(expectOk(res).data.report.rules).toEqual([
      { id: 'rule-1', source: 'mood at_most', reading: 'If “How do you feel?” is at most 2, skip to “Drinks?”' },
    ]);
  });

  const failures: [string, (attempt: number) => Reply][] = [
    ['a 500', () => apiError(500, null, 'The server had an error while processing your request.')],
    ['a 429', () => apiError(429, 'rate_limit_exceeded', 'Rate limit reached.', { 'retry-after': '0' })],
    ['a timeout', () => 'hang'],
    ['a refusal', () => completion(null, "I'm sorry, I can't help with that.")],
    ['malformed JSON', () => completion('{"conditions": [')],
    ['output naming unknown slides', () => completion(output([wire('nope', 'answered', null, 'drinks')]))],
    ['output jumping backwards', () => completion(output([wire('drinks', 'answered', null, 'lunch')]))],
  ];

  it.each(failures)('falls back to the rules after %s', async (_name, reply) => {
    fake.reply = reply;
    const res = await branch();
    expectStatus(res, 200);
    expect(expectOk(res).data).toMatchObject({ source: 'rules', draftJson: { conditions: RULES_DRAFT } });
    expect(fake.received.length).toBeGreaterThanOrEqual(1);
  });

  it('answers 422 when the provider fails and the rules cannot read the instruction either', async () => {
    fake.reply = () => apiError(500, null, 'The server had an error while processing your request.');
    expectError(await branch('Make it nice'), 422, 'validation_failed');
  });
});
