import type { BranchCondition, Slide } from '@pollkit/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { draftWithOpenAI, type OpenAiSettings } from '../../src/modules/branching/openai-drafter.js';
import { InstructionError, readInstruction } from '../../src/modules/branching/parser/index.js';
import { checkBranching } from '../../src/modules/polls/branching-rules.js';
import { blindDecks, blindSet, scoreBlindEntry, scoreBlindSet } from '../fixtures/branching/blind-score.js';
import { completion, type FakeOpenAI, output, startFakeOpenAI } from '../support/fake-openai.js';

/**
 * Skip logic as people write it, blind (fixtures/branching/blind/, README.md there): the development
 * set and five holdouts, each written by people who had not seen the parser, each holdout scored
 * once while it was unseen (the figures are in the README and docs/branching.md) and developed
 * against afterwards. What a writer meant is compared by where each respondent goes, not by the
 * rules' spelling (blind-score.ts). These tests keep what was reached: no set is ever misread.
 */

const dev = blindSet('dev');

/** Each set, with the share of its expressible instructions understood and of its impossible ones refused rightly. */
const FLOORS = [
  ['dev', 0.95, 0.85],
  ['holdout-1', 0.9, 0.9],
  ['holdout-2', 0.8, 0.85],
  ['holdout-3', 0.75, 0.85],
  ['holdout-4', 0.7, 0.75],
  ['holdout-5', 0.55, 0.75],
] as const;

describe('the blind development set', () => {
  it('has at least 150 instructions across five decks with the holdouts, from many kinds of writer', () => {
    const all = FLOORS.flatMap(([set]) => blindSet(set));
    expect(all.length).toBeGreaterThanOrEqual(150);
    expect(new Set(all.map((entry) => entry.deck)).size).toBe(5);
    expect(new Set(all.map((entry) => entry.writer)).size).toBeGreaterThanOrEqual(6);
    // Every writer's meaning fits its deck: the rules they wrote are skip logic the poll accepts.
    for (const entry of all) expect(Object.keys(blindDecks)).toContain(entry.deck);
  });

  it.each(FLOORS)(
    '%s is understood without a single misreading, and refused for the real reason',
    (set, understood, right) => {
      const score = scoreBlindSet(blindSet(set));
      const failures = score.results
        .filter((result) => result.verdict !== 'understood' && result.verdict !== 'refused_right')
        .map((result) => `${result.entry.id} ${result.verdict}: ${result.answer}`);
      expect(score.expressible.misread, failures.join('\n')).toBe(0);
      expect(score.impossible.misread, failures.join('\n')).toBe(0);
      expect(score.expressible.understood / score.expressible.total, failures.join('\n')).toBeGreaterThanOrEqual(
        understood,
      );
      expect(score.impossible.right / score.impossible.total, failures.join('\n')).toBeGreaterThanOrEqual(right);
    },
  );

  it.each(dev.filter((entry) => 'rules' in entry.expect).map((entry) => [entry.id, entry] as const))(
    '%s: the report names each rule in the poll’s words',
    (_id, entry) => {
      const result = scoreBlindEntry(entry);
      if (result.verdict !== 'understood') return expect(result.verdict).toBe('refused');
      const reading = readInstruction(entry.instruction, blindDecks[entry.deck] as Slide[]);
      expect(reading.report.rules).toHaveLength(reading.conditions.length);
      for (const rule of reading.report.rules) expect(rule.reading).toMatch(/^If “.+”/);
    },
  );
});

/** What a reading of `instruction` on `deck` says, as `slide op value -> target` lines, or the refusal's reason. */
function readingOf(deck: string, instruction: string): string {
  try {
    return readInstruction(instruction, blindDecks[deck] as Slide[])
      .conditions.map(
        ({ if: test, then }) =>
          `${test.slideId} ${test.operator}${test.value === undefined ? '' : ` ${JSON.stringify(test.value)}`} -> ${then.action === 'end' ? '@end' : then.slideId}`,
      )
      .join('; ');
  } catch (error) {
    if (!(error instanceof InstructionError)) throw error;
    return `refused (${error.reason})`;
  }
}

describe('reasons, names left out, look-alike words, formal and config-file writing', () => {
  it.each([
    // A reason before or after the rule is set aside and reported, its words never read as the condition.
    [
      'onboarding',
      "Because only Engineering receives equipment through this form, people joining Sales should go straight to 'Your first week'.",
      'dept equals "sales" -> week',
    ],
    [
      'onboarding',
      "Secondly, because the buddy scheme is for Engineering, people joining Sales should go straight to 'Your first week'.",
      'dept equals "sales" -> week',
    ],
    [
      'product',
      'Free-plan customers go straight to the support question, since they have not used the API or the dashboards.',
      'plan equals "free" -> support',
    ],
    // The reason's words are never the condition: "them" has nothing left to point at.
    ['product', 'Because detractors need a follow-up, send them to the reason question.', 'refused (unreadable)'],
    // The same words, said as the rule: read.
    ['product', 'Detractors need a follow-up, so send them to the reason question.', 'nps at_most 6 -> why'],
    // A word naming a slide the rule neither tests, skips nor lands on: refused, not dropped.
    ['product', 'Pro users who use the Public API go to the support question', 'refused (unreadable)'],
    [
      'event',
      'colleagues who chose London and rated the event 1 go to the improve question',
      'refused (across_slides)',
    ],
    // Words of the slides skipped on the way are the rule's own.
    [
      'onboarding',
      'Engineering hires: route them past the laptop and extras questions directly to the first-week content slide.',
      'dept equals "eng" -> week',
    ],
    // "participants" is not "Partially"; "No" is the one slide before the target with that answer.
    ['support', 'participants answering No route directly to slide 7.', 'resolved equals "no" -> contact'],
    // "No" before the end is on two slides: which one is not guessed.
    ['support', 'participants answering No end the survey.', 'refused (unreadable)'],
    // A list of answers with a member that is none: refused, not read as the rest of the list.
    [
      'support',
      'Those who contacted us by telephone, or by way of the community forum, should go to the how easy question.',
      'refused (no_such_option)',
    ],
    // A slide skipped on the way, named by who the rule is about: a second condition.
    [
      'support',
      'if someone rates us low on support AND said their issue was not resolved, send them to the contact question',
      'refused (across_slides)',
    ],
    // Ratings in words; "Should they…" as "if"; a verb that turns the offer down is its "No".
    [
      'event',
      'Those who gave the event overall a one or a two ought to be taken straight to the improve question.',
      'overall at_most 2 -> improve',
    ],
    [
      'onboarding',
      'Should they decline a buddy, please take them to the dietary question.',
      'buddy equals "no" -> dietary',
    ],
    ['onboarding', 'Should they snub a buddy, please take them to the dietary question.', 'refused (unreadable)'],
    // One statement of a grid rated in words is a rating of that statement, not "answered".
    [
      'support',
      'Those who rate the agent poorly for friendliness should be taken to the contact question.',
      'refused (per_statement)',
    ],
    // Sayings of the end, and "taken on to".
    [
      'quiz',
      'And should anyone leave the capital of the United States question unanswered, please bring the quiz to a close for them.',
      'qus not_answered -> @end',
    ],
    // Config-file shorthand: comments, goto, when/else, sets, ranges, null.
    [
      'onboarding',
      '# dept\n- when dept in (sales, ops): goto extras   # laptops pre-provisioned',
      'dept includes ["sales","ops"] -> extras',
    ],
    [
      'support',
      'csat <= 3 -> goto contact\ncsat == null -> goto comments',
      'csat at_most 3 -> contact; csat not_answered -> comments',
    ],
    [
      'quiz',
      'confidence in 4..6 -> explain',
      'confidence equals 4 -> explain; confidence equals 5 -> explain; confidence equals 6 -> explain',
    ],
    ['product', 'plan ∈ {Team, Enterprise} → #4 priorities', 'plan includes ["team","ent"] -> priorities'],
    // From the docs trial: "and" between options where several can be ticked; "skip" past unnamed slides.
    [
      'support',
      'If they chose Phone and Email on the how did you contact us question, skip to the how easy question',
      'refused (all_of)',
    ],
    [
      'support',
      'If they chose Phone or Email on the how did you contact us question, skip to the how easy question',
      'channel includes ["phone","email"] -> effort',
    ],
    ['event', 'If they rate the event overall 4 or 5, skip the grid', 'refused (ambiguous)'],
    [
      'event',
      'If they rate the event overall 4 or 5, skip the sessions question and the grid',
      'overall at_least 4 -> improve',
    ],
    ['product', 'email the sales team', 'refused (unsupported_action)'],
    ['onboarding', 'dept: other -> end', 'dept equals "other" -> @end'],
  ])('%s: %s', (deck, instruction, expected) => {
    expect(readingOf(deck, instruction)).toBe(expected);
  });

  it('reads a label with an en dash typed with a hyphen, or quoted as written', () => {
    const deck = [
      {
        id: 'size',
        kind: 'multiple_choice',
        type: 'single',
        text: 'How big is your support team?',
        options: [
          { id: 'small', label: '2–10 people' },
          { id: 'mid', label: '11–50 people' },
        ],
      },
      { id: 'channels', kind: 'open_ended', text: 'Which channels do you use?', maxLength: 500, render: 'list' },
      { id: 'tour', kind: 'open_ended', text: 'Anything about the tour?', maxLength: 500, render: 'list' },
    ] as Slide[];
    for (const instruction of [
      'people who pick 11-50 people go to the tour question',
      "people who pick '11–50 people' go to the tour question",
    ]) {
      expect(readInstruction(instruction, deck).conditions).toEqual([
        {
          id: 'rule-1',
          if: { slideId: 'size', operator: 'equals', value: 'mid' },
          // biome-ignore lint/suspicious/noThenProperty: `then` is the field name of the rule's action.
          then: { action: 'skip_to', slideId: 'tour' },
        },
      ]);
    }
  });

  it('reports the reason it set aside', () => {
    const reading = readInstruction(
      "Because only Engineering receives equipment, people joining Sales should go straight to 'Your first week'.",
      blindDecks.onboarding as Slide[],
    );
    expect(reading.report.ignored).toEqual([
      {
        text: 'Because only Engineering receives equipment',
        why: 'it gives the reason for a rule, not a rule: its words are not read as a condition',
      },
    ]);
  });
});

describe('no input makes the parser fail other than by refusing', () => {
  const deck = blindDecks.product as Slide[];
  const inputs = [
    '',
    '🙂🙂🙂',
    '->',
    ': end',
    'otherwise otherwise otherwise',
    '(((((((((',
    'if if if if if',
    'Q99999999999999999999 -> Q1',
    `${'skip '.repeat(300)}`,
    `If ${'nps 1 or '.repeat(150)}2 -> why`,
    '"unterminated quote -> end',
    'nps <= -6 -> why',
    'slide 0 skipped -> end',
    '#0 = x',
    'anyone who either of those not not not -> end',
    'ʇxǝʇ uʍop ǝpısdn -> end',
  ];
  it.each(inputs)('%j', (instruction) => {
    try {
      const reading = readInstruction(instruction, deck);
      expect(Array.isArray(reading.conditions)).toBe(true);
    } catch (error) {
      expect(error).toBeInstanceOf(InstructionError);
    }
  });
});

describe('the OpenAI path meets the same set', () => {
  let fake: FakeOpenAI;
  const settings = (): OpenAiSettings => ({
    apiKey: 'sk-test-0123456789abcdef',
    baseURL: fake.baseURL,
    model: 'gpt-4o-mini',
    timeoutMs: 10_000,
  });
  beforeAll(async () => {
    fake = await startFakeOpenAI();
  });
  afterAll(() => fake.close());

  it.each(dev.map((entry) => [entry.id, entry] as const))('%s', async (_id, entry) => {
    fake.received = [];
    const slides = blindDecks[entry.deck] as Slide[];
    const meant = 'rules' in entry.expect ? entry.expect.rules : [];
    // The stand-in model answers what the writer meant, and lists a greeting it left out.
    fake.reply = () =>
      completion(
        'rules' in entry.expect
          ? output(
              meant.map((rule) => ({
                source: entry.instruction.slice(0, 40),
                if: { slideId: rule.slide, operator: rule.op, value: rule.value ?? null },
                // biome-ignore lint/suspicious/noThenProperty: `then` is the field name of the rule's action.
                then: rule.to === '@end' ? { action: 'end' } : { action: 'skip_to', slideId: rule.to },
              })),
              null,
              [{ text: 'thanks!', why: 'a greeting' }],
            )
          : output([], `cannot be expressed (${entry.expect.refuse})`),
      );
    const attempt = await draftWithOpenAI(settings(), { title: entry.deck, slides }, entry.instruction);
    // The request carries the instruction as written and every slide of the deck.
    const body = fake.received[0]!.body;
    expect(body.messages.at(-1)).toEqual({ role: 'user', content: `Instruction:\n${entry.instruction}` });
    const sent = body.messages.map((message: { content: string }) => message.content).join('\n');
    for (const slide of slides) expect(sent).toContain(`"id":"${slide.id}"`);
    if (!('rules' in entry.expect)) return expect(attempt.ok).toBe(false);
    const expected: Omit<BranchCondition, 'id'>[] = meant.map((rule) => ({
      if:
        rule.value === undefined
          ? { slideId: rule.slide, operator: rule.op }
          : { slideId: rule.slide, operator: rule.op, value: rule.value },
      // biome-ignore lint/suspicious/noThenProperty: `then` is the field name of the rule's action.
      then: rule.to === '@end' ? { action: 'end' } : { action: 'skip_to', slideId: rule.to },
    }));
    // A writer's rules that could never all apply (b-028 repeats a blank test) are declined, as any such draft.
    const fits =
      checkBranching(
        expected.map((rule, index) => ({ id: `rule-${index + 1}`, ...rule })),
        slides,
      ).length === 0;
    expect(attempt.ok, attempt.ok ? '' : attempt.reason).toBe(fits);
    if (!attempt.ok) return;
    expect(attempt.conditions.map(({ id: _ruleId, ...rule }) => rule)).toEqual(expected);
    expect(attempt.ignored).toEqual([{ text: 'thanks!', why: 'a greeting' }]);
  });
});
