import {
  type BranchCondition,
  type BranchDraft,
  type BranchPollInput,
  branchDraftLimits,
  type NextSlide,
  type NextSlideInput,
  type Poll,
  type Slide,
} from '@pollkit/contracts';
import type { z } from 'zod';
import type { Config } from '../../config.js';
import { ApiError } from '../../core/api-error.js';
import type { RateLimitStore } from '../../infra/rate-limit.js';
import { findVoterAnswer } from '../answers/index.js';
import { branchingProblemsError, checkBranching, outcomeOfAnswer, slideAfter } from '../polls/branching-rules.js';
import { getPoll, type PollsDeps } from '../polls/polls.service.js';
import type { DraftAttempt } from './openai-drafter.js';
import { describeRule, InstructionError, type InstructionReading, readInstruction } from './parser/index.js';

/** The language-model drafter (modules/branching/openai-drafter.ts), present when a provider is configured. */
export type BranchDrafter = (
  poll: { title: string; slides: readonly Slide[] },
  instruction: string,
) => Promise<DraftAttempt>;

export interface BranchingDeps extends PollsDeps {
  /** The provider's drafter; undefined without a provider key, and the rule-based parser answers every draft. */
  branchDrafter: BranchDrafter | undefined;
  /** Where drafts are counted per workspace (shared between processes with Redis). */
  rateLimits: RateLimitStore;
  config: Pick<Config, 'BRANCH_RATE_LIMIT_PER_MINUTE'>;
}

type Log = { info(object: object, message: string): void; warn(object: object, message: string): void };

/**
 * `POST /polls/{id}/branch`: the provider's draft when there is a provider and its draft fits the
 * poll, else the rule-based parser's. Which answered, and why, is logged; nothing is stored.
 */
export async function draftBranching(
  deps: BranchingDeps,
  workspaceId: string,
  input: z.output<typeof BranchPollInput>,
  log: Log,
): Promise<BranchDraft> {
  await countDraft(deps, workspaceId);
  const poll = await getPoll(deps, workspaceId, input.id);
  const slides = poll.content.questions;
  assertDraftable(poll);
  const drafter = deps.branchDrafter;
  if (drafter) {
    const attempt = await drafter({ title: poll.title, slides }, input.instruction);
    if (attempt.ok) {
      log.info({ pollId: poll.id, source: 'openai' }, 'branching drafted by the provider');
      const conditions = clearOfStoredIds(attempt.conditions, poll);
      const report = {
        rules: reportedRules(conditions, attempt.sources, slides),
        ignored: attempt.ignored,
        corrected: [],
      };
      return { data: { draftJson: { conditions }, source: 'openai', report } };
    }
    log.warn({ pollId: poll.id, reason: attempt.reason }, 'branching: the provider did not answer; the rules do');
  } else {
    log.info({ pollId: poll.id, source: 'rules' }, 'branching drafted by the rules (no provider configured)');
  }
  let reading: InstructionReading;
  try {
    reading = readInstruction(input.instruction, slides);
  } catch (error) {
    if (!(error instanceof InstructionError)) throw error;
    throw new ApiError('validation_failed', error.message, {
      fieldErrors: { instruction: [error.message] },
      formErrors: [],
      reason: error.reason,
      fragment: error.fragment,
      expected: error.expected,
      ...(error.suggestion === undefined ? {} : { suggestion: error.suggestion }),
    });
  }
  const { conditions, sources } = reading;
  const problems = checkBranching(conditions, slides).map((problem) => ({
    ...problem,
    message: inUsersWords(problem.message, conditions, sources),
  }));
  if (problems.length > 0) {
    const error = branchingProblemsError(
      'instruction',
      problems,
      'The instruction reads, but its skip logic does not fit the poll',
    );
    // As a refusal of the parser's, the reason in one word: a rule that can never apply, …
    throw new ApiError('validation_failed', error.message, { ...error.details, reason: 'does_not_fit' });
  }
  const drafted = clearOfStoredIds(conditions, poll);
  const report = { ...reading.report, rules: reportedRules(drafted, sources, slides) };
  return { data: { draftJson: { conditions: drafted }, source: 'rules', report } };
}

/** Each drafted rule with the words it was read from and its reading in the poll's words (the ids as returned). */
function reportedRules(conditions: readonly BranchCondition[], sources: readonly string[], slides: readonly Slide[]) {
  return conditions.map((condition, index) => ({
    id: condition.id,
    source: sources[index] ?? '',
    reading: describeRule(condition, slides),
  }));
}

/** The draft numbers its rules `rule-1`, `rule-2`, … until the poll's stored rules take a number: past the highest of those. */
const DRAFT_RULE_ID = /^rule-(\d{1,9})$/;

/**
 * The draft's rules with ids the poll's stored rules do not have, so that the draft can be added to
 * them (`PATCH /polls/{id}` `{ branching }` refuses repeated ids): numbered on from the highest stored
 * `rule-<n>`, skipping any id taken. Without stored rules, `rule-1`, `rule-2`, … as drafted.
 */
function clearOfStoredIds(conditions: BranchCondition[], poll: Poll): BranchCondition[] {
  const taken = new Set((poll.branching?.conditions ?? []).map((rule) => rule.id));
  if (taken.size === 0) return conditions;
  let n = 0;
  for (const id of taken) n = Math.max(n, Number(DRAFT_RULE_ID.exec(id)?.[1] ?? 0));
  return conditions.map((rule) => {
    do n++;
    while (taken.has(`rule-${n}`));
    return { ...rule, id: `rule-${n}` };
  });
}

/**
 * A problem with a drafted rule, said with the user's words: the rule ids the checker names
 * ("Rule 'rule-2' can never apply … caught first by 'rule-1'") become the clauses they were read
 * from ("'if Q2 is 4 or more, end' can never apply … caught first by 'if Q2 is above 3, skip to Q5'").
 */
function inUsersWords(message: string, conditions: readonly BranchCondition[], sources: readonly string[]): string {
  return message.replace(/(Rule )?'(rule-\d+)'/g, (whole, _rule: string | undefined, id: string) => {
    const source = sources[conditions.findIndex((condition) => condition.id === id)];
    return source ? `"${source}"` : whole;
  });
}

/**
 * A draft may cost three calls to the provider with the whole deck, so drafts are counted per
 * workspace — however many keys or OAuth clients it spreads them over — on top of each credential's
 * general limit (api/rate-limit.ts, which counts per credential). Every call counts, refused ones
 * included, before any work is done.
 */
async function countDraft(deps: BranchingDeps, workspaceId: string): Promise<void> {
  const limit = deps.config.BRANCH_RATE_LIMIT_PER_MINUTE;
  const hit = await deps.rateLimits.hit(`branch:ws:${workspaceId}`);
  if (hit.count > limit) {
    throw new ApiError(
      'rate_limited',
      `Skip logic can be drafted ${limit} times a minute per workspace; this workspace has used them`,
      { limit, resetAt: new Date(hit.resetAt).toISOString() },
    );
  }
}

/** The characters of a deck's text, as a drafter sends it: title, slide texts, labels, statements. */
function deckTextLength(poll: Poll): number {
  let length = poll.title.length;
  for (const slide of poll.content.questions) {
    length += slide.text.length;
    if ('options' in slide) for (const option of slide.options) length += option.label.length;
    if (slide.kind === 'scale') {
      length += (slide.minLabel?.length ?? 0) + (slide.maxLabel?.length ?? 0);
      for (const statement of slide.statements) length += statement.text.length;
    }
  }
  return length;
}

/**
 * A deck past `branchDraftLimits` is refused before anything is drafted (the provider would be sent
 * all of it, up to three times); the rules answer the same way, so the route behaves alike whether
 * or not a provider is configured.
 */
function assertDraftable(poll: Poll): void {
  const slides = poll.content.questions.length;
  const textLength = deckTextLength(poll);
  const { slides: maxSlides, textLength: maxTextLength } = branchDraftLimits;
  if (slides <= maxSlides && textLength <= maxTextLength) return;
  const message =
    `The poll is too large to draft skip logic for: ${slides} slides (at most ${maxSlides}) and ` +
    `${textLength} characters of text (at most ${maxTextLength}). Write its branching with PATCH /polls/{id} instead`;
  throw new ApiError('validation_failed', message, {
    fieldErrors: {},
    formErrors: [message],
    slides,
    maxSlides,
    textLength,
    maxTextLength,
  });
}

/**
 * `GET /polls/{id}/next-slide`: the first of the slide's rules that the respondent's stored answer
 * (or its absence) matches decides; none matching, the next slide, or the end after the last.
 */
export async function nextSlide(
  deps: BranchingDeps,
  workspaceId: string,
  input: z.output<typeof NextSlideInput>,
): Promise<NextSlide> {
  const poll = await getPoll(deps, workspaceId, input.id);
  const slides = poll.content.questions;
  const index = slides.findIndex((slide) => slide.id === input.afterSlideId);
  if (index < 0) throw ApiError.notFound(`Slide '${input.afterSlideId}' of this poll`);
  const slide = slides[index] as Slide;
  const hasRules = (poll.branching?.conditions ?? []).some((rule) => rule.if.slideId === slide.id);
  const outcome = hasRules
    ? outcomeOfAnswer(slide, await findVoterAnswer(deps.db, poll.id, slide.id, input.voterId))
    : null;
  const next = slideAfter(poll, index, outcome);
  return next === 'end' ? { end: true } : { slideId: (slides[next] as Slide).id };
}
