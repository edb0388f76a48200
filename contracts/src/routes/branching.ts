import { defineRoute } from '../route.js';
import { BranchDraft, BranchPollInput, branchDraftLimits, NextSlide, NextSlideInput } from '../schemas/branching.js';

export const branchPoll = defineRoute({
  method: 'POST',
  path: '/polls/{id}/branch',
  tags: ['branching'],
  summary: 'Draft skip logic from plain English',
  description:
    'Turns an instruction ("If Q2 is below 3, skip to Q4") into `conditions` checked against the poll. With an ' +
    'OpenAI key configured the provider drafts it (`source: "openai"`); without one, or when the provider fails or ' +
    'its draft does not fit the poll, the rule-based parser does (`source: "rules"`). `report` says what was ' +
    'understood: each rule in the poll’s own words, the clauses that add no rule ("otherwise carry on as normal") ' +
    'and the typing slips read. An instruction the parser cannot read, or that skip logic cannot say, answers 422 ' +
    'with `details.reason` (`backward_jump`, `free_text`, `across_slides`, `ambiguous`, … `unreadable`) quoting ' +
    'the words at fault; two readings that differ are refused, both said. Nothing is stored: apply the draft with ' +
    '`PATCH /polls/{id}` `{ branching }`. A poll of more than ' +
    `${branchDraftLimits.slides} slides or ${branchDraftLimits.textLength.toLocaleString('en-US')} characters of ` +
    'text answers 422 (write its `branching` by hand). Drafts are also limited per workspace, whichever keys ' +
    'call (the server’s `BRANCH_RATE_LIMIT_PER_MINUTE`): past it, 429. Pro and Enterprise plans. See ' +
    'docs/branching.md.',
  auth: 'workspace',
  reachesOut: true,
  effect: 'reads',
  scope: 'branching:write',
  plan: 'pro',
  successStatus: 200,
  input: BranchPollInput,
  output: BranchDraft,
  errors: ['not_found', 'validation_failed'],
});

export const nextSlide = defineRoute({
  method: 'GET',
  path: '/polls/{id}/next-slide',
  tags: ['branching'],
  summary: 'The next slide for a respondent',
  description:
    'Where a respondent goes after `afterSlideId`, from their stored answer to it (or its absence) and the poll’s ' +
    '`branching`: `{ slideId }`, or `{ end: true }` after the last slide or a rule that ends the poll.',
  auth: 'workspace',
  scope: 'polls:read',
  successStatus: 200,
  input: NextSlideInput,
  output: NextSlide,
  errors: ['not_found', 'validation_failed'],
});
