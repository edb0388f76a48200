import type { BranchCondition } from '@pollkit/contracts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../src/config.js';
import {
  draftWithOpenAI,
  MAX_RETRIES,
  type OpenAiSettings,
  openAiSettings,
} from '../../src/modules/branching/openai-drafter.js';
import { branchingDeck as deck } from '../support/decks.js';
import {
  apiError,
  completion,
  type FakeOpenAI,
  output,
  type Received,
  startFakeOpenAI,
  wire,
} from '../support/fake-openai.js';

/**
 * draftWithOpenAI (modules/branching/openai-drafter.ts) against a loopback server that speaks the
 * Chat Completions API as OpenAI does, reached by the real `openai` client through `baseURL`. Each
 * scenario checks the outcome and what the provider was sent.
 */

const KEY = 'sk-test-0123456789abcdef';
const MODEL = 'gpt-4o-mini';
const poll = { title: 'Team lunch', slides: deck };

let fake: FakeOpenAI;

beforeAll(async () => {
  fake = await startFakeOpenAI();
});

afterAll(() => fake.close());

beforeEach(() => {
  fake.received = [];
  fake.reply = () => ({ status: 500, body: { error: { message: 'no reply set', type: 'test' } } });
});

function settings(timeoutMs = 10_000): OpenAiSettings {
  return { apiKey: KEY, baseURL: fake.baseURL, model: MODEL, timeoutMs };
}

function rule(
  id: string,
  slideId: string,
  operator: BranchCondition['if']['operator'],
  value: unknown,
  to: string,
): BranchCondition {
  return {
    id,
    if: (value === undefined ? { slideId, operator } : { slideId, operator, value }) as BranchCondition['if'],
    // biome-ignore lint/suspicious/noThenProperty: `then` is the field name of the rule's action.
    then: to === 'end' ? { action: 'end' } : { action: 'skip_to', slideId: to },
  };
}

/** Every object closed and fully required, no keyword strict mode refuses. */
function expectStrictSchema(schema: unknown, at = 'schema'): void {
  if (Array.isArray(schema)) {
    for (const [index, item] of schema.entries()) expectStrictSchema(item, `${at}[${index}]`);
    return;
  }
  if (schema === null || typeof schema !== 'object') return;
  const node = schema as Record<string, unknown>;
  for (const keyword of ['oneOf', 'allOf', 'not', 'const', '$ref', '$schema']) {
    expect(node, `${at} uses ${keyword}`).not.toHaveProperty(keyword);
  }
  if (node.type === 'object') {
    expect(node.additionalProperties, `${at}.additionalProperties`).toBe(false);
    expect([...(node.required as string[])].sort(), `${at}.required`).toEqual(
      Object.keys(node.properties as object).sort(),
    );
  }
  for (const [key, value] of Object.entries(node)) expectStrictSchema(value, `${at}.${key}`);
}

/** What every attempt must carry: the key, the model, strict structured output, the deck, the instruction. */
function expectDraftRequest(request: Received | undefined, instruction: string): void {
  expect(request).toBeDefined();
  const { method, path, headers, body } = request as Received;
  expect(method).toBe('POST');
  expect(path).toBe('/v1/chat/completions');
  expect(headers.authorization).toBe(`Bearer ${KEY}`);
  expect(body.model).toBe(MODEL);
  expect(body.response_format).toMatchObject({ type: 'json_schema', json_schema: { name: 'branching', strict: true } });
  const schema = body.response_format.json_schema.schema;
  expect(schema.type).toBe('object');
  expect(Object.keys(schema.properties)).toContain('conditions');
  expectStrictSchema(schema);
  const messages = body.messages as { role: string; content: string }[];
  expect(messages[0]?.role).toBe('system');
  expect(messages[0]?.content).toMatch(/first that matches/i);
  expect(messages[0]?.content).toMatch(/forward only/i);
  const userText = messages
    .filter((message) => message.role === 'user')
    .map((message) => message.content)
    .join('\n');
  expect(userText).toContain(instruction);
  for (const slide of deck) expect(userText).toContain(`"id":"${slide.id}"`);
  expect(userText).toContain('{"id":"sushi","label":"Sushi"}');
  expect(userText).toContain('"min":1,"max":5');
}

describe('draftWithOpenAI', () => {
  it('returns the conditions the model wrote, numbered, with null values dropped', async () => {
    const instruction = 'If they pick pizza, skip to the quiz; if they skip lunch, end; if mood is 2 or less go to Q6';
    fake.reply = () =>
      completion(
        output([
          wire('lunch', 'equals', 'pizza', 'capital'),
          wire('lunch', 'not_answered', null, 'end'),
          wire('mood', 'at_most', 2, 'feedback'),
          wire('drinks', 'includes', ['water', 'soda'], 'end'),
        ]),
      );

    const result = await draftWithOpenAI(settings(), poll, instruction);

    const expected: BranchCondition[] = [
      rule('rule-1', 'lunch', 'equals', 'pizza', 'capital'),
      rule('rule-2', 'lunch', 'not_answered', undefined, 'end'),
      rule('rule-3', 'mood', 'at_most', 2, 'feedback'),
      rule('rule-4', 'drinks', 'includes', ['water', 'soda'], 'end'),
    ];
    expect(result).toStrictEqual({
      ok: true,
      conditions: expected,
      sources: ['lunch equals', 'lunch not_answered', 'mood at_most', 'drinks includes'],
      ignored: [],
    });
    expect(fake.received).toHaveLength(1);
    expectDraftRequest(fake.received[0], instruction);
  });

  it('reports a refusal', async () => {
    const instruction = 'Skip to the end if they are rude';
    fake.reply = () => completion(null, "I'm sorry, I can't help with that.");

    const result = await draftWithOpenAI(settings(), poll, instruction);

    expect(result).toEqual({ ok: false, reason: "refused: I'm sorry, I can't help with that." });
    expect(fake.received).toHaveLength(1);
    expectDraftRequest(fake.received[0], instruction);
  });

  it('retries a 500 as many times as allowed, then reports it', async () => {
    const instruction = 'End the poll if Q1 is not answered';
    fake.reply = () => apiError(500, null, 'The server had an error while processing your request.');

    const result = await draftWithOpenAI(settings(), poll, instruction);

    expect(result).toEqual({ ok: false, reason: 'provider error 500' });
    expect(fake.received).toHaveLength(1 + MAX_RETRIES);
    for (const request of fake.received) expectDraftRequest(request, instruction);
    expect(new Set(fake.received.map((request) => JSON.stringify(request.body))).size).toBe(1);
  });

  it('retries a 429 with retry-after: 0 a bounded number of times', async () => {
    const instruction = 'If they choose sushi, end the poll';
    fake.reply = () =>
      apiError(429, 'rate_limit_exceeded', 'Rate limit reached for gpt-4o-mini on requests per min (RPM).', {
        'retry-after': '0',
      });

    const result = await draftWithOpenAI(settings(), poll, instruction);

    expect(result).toEqual({ ok: false, reason: 'rate limited (429)' });
    expect(fake.received).toHaveLength(1 + MAX_RETRIES);
    for (const request of fake.received) expectDraftRequest(request, instruction);
  });

  it('gives up at once on a 429 that asks for a wait longer than the budget', async () => {
    const instruction = 'If they choose sushi, end the poll';
    fake.reply = () => apiError(429, 'rate_limit_exceeded', 'Rate limit reached.', { 'retry-after': '3600' });

    const result = await draftWithOpenAI(settings(), poll, instruction);

    expect(result).toEqual({ ok: false, reason: 'rate limited (429)' });
    expect(fake.received).toHaveLength(1);
    expectDraftRequest(fake.received[0], instruction);
  });

  it('recovers when a retry succeeds', async () => {
    const instruction = 'If they did not answer Q2, end';
    fake.reply = (attempt) =>
      attempt === 0
        ? apiError(503, null, 'The engine is currently overloaded.', { 'retry-after-ms': '1' })
        : completion(output([wire('mood', 'not_answered', null, 'end')]));

    const result = await draftWithOpenAI(settings(), poll, instruction);

    expect(result).toStrictEqual({
      ok: true,
      conditions: [rule('rule-1', 'mood', 'not_answered', undefined, 'end')],
      sources: ['mood not_answered'],
      ignored: [],
    });
    expect(fake.received).toHaveLength(2);
    for (const request of fake.received) expectDraftRequest(request, instruction);
  });

  it('does not retry a rejected key, and never repeats the provider message that quotes it', async () => {
    const instruction = 'End if Q1 is pizza';
    fake.reply = () =>
      apiError(401, 'invalid_api_key', `Incorrect API key provided: ${KEY.slice(0, 8)}****cdef.`, {
        'www-authenticate': 'Bearer',
      });

    const result = await draftWithOpenAI(settings(), poll, instruction);

    expect(result).toEqual({ ok: false, reason: 'provider error 401 (invalid_api_key)' });
    expect(JSON.stringify(result)).not.toContain(KEY.slice(0, 8));
    expect(fake.received).toHaveLength(1);
    expectDraftRequest(fake.received[0], instruction);
  });

  it('stops waiting for a provider that never answers once the budget is spent', async () => {
    const instruction = 'If Q1 is tacos, skip to the ranking';
    fake.reply = () => 'hang';

    const result = await draftWithOpenAI(settings(300), poll, instruction);

    expect(result).toEqual({ ok: false, reason: 'timed out after 300 ms' });
    expect(fake.received.length).toBeGreaterThanOrEqual(1);
    expectDraftRequest(fake.received[0], instruction);
    // The client hung up on every attempt it started: nothing is left open at the provider.
    await Promise.all(fake.received.map((request) => request.closed));
  });

  it('reports a provider it cannot reach', async () => {
    // Port 4 on loopback (unassigned, privileged, not a port fetch refuses): no test's server beside this one
    // can be listening there (a port just closed could be taken by one before the request is made).
    const result = await draftWithOpenAI(
      { ...settings(), baseURL: 'http://127.0.0.1:4/v1' },
      poll,
      'End if Q1 is pizza',
    );

    expect(result).toEqual({ ok: false, reason: 'could not reach the provider (ECONNREFUSED)' });
    expect(fake.received).toHaveLength(0);
  });

  it.each([
    ['content that is not JSON', 'Sure! Skip to the quiz when they pick pizza.', 'malformed output: not JSON'],
    [
      'an operator outside the format',
      output([wire('lunch', 'contains', 'pizza', 'end')]),
      /^malformed output: conditions\.0\.if\.operator: /,
    ],
    [
      'a rule without its action',
      JSON.stringify({
        conditions: [{ source: 'lunch', if: { slideId: 'lunch', operator: 'answered', value: null } }],
        problem: null,
        ignored: [],
      }),
      /^malformed output: conditions\.0\.then: /,
    ],
    [
      'an option id longer than the contract allows',
      output([wire('lunch', 'equals', 'p'.repeat(400), 'end')]),
      /^malformed output: conditions\.0\.if\.value/,
    ],
    [
      'a slide the poll does not have',
      output([wire('dessert', 'answered', null, 'end')]),
      "does not fit the poll: No slide 'dessert' in this poll",
    ],
    [
      'an option the slide does not have',
      output([wire('lunch', 'equals', 'Pizza', 'end')]),
      /^does not fit the poll: Slide 'lunch' has no option 'Pizza'/,
    ],
    [
      'a jump backwards',
      output([wire('mood', 'less_than', 3, 'lunch')]),
      /^does not fit the poll: Jumps go forward only: 'lunch' \(slide 2\) is not after 'mood' \(slide 3\)/,
    ],
    [
      'a rating outside the scale',
      output([wire('mood', 'greater_than', 9, 'end')]),
      /^does not fit the poll: Slide 'mood' is rated from 1 to 5/,
    ],
    [
      'the model saying the instruction cannot be expressed',
      output([], 'The poll has no question about dessert.'),
      'declined: The poll has no question about dessert.',
    ],
    ['no rules at all', output([]), 'no rules drafted'],
  ])('rejects %s', async (_name, content, reason) => {
    const instruction = 'If they pick pizza, skip to the quiz';
    fake.reply = () => completion(content);

    const result = await draftWithOpenAI(settings(), poll, instruction);

    expect(result.ok).toBe(false);
    expect(result.ok ? undefined : result.reason).toMatch(reason);
    expect(fake.received).toHaveLength(1);
    expectDraftRequest(fake.received[0], instruction);
  });

  it('reports a response without choices', async () => {
    const instruction = 'End if Q1 is pizza';
    fake.reply = () => ({ ...completion(null), body: { ...completion(null).body, choices: [] } });

    const result = await draftWithOpenAI(settings(), poll, instruction);

    expect(result).toEqual({ ok: false, reason: 'no output: the response has no choices' });
    expectDraftRequest(fake.received[0], instruction);
  });
});

describe('openAiSettings', () => {
  it('is absent without a key, and takes the defaults otherwise', () => {
    expect(openAiSettings(parseConfig({}))).toBeUndefined();
    expect(openAiSettings(parseConfig({ OPENAI_API_KEY: KEY }))).toEqual({
      apiKey: KEY,
      model: 'gpt-4o-mini',
      timeoutMs: 15_000,
    });
    expect(
      openAiSettings(
        parseConfig({
          OPENAI_API_KEY: KEY,
          OPENAI_BASE_URL: 'https://llm-proxy.example/v1',
          OPENAI_MODEL: 'gpt-4.1-mini',
          OPENAI_TIMEOUT_MS: '5000',
        }),
      ),
    ).toEqual({ apiKey: KEY, baseURL: 'https://llm-proxy.example/v1', model: 'gpt-4.1-mini', timeoutMs: 5000 });
  });

  it('refuses a base URL that is not a URL, naming the variable', () => {
    expect(() => parseConfig({ OPENAI_API_KEY: KEY, OPENAI_BASE_URL: 'llm-proxy' })).toThrow(ConfigError);
    expect(() => parseConfig({ OPENAI_BASE_URL: 'llm-proxy' })).toThrow(/OPENAI_BASE_URL/);
  });
});
