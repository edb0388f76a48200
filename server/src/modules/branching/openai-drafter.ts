import { BranchCondition, Branching, type Slide } from '@pollkit/contracts';
import type OpenAI from 'openai';
import { z } from 'zod';
import type { Config } from '../../config.js';
import { checkBranching } from '../polls/branching-rules.js';
import {
  ANSWER_VERBS,
  BLANK_WORDS,
  CHOOSING,
  FIRST_PLACE,
  NEGATIONS,
  NO_OP_PHRASES,
  RATING_ABOVE,
  RATING_AT_LEAST,
  RATING_AT_MOST,
  RATING_BELOW,
} from './parser/lexicon.js';

/**
 * Skip logic drafted by a language model from a plain-English instruction, through the `openai`
 * client's Chat Completions with structured output. Every way this can go wrong — no answer, a
 * refusal, an HTTP error, the time budget spent, output that is not the format or does not fit the
 * poll — comes back as `{ ok: false, reason }`, never as an exception: the caller then asks the
 * rule-based parser (parser/) instead.
 */

export interface OpenAiSettings {
  apiKey: string;
  /** A proxy or a compatible provider; the client's default (api.openai.com) when absent. */
  baseURL?: string;
  model: string;
  /** The budget of the whole draft: every attempt and the waits between retries. */
  timeoutMs: number;
}

/** A drafted rule's source words, and the clauses the model left out as saying nothing, for the draft's report. */
interface DraftNotes {
  sources: string[];
  ignored: { text: string; why: string }[];
}

export type DraftAttempt = ({ ok: true; conditions: BranchCondition[] } & DraftNotes) | { ok: false; reason: string };

/** The settings from the configuration, or undefined when no key is set (the parser alone answers). */
export function openAiSettings(
  config: Pick<Config, 'OPENAI_API_KEY' | 'OPENAI_BASE_URL' | 'OPENAI_MODEL' | 'OPENAI_TIMEOUT_MS'>,
): OpenAiSettings | undefined {
  if (!config.OPENAI_API_KEY) return undefined;
  return {
    apiKey: config.OPENAI_API_KEY,
    ...(config.OPENAI_BASE_URL ? { baseURL: config.OPENAI_BASE_URL } : {}),
    model: config.OPENAI_MODEL,
    timeoutMs: config.OPENAI_TIMEOUT_MS,
  };
}

/** Attempts after the first on a 408, 409, 429, 5xx or lost connection (the client's own retries). */
export const MAX_RETRIES = 2;

/** The contract's operators: the model is offered exactly what a stored condition may hold. */
const OPERATORS = BranchCondition.shape.if.shape.operator.options;

/**
 * What the model writes. OpenAI's strict mode wants every property required and no others, so an
 * absent `value` is `null` here, and the shape is flat enough for its JSON Schema subset (`anyOf`
 * and `enum`, no `oneOf` or `const`). Rule ids are not asked for: they are numbered here, as the
 * parser numbers them, so two rules can never share one. `problem` lets the model say that the
 * instruction cannot be written in this format rather than invent rules that approximate it.
 */
const WireOutput = z.strictObject({
  conditions: z.array(
    z.strictObject({
      source: z.string().describe('the words of the instruction this condition was read from'),
      if: z.strictObject({
        slideId: z.string(),
        operator: z.enum(OPERATORS),
        value: z.union([z.string(), z.number(), z.array(z.string()), z.null()]),
      }),
      // biome-ignore lint/suspicious/noThenProperty: `then` is the field name of the rule's action.
      then: z.union([
        z.strictObject({ action: z.enum(['skip_to']), slideId: z.string() }),
        z.strictObject({ action: z.enum(['end']) }),
      ]),
    }),
  ),
  problem: z
    .string()
    .nullable()
    .describe('null when the conditions express the instruction; otherwise why it cannot be expressed'),
  ignored: z
    .array(z.strictObject({ text: z.string(), why: z.string() }))
    .describe('clauses of the instruction that add no rule (greetings, "otherwise carry on as normal"), and why'),
});
type WireOutput = z.output<typeof WireOutput>;

/**
 * zod's own converter rather than openai's `zodResponseFormat`: the wire schema above is written to
 * be strict-ready, so no rewriting is needed, and the helper's zod 4 path has changed within openai
 * 6.x (the range we accept). `$schema` is dropped: the API takes the schema body only.
 */
const { $schema: _dialect, ...wireJsonSchema } = z.toJSONSchema(WireOutput, { target: 'draft-7' });
const responseFormat = {
  type: 'json_schema',
  json_schema: { name: 'branching', strict: true, schema: wireJsonSchema },
} as const;

/** A few of a lexicon list's phrases, quoted, for the model: "below", "under", "less than". */
function written(phrases: readonly string[], count = 8): string {
  return phrases
    .filter((phrase) => !/^[<>=!]/.test(phrase))
    .slice(0, count)
    .map((phrase) => `"${phrase}"`)
    .join(', ');
}

/**
 * What each operator means, as the model is told: the contract's operator list with its meaning
 * and the words people write for it, taken from the rule-based parser's own lexicon
 * (parser/lexicon.ts), so both drafters are told the same words (server/test/api/openai-table.test.ts
 * checks every operator is here, and that every phrasing of the parser's table reaches the model).
 */
export const OPERATOR_MEANINGS: Record<(typeof OPERATORS)[number], string> = {
  equals: `that option chosen (on a ranking: ranked first), or that rating given. Also written "is", "=", ${written(CHOOSING, 12)}, "went with", "they said X to", "has X ranked first", ${written(FIRST_PLACE, 6)}`,
  not_equals: `that option not chosen (ranking: not ranked first), or any rating but that one. Also written "is not", "isn't", "!=", ${written(NEGATIONS, 9)}, "did not choose"`,
  includes:
    'any of the listed option ids chosen (a list, even of one). Also written "includes", "contains", "has selected", "any of A, B", "A or B", "A/B"',
  greater_than: `a rating above the value. Also written ${written(RATING_ABOVE)}, ">"`,
  less_than: `a rating below the value. Also written ${written(RATING_BELOW)}, "<"`,
  at_least: `a rating of the value or more. Also written ${written(RATING_AT_LEAST)}, "+", ">="`,
  at_most: `a rating of the value or less. Also written ${written(RATING_AT_MOST)}, "<="`,
  answered: `any answer given (value null). Also written ${written(ANSWER_VERBS, 10)}, "has an answer", "wrote something in"`,
  not_answered: `no answer given (value null). Also written ${written(BLANK_WORDS, 12)}, "did not answer", "left blank", "nothing is ticked"`,
};

const SYSTEM_PROMPT = `You write skip logic for a poll from an instruction in plain language.

Output: { "conditions": [...], "problem": null }. Each condition is
{ "if": { "slideId", "operator", "value" }, "then": { "action": "skip_to", "slideId" } or { "action": "end" } }.
After a respondent leaves slide if.slideId (answered or not), that slide's conditions are tried in the order
you list them; the FIRST that matches decides: skip to then.slideId, or end the poll. When none matches,
the respondent goes on to the next slide. So write the specific cases first, and "otherwise" last.

Operators, what each means, and how people write it:
${Object.entries(OPERATOR_MEANINGS)
  .map(([operator, meaning]) => `- "${operator}": ${meaning}.`)
  .join('\n')}

Which operators fit which slide kind ("value" is null unless stated):
- multiple_choice, quiz: "equals" / "not_equals" one option id; "includes" a list of option ids.
- scale without statements: "equals", "not_equals", "greater_than", "less_than", "at_least", "at_most"
  a whole-number rating between the slide's min and max. A run of ratings that reaches an end of the scale
  ("1 or 2" on 1-5, "9-10" on 0-10) is one at_most / at_least.
- ranking: "equals" / "not_equals" one option id (ranked first / not ranked first).
- every kind except content: "answered", "not_answered" (value null).
- content slides take no answers: no condition may test them.

Reading the instruction (people write it as they talk: with greetings, emoji, shorthand such as
"nps<=6 -> why", bullets, and sentences that start with who: "Anyone who picks Canberra should skip…"):
- Options are named by their label (any letter case, quoted or not, several words), by their id, or after
  the word "option"; write their ids. A word that two labels share is ambiguous: say so in "problem".
- "the Nth question" is the Nth slide that asks something ("question" in the poll below); "slide N",
  "section N", "page N" count every slide ("slide" below); "QN" and "question N" may mean either (see below).
  A slide may also be named by its id, its text, words only it has ("the overall rating"), a paraphrase of its
  text ("the will-you-come-back one") or a label of one of its options ("the Washington question").
- "End the survey/form/quiz", "submit", "go to the end" are { "action": "end" }.
- "Otherwise X" after rules on a slide is an "answered" and a "not_answered" condition on that slide, both to X.
- A band in the middle of a scale ("7 or 8", "between 4 and 6") is one "equals" condition per rating.
- On a quiz, "got it right" is the correct option(s); "got it wrong" is "includes" the other options.
- Net Promoter words on a 0-10 scale: detractors 0-6, passives 7-8, promoters 9-10.
- "Skip X" without a target goes to the slide after X.
- Clauses that add no rule — greetings, thanks, reasons, ${written(NO_OP_PHRASES, 6)} — go in "ignored" with why.
- Each condition's "source" is the words of the instruction it was read from.
- When the poll has content slides before a question, "QN" may count questions or every slide: if both readings
  fit and differ, do not guess; say both in "problem".

Rules:
- Use only the slide ids and option ids of the poll given (never labels or numbers as ids).
- Jumps go forward only: then.slideId must come after if.slideId in the poll.
- Every condition must be able to apply: no duplicates, none fully caught by an earlier one.
- If the instruction cannot be expressed with these operators, return no conditions and say why in "problem",
  naming the words at fault: two conditions joined by "and", an "or" across two different slides, two
  actions, a rating outside the scale, a jump backwards, a condition on a content slide, what an open answer
  says, one statement of a rating grid, quiz points or time, an action other than a jump or the end (an email,
  a message), or anything not in the poll.`;

/** The deck as the model needs it: ids, kinds, texts, option ids and labels, ranges, statements. */
function describeDeck(poll: { title: string; slides: readonly Slide[] }): string {
  let question = 0;
  const slides = poll.slides.map((slide, index) => {
    const entry: Record<string, unknown> = { slide: index + 1 };
    if (slide.kind !== 'content') entry.question = ++question;
    Object.assign(entry, { id: slide.id, kind: slide.kind, text: slide.text });
    if (slide.kind === 'multiple_choice') entry.answers = slide.type === 'multiple' ? 'several' : 'one';
    if (slide.kind === 'quiz') entry.answers = 'several';
    if ('options' in slide) entry.options = slide.options.map((option) => ({ id: option.id, label: option.label }));
    if (slide.kind === 'scale') {
      Object.assign(entry, { min: slide.min, max: slide.max });
      if (slide.statements.length > 0) entry.statements = slide.statements.map((statement) => statement.text);
    }
    return entry;
  });
  return JSON.stringify({ title: poll.title, slides });
}

function toConditions(output: WireOutput): BranchCondition[] {
  return output.conditions.map((condition, index) => ({
    id: `rule-${index + 1}`,
    if:
      condition.if.value === null
        ? { slideId: condition.if.slideId, operator: condition.if.operator }
        : { slideId: condition.if.slideId, operator: condition.if.operator, value: condition.if.value },
    // biome-ignore lint/suspicious/noThenProperty: `then` is the field name of the rule's action.
    then: condition.then.action === 'end' ? { action: 'end' } : { action: 'skip_to', slideId: condition.then.slideId },
  }));
}

function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid';
  // The path and the message may quote keys the model made up: provider text.
  return clipped(issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : issue.message);
}

/** The most characters of provider text (a refusal, the model's `problem`, an error) a reason quotes. */
export const REASON_TEXT_LIMIT = 500;

/**
 * Provider text as a reason quotes it: whole up to REASON_TEXT_LIMIT characters, else its start and
 * its length. A reason is logged on every fallback, and the model's free text has no bound of its own
 * (a refusal or a `problem` can run to the output's token limit) nor any reason to fill the log.
 */
export function clipped(text: string): string {
  if (text.length <= REASON_TEXT_LIMIT) return text;
  // Not between the halves of a surrogate pair.
  const end = /[\ud800-\udbff]/.test(text.charAt(REASON_TEXT_LIMIT - 1)) ? REASON_TEXT_LIMIT - 1 : REASON_TEXT_LIMIT;
  return `${text.slice(0, end)}… (${text.length} characters)`;
}

/** Seconds or milliseconds the provider asked us to wait before retrying, as the client reads them. */
function retryAfterMs(headers: Headers): number | undefined {
  const ms = Number.parseFloat(headers.get('retry-after-ms') ?? '');
  if (!Number.isNaN(ms) && ms > 0) return ms;
  const header = headers.get('retry-after');
  if (!header) return undefined;
  const seconds = Number.parseFloat(header);
  return Number.isNaN(seconds) ? Date.parse(header) - Date.now() : seconds * 1000;
}

/**
 * The client honours any `retry-after` (openai 6.x no longer caps it) with a sleep that the abort
 * signal does not cut short. An error response that asks for a wait beyond the budget is marked not
 * retryable (`x-should-retry: false`, which the client obeys): the draft gives up at once with the
 * real reason instead of sleeping into a timeout.
 */
function fetchWithin(deadline: number): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    const wait = response.ok ? undefined : retryAfterMs(response.headers);
    if (wait === undefined || Date.now() + wait < deadline) return response;
    const headers = new Headers(response.headers);
    headers.set('x-should-retry', 'false');
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
  };
}

/** `promise`, or a rejection as soon as `signal` aborts, whichever comes first. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    if (signal.aborted) reject(signal.reason);
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/**
 * The `openai` client, imported on the first draft rather than at every start (it takes about a
 * tenth of a second to load, and most servers have no key: server/bench/RESULTS.md, "Issue 25").
 */
let openAiClient: Promise<typeof OpenAI> | undefined;
function loadOpenAi(): Promise<typeof OpenAI> {
  openAiClient ??= import('openai').then((module) => module.default);
  return openAiClient;
}

function failureReason(error: unknown, OpenAIClient: typeof OpenAI, timeoutMs: number, signal: AbortSignal): string {
  if (signal.aborted || error instanceof OpenAIClient.APIConnectionTimeoutError)
    return `timed out after ${timeoutMs} ms`;
  if (error instanceof OpenAIClient.APIConnectionError) {
    const cause = (error.cause as { cause?: { code?: unknown } } | undefined)?.cause?.code;
    return `could not reach the provider${typeof cause === 'string' ? ` (${cause})` : ''}`;
  }
  if (error instanceof OpenAIClient.APIError && error.status !== undefined) {
    if (error.status === 429) return 'rate limited (429)';
    // The code, never the message: OpenAI's 401 message quotes part of the key.
    return `provider error ${error.status}${typeof error.code === 'string' ? ` (${clipped(error.code)})` : ''}`;
  }
  return `failed: ${clipped(error instanceof Error ? error.message : String(error))}`;
}

export async function draftWithOpenAI(
  settings: OpenAiSettings,
  poll: { title: string; slides: readonly Slide[] },
  instruction: string,
): Promise<DraftAttempt> {
  const { timeoutMs } = settings;
  const OpenAIClient = await loadOpenAi();
  // One signal for the whole call: it cancels the attempt in flight, stops the client from starting
  // another, and (through untilAborted) returns even while the client sleeps between retries.
  const signal = AbortSignal.timeout(timeoutMs);
  let completion: OpenAI.ChatCompletion;
  try {
    const client = new OpenAIClient({
      apiKey: settings.apiKey,
      ...(settings.baseURL ? { baseURL: settings.baseURL } : {}),
      maxRetries: MAX_RETRIES,
      timeout: timeoutMs,
      fetch: fetchWithin(Date.now() + timeoutMs),
    });
    const request = client.chat.completions.create(
      {
        model: settings.model,
        messages: [
          { role: 'system', content: SYSTEM_PROMPT },
          { role: 'user', content: `Poll:\n${describeDeck(poll)}` },
          { role: 'user', content: `Instruction:\n${instruction}` },
        ],
        response_format: responseFormat,
      },
      { signal },
    );
    completion = await untilAborted(request, signal);
  } catch (error) {
    return { ok: false, reason: failureReason(error, OpenAIClient, timeoutMs, signal) };
  }

  const choice = completion.choices?.[0];
  if (!choice) return { ok: false, reason: 'no output: the response has no choices' };
  const { message } = choice;
  if (message?.refusal) return { ok: false, reason: `refused: ${clipped(message.refusal)}` };
  if (choice.finish_reason === 'content_filter') return { ok: false, reason: 'refused: content filter' };
  if (!message?.content) return { ok: false, reason: `no output (finish_reason ${choice.finish_reason})` };

  let json: unknown;
  try {
    json = JSON.parse(message.content);
  } catch {
    return {
      ok: false,
      reason:
        choice.finish_reason === 'length'
          ? 'malformed output: cut off at the length limit'
          : 'malformed output: not JSON',
    };
  }
  const wire = WireOutput.safeParse(json);
  if (!wire.success) return { ok: false, reason: `malformed output: ${firstIssue(wire.error)}` };
  if (wire.data.problem !== null && wire.data.problem.trim() !== '') {
    return { ok: false, reason: `declined: ${clipped(wire.data.problem)}` };
  }
  if (wire.data.conditions.length === 0) return { ok: false, reason: 'no rules drafted' };

  const branching = Branching.safeParse({ conditions: toConditions(wire.data) });
  if (!branching.success) return { ok: false, reason: `malformed output: ${firstIssue(branching.error)}` };
  const problems = checkBranching(branching.data.conditions, poll.slides);
  // The message quotes the slide and option ids the model wrote.
  if (problems.length > 0)
    return { ok: false, reason: `does not fit the poll: ${clipped(problems[0]?.message ?? '')}` };
  return {
    ok: true,
    conditions: branching.data.conditions,
    sources: wire.data.conditions.map((condition) => clipped(condition.source)),
    ignored: wire.data.ignored.map((clause) => ({ text: clipped(clause.text), why: clipped(clause.why) })),
  };
}
