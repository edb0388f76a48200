import type { BranchCondition, Slide } from '@pollkit/contracts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { draftWithOpenAI, OPERATOR_MEANINGS, type OpenAiSettings } from '../../src/modules/branching/openai-drafter.js';
import { instructionTable, tableDecks } from '../fixtures/branching/instruction-table.js';
import { completion, type FakeOpenAI, output, startFakeOpenAI } from '../support/fake-openai.js';
import type { LooseJson } from '../support/http.js';

/**
 * The OpenAI path with the parser's table (fixtures/branching/instruction-table.ts): for every
 * instruction, the drafter's request to a loopback stand-in for the provider must carry what a model
 * needs to read it — the instruction as written, the deck (every slide's id, number, kind and text,
 * every option's id and label, every scale's range), and the contract's operators with their meanings
 * and the words people write for them — and the drafter must return the reading the table expects
 * when the model answers it (and decline when the model names a problem, as for the table's refusals).
 */

const settings = (fake: FakeOpenAI): OpenAiSettings => ({
  apiKey: 'sk-test-0123456789abcdef',
  baseURL: fake.baseURL,
  model: 'gpt-4o-mini',
  timeoutMs: 10_000,
});

let fake: FakeOpenAI;

beforeAll(async () => {
  fake = await startFakeOpenAI();
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.received = [];
});

/** A condition as the model writes it (every field present, `value` null when there is none). */
function asWire(rule: Omit<BranchCondition, 'id'>) {
  return {
    source: `${rule.if.slideId} ${rule.if.operator}`,
    if: { ...rule.if, value: rule.if.value ?? null },
    // biome-ignore lint/suspicious/noThenProperty: `then` is the field name of the rule's action.
    then: rule.then,
  };
}

/** The deck as the request carries it (the user message after "Poll:"). */
function sentDeck(body: LooseJson): { title: string; slides: LooseJson[] } {
  const message = body.messages.find((m: LooseJson) => m.role === 'user' && String(m.content).startsWith('Poll:\n'));
  return JSON.parse(String(message.content).slice('Poll:\n'.length));
}

describe('the OpenAI drafter, over the instruction table', () => {
  it('tells the model every operator of the contract, what it means and how people write it', async () => {
    fake.reply = () => completion(output([], 'nothing'));
    await draftWithOpenAI(settings(fake), { title: 'Deck', slides: tableDecks.event }, 'If Q1 is London, end');
    const [system] = fake.received[0]?.body.messages ?? [];
    expect(system.role).toBe('system');
    const operators = fake.received[0]?.body.response_format.json_schema.schema.properties.conditions.items.properties
      .if.properties.operator.enum as string[];
    expect(operators.sort()).toEqual(Object.keys(OPERATOR_MEANINGS).sort());
    for (const [operator, meaning] of Object.entries(OPERATOR_MEANINGS)) {
      expect(system.content).toContain(`- "${operator}": ${meaning}.`);
    }
    // The phrasings the table's instructions use for the operators, and for slides and endings.
    for (const words of ['ticked', 'anything but', 'left blank', 'section N', 'submit', 'Otherwise X', '"option"']) {
      expect(system.content).toContain(words);
    }
  });

  it.each(instructionTable.map((entry) => [`[${entry.deck}] ${entry.instruction}`, entry] as const))(
    '%s',
    async (_name, entry) => {
      const slides: Slide[] = tableDecks[entry.deck];
      const refused = 'refuse' in entry.expect;
      fake.reply = () =>
        completion(
          refused
            ? output([], `Cannot express "${(entry.expect as { refuse: { quote: string } }).refuse.quote}"`)
            : output((entry.expect as Omit<BranchCondition, 'id'>[]).map(asWire)),
        );
      const attempt = await draftWithOpenAI(settings(fake), { title: entry.deck, slides }, entry.instruction);

      // What the model was sent: the instruction as written, and the whole deck with ids and labels.
      expect(fake.received).toHaveLength(1);
      const body = fake.received[0]!.body;
      expect(body.messages.at(-1)).toEqual({ role: 'user', content: `Instruction:\n${entry.instruction}` });
      const deck = sentDeck(body);
      expect(deck.slides.map((slide) => slide.id)).toEqual(slides.map((slide) => slide.id));
      let question = 0;
      slides.forEach((slide, index) => {
        const sent = deck.slides[index] as LooseJson;
        expect(sent).toMatchObject({ slide: index + 1, kind: slide.kind, text: slide.text });
        if (slide.kind !== 'content') expect(sent.question).toBe(++question);
        if ('options' in slide) {
          expect(sent.options).toEqual(slide.options.map((option) => ({ id: option.id, label: option.label })));
        }
        if (slide.kind === 'scale') expect(sent).toMatchObject({ min: slide.min, max: slide.max });
      });

      // What came back: the reading the table expects, or a decline naming the words at fault.
      if (refused) {
        expect(attempt).toEqual({ ok: false, reason: expect.stringContaining('declined: Cannot express') });
      } else {
        expect(attempt.ok).toBe(true);
        const conditions = attempt.ok ? attempt.conditions.map(({ id: _id, ...rule }) => rule) : [];
        expect(conditions).toEqual(entry.expect);
      }
    },
  );
});
