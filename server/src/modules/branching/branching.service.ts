import type {
  BranchCondition,
  BranchDraft,
  BranchPollInput,
  NextSlide,
  NextSlideInput,
  Poll,
  Slide,
} from '@pollkit/contracts';
import type { Kysely } from 'kysely';
import type { z } from 'zod';
import { ApiError } from '../../core/api-error.js';
import type { Database } from '../../db/schema.js';
import { getPoll, type PollsDeps } from '../polls/polls.service.js';
import { findVoterAnswer } from './branching.repository.js';
import { branchingProblemsError, checkBranching, matches, type Outcome } from './branching-rules.js';
import { InstructionError, parseInstruction } from './instruction-parser.js';
import type { DraftAttempt } from './openai-drafter.js';

/** The language-model drafter (modules/branching/openai-drafter.ts), present when a provider is configured. */
export type BranchDrafter = (
  poll: { title: string; slides: readonly Slide[] },
  instruction: string,
) => Promise<DraftAttempt>;

export interface BranchingDeps extends PollsDeps {
  /** The provider's drafter; undefined without a provider key, and the rule-based parser answers every draft. */
  branchDrafter: BranchDrafter | undefined;
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
  const poll = await getPoll(deps, workspaceId, input.id);
  const slides = poll.content.questions;
  const drafter = deps.branchDrafter;
  if (drafter) {
    const attempt = await drafter({ title: poll.title, slides }, input.instruction);
    if (attempt.ok) {
      log.info({ pollId: poll.id, source: 'openai' }, 'branching drafted by the provider');
      return { data: { draftJson: { conditions: attempt.conditions }, source: 'openai' } };
    }
    log.warn({ pollId: poll.id, reason: attempt.reason }, 'branching: the provider did not answer; the rules do');
  } else {
    log.info({ pollId: poll.id, source: 'rules' }, 'branching drafted by the rules (no provider configured)');
  }
  let conditions: BranchCondition[];
  try {
    conditions = parseInstruction(input.instruction, slides);
  } catch (error) {
    if (!(error instanceof InstructionError)) throw error;
    throw new ApiError('validation_failed', error.message, {
      fieldErrors: { instruction: [error.message] },
      formErrors: [],
      fragment: error.fragment,
      expected: error.expected,
    });
  }
  const problems = checkBranching(conditions, slides);
  if (problems.length > 0) {
    throw branchingProblemsError(
      'instruction',
      problems,
      'The instruction reads, but its skip logic does not fit the poll',
    );
  }
  return { data: { draftJson: { conditions }, source: 'rules' } };
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
  const rules = (poll.branching?.conditions ?? []).filter((rule) => rule.if.slideId === slide.id);
  if (rules.length > 0) {
    const outcome = await outcomeOf(deps.db, poll, slide, input.voterId);
    const rule = rules.find((candidate) => matches(candidate.if, outcome));
    if (rule) return rule.then.action === 'end' ? { end: true } : { slideId: rule.then.slideId };
  }
  const next = slides[index + 1];
  return next ? { slideId: next.id } : { end: true };
}

/** The respondent's answer to the slide as a condition sees it (branching-rules.ts `Outcome`). */
async function outcomeOf(db: Kysely<Database>, poll: Poll, slide: Slide, voterId: string): Promise<Outcome> {
  const value = await findVoterAnswer(db, poll.id, slide.id, voterId);
  if (!value) return null;
  switch (slide.kind) {
    case 'multiple_choice':
    case 'quiz':
      return value.optionIds ?? [];
    case 'scale':
      return slide.statements.length === 0 && value.scaleValue !== undefined ? value.scaleValue : 'answered';
    case 'ranking':
      return value.rankingOrder?.[0] ?? 'answered';
    default:
      return 'answered';
  }
}
