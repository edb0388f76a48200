import { z } from 'zod';
import { SlideId, VoterId } from './answers.js';
import { Branching, PollId, pollLimits } from './polls.js';
import { displayText } from './text.js';

/**
 * The largest deck `POST /polls/{id}/branch` drafts for: its slides, and the characters of its text
 * (the title, each slide's text, option labels, scale labels and statements). Every draft may send the
 * whole deck to a language model up to three times; a larger poll answers 422, and its skip logic is
 * written with `PATCH /polls/{id}` instead.
 */
export const branchDraftLimits = {
  slides: 50,
  textLength: 20_000,
} as const;

/** `POST /polls/{id}/branch`. */
export const BranchPollInput = z
  .strictObject({
    id: PollId,
    instruction: displayText()
      .trim()
      .min(1)
      .max(pollLimits.branchInstructionLength)
      .describe(
        'Skip logic in plain English, e.g. "If Q2 is below 3, skip to Q4; otherwise if Q2 is 5, end the poll".',
      ),
  })
  .meta({ id: 'BranchPollInput' });
export type BranchPollInput = z.input<typeof BranchPollInput>;

export const BranchDraftSource = z
  .enum(['openai', 'rules'])
  .describe('`openai`: the OpenAI provider drafted it; `rules`: the rule-based parser (no provider, or it failed).')
  .meta({ id: 'BranchDraftSource' });

/** What the drafter understood, beside the draft and never inside it: for a host to check before applying it. */
export const BranchDraftReport = z
  .object({
    rules: z
      .array(
        z.object({
          id: z.string().describe('The rule of `draftJson` this line is about.'),
          source: z.string().describe('The words of the instruction the rule was read from.'),
          reading: z
            .string()
            .describe(
              'The rule in the poll’s own words, each slide by its text and each option by its label: ' +
                '`If “Which plan are you on?” is “Free”, skip to “How satisfied are you with our support?”`.',
            ),
        }),
      )
      .describe('Each drafted rule, in order.'),
    ignored: z
      .array(
        z.object({
          text: z.string().describe('A clause of the instruction.'),
          why: z.string().describe('Why it adds no rule.'),
        }),
      )
      .describe(
        'Clauses that add no rule, such as "otherwise carry on as normal" (respondents go on to the next slide anyway).',
      ),
    corrected: z
      .array(z.object({ from: z.string(), to: z.string() }))
      .describe('Typing slips read as the word they miss by a letter ("belwo" as "below"). Rule-based drafts only.'),
  })
  .meta({ id: 'BranchDraftReport' });
export type BranchDraftReport = z.output<typeof BranchDraftReport>;

export const BranchDraft = z
  .object({
    data: z.object({
      draftJson: Branching.describe(
        'The drafted skip logic, checked against the poll. Apply it with `PATCH /polls/{id}`.',
      ),
      source: BranchDraftSource,
      report: BranchDraftReport,
    }),
  })
  .meta({ id: 'BranchDraft' });
export type BranchDraft = z.output<typeof BranchDraft>;

/** `GET /polls/{id}/next-slide`. */
export const NextSlideInput = z
  .strictObject({
    id: PollId,
    voterId: VoterId.describe('The respondent whose answers decide.'),
    afterSlideId: SlideId.describe('The slide the respondent is leaving, answered or not.'),
  })
  .meta({ id: 'NextSlideInput' });
export type NextSlideInput = z.input<typeof NextSlideInput>;

export const NextSlide = z
  .union([
    z.strictObject({ slideId: SlideId.describe('The slide to show next.') }),
    z.strictObject({ end: z.literal(true).describe('The poll ends here for this respondent.') }),
  ])
  .meta({ id: 'NextSlide' });
export type NextSlide = z.output<typeof NextSlide>;
