import { z } from 'zod';
import { ListCursor, ListLimit, pageOf, resourceId, Timestamp } from './common.js';
import { Language, LanguageInput } from './language.js';
import { Media } from './media.js';
import { displayText, text } from './text.js';
import { ThemeId } from './themes.js';

/** Size limits on poll content (docs/polls.md lists them). */
export const pollLimits = {
  titleLength: 200,
  slides: 100,
  options: 50,
  statements: 20,
  textLength: 1000,
  labelLength: 300,
  openEndedMaxLength: 5000,
  quizTimeLimitSec: { min: 5, max: 600 },
  branchInstructionLength: 2000,
  scaleSpan: 100,
} as const;

export const PollId = resourceId('poll', 'Poll id.');

/** Client-chosen ids for slides, options and statements. */
export const ClientId = text()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_-]+$/, 'Use letters, digits, `_` or `-`')
  // Ids become object keys (`scaleValues`); `__proto__` would be dropped there, so it is refused here.
  .refine((id) => id !== '__proto__', '`__proto__` is reserved');

export const Option = z
  .strictObject({
    id: ClientId.describe('Unique within the slide.'),
    label: displayText().min(1).max(pollLimits.labelLength),
    media: Media.optional(),
  })
  .meta({ id: 'Option' });

export const Statement = z
  .strictObject({
    id: ClientId.describe('Unique within the slide.'),
    text: displayText().min(1).max(pollLimits.textLength),
  })
  .meta({ id: 'Statement' });

const slideBase = {
  id: ClientId.describe('Unique within the poll; used as `slideId` in votes and responses.'),
  text: displayText().min(1).max(pollLimits.textLength).describe('The question (or heading, for content slides).'),
  media: Media.optional(),
};

const Options = z.array(Option).min(2).max(pollLimits.options);

/**
 * What the text filter does with vulgar words in what an audience writes (open-ended answers, Q&A
 * questions, participant names): docs/moderation.md.
 */
export const TextFilter = z.enum(['off', 'mask', 'block', 'review']).meta({
  id: 'TextFilter',
  description:
    '`mask`: stored as written, shown with flagged words masked; `block`: refused (`422 content_rejected`); ' +
    '`review`: a flagged answer or question waits (`pending`) until approved, and is shown masked once approved; ' +
    '`off`: shown as written.',
});
export type TextFilter = z.infer<typeof TextFilter>;

const slideTextFilter = TextFilter.optional().describe('This slide’s text filter, instead of the poll’s `textFilter`.');

export const MultipleChoiceSlide = z
  .strictObject({
    ...slideBase,
    kind: z.literal('multiple_choice'),
    type: z
      .enum(['single', 'multiple'])
      .default('single')
      .describe('`single`: one option per vote; `multiple`: one or more.'),
    options: Options,
  })
  .meta({ id: 'MultipleChoiceSlide' });

export const QuizSlide = z
  .strictObject({
    ...slideBase,
    kind: z.literal('quiz'),
    options: Options,
    correctOptionIds: z.array(ClientId).min(1).describe('Ids of the correct options.'),
    timeLimitSec: z
      .number()
      .int()
      .min(pollLimits.quizTimeLimitSec.min)
      .max(pollLimits.quizTimeLimitSec.max)
      .default(30),
    points: z.number().int().min(0).max(10_000).default(1000),
    speedBonus: z.boolean().default(false).describe('Faster correct answers score up to the full points.'),
  })
  .meta({ id: 'QuizSlide' });

export const ScaleSlide = z
  .strictObject({
    ...slideBase,
    kind: z.literal('scale'),
    min: z.number().int().min(-100).max(100).default(1),
    max: z.number().int().min(-100).max(100).default(5),
    minLabel: displayText().max(pollLimits.labelLength).optional(),
    maxLabel: displayText().max(pollLimits.labelLength).optional(),
    statements: z
      .array(Statement)
      .max(pollLimits.statements)
      .default([])
      .describe('Rated separately when present (`scaleValues` in responses).'),
  })
  .meta({ id: 'ScaleSlide' });

export const RankingSlide = z
  .strictObject({ ...slideBase, kind: z.literal('ranking'), options: Options })
  .meta({ id: 'RankingSlide' });

export const OpenEndedSlide = z
  .strictObject({
    ...slideBase,
    kind: z.literal('open_ended'),
    maxLength: z.number().int().min(1).max(pollLimits.openEndedMaxLength).default(500),
    render: z.enum(['list', 'cloud']).default('list'),
    textFilter: slideTextFilter,
  })
  .meta({ id: 'OpenEndedSlide' });

export const QaSlide = z
  .strictObject({
    ...slideBase,
    kind: z.literal('qa'),
    moderated: z.boolean().default(false).describe('Questions stay `pending` until approved.'),
    allowUpvotes: z.boolean().default(true),
    textFilter: slideTextFilter,
  })
  .meta({ id: 'QaSlide' });

export const ContentSlide = z
  .strictObject({ ...slideBase, kind: z.literal('content') })
  .meta({ id: 'ContentSlide', description: 'Display-only; takes no answers.' });

export const Slide = z
  .discriminatedUnion('kind', [
    MultipleChoiceSlide,
    QuizSlide,
    ScaleSlide,
    RankingSlide,
    OpenEndedSlide,
    QaSlide,
    ContentSlide,
  ])
  .meta({ id: 'Slide' });

export type Slide = z.infer<typeof Slide>;
export type SlideKind = Slide['kind'];
export const slideKinds = [
  'multiple_choice',
  'quiz',
  'scale',
  'ranking',
  'open_ended',
  'qa',
  'content',
] as const satisfies readonly SlideKind[];

function duplicates(ids: readonly string[]): string[] {
  const seen = new Set<string>();
  const dup = new Set<string>();
  for (const id of ids) (seen.has(id) ? dup : seen).add(id);
  return [...dup];
}

/**
 * Rules that span fields: unique ids, quiz answers that name options, scale ranges. Issues carry
 * their full path so the client can point at the offending slide.
 */
export const PollContent = z
  .strictObject({
    questions: z.array(Slide).max(pollLimits.slides).default([]),
  })
  .superRefine((content, ctx) => {
    for (const id of duplicates(content.questions.map((q) => q.id))) {
      ctx.addIssue({ code: 'custom', path: ['questions'], message: `Slide id '${id}' is used more than once` });
    }
    content.questions.forEach((slide, index) => {
      const at = (...rest: (string | number)[]) => ['questions', index, ...rest];
      if ('options' in slide) {
        for (const id of duplicates(slide.options.map((o) => o.id))) {
          ctx.addIssue({ code: 'custom', path: at('options'), message: `Option id '${id}' is used more than once` });
        }
      }
      if (slide.kind === 'quiz') {
        const optionIds = new Set(slide.options.map((o) => o.id));
        for (const id of slide.correctOptionIds) {
          if (!optionIds.has(id)) {
            ctx.addIssue({
              code: 'custom',
              path: at('correctOptionIds'),
              message: `'${id}' is not an option of this slide`,
            });
          }
        }
        for (const id of duplicates(slide.correctOptionIds)) {
          ctx.addIssue({ code: 'custom', path: at('correctOptionIds'), message: `'${id}' is listed more than once` });
        }
      }
      if (slide.kind === 'scale') {
        if (slide.min >= slide.max) {
          ctx.addIssue({ code: 'custom', path: at('max'), message: 'max must be greater than min' });
        } else if (slide.max - slide.min > pollLimits.scaleSpan) {
          ctx.addIssue({
            code: 'custom',
            path: at('max'),
            message: `A scale spans at most ${pollLimits.scaleSpan} steps`,
          });
        }
        for (const id of duplicates(slide.statements.map((s) => s.id))) {
          ctx.addIssue({
            code: 'custom',
            path: at('statements'),
            message: `Statement id '${id}' is used more than once`,
          });
        }
      }
    });
  })
  .meta({ id: 'PollContent' });

export type PollContent = z.infer<typeof PollContent>;

export const PollStatus = z
  .enum(['draft', 'published', 'closed'])
  .meta({ id: 'PollStatus', description: '`draft` takes no answers; `published` does; `closed` no longer does.' });
export type PollStatus = z.infer<typeof PollStatus>;

/**
 * Skip logic: evaluated when a respondent leaves slide `if.slideId` (answered or not); a slide's
 * rules are tried in order, the first that matches decides, and none matching means the next slide.
 * Set with `PATCH /polls/{id}` `{ branching }`, drafted from plain English by `POST /polls/{id}/branch`.
 */
export const BranchCondition = z
  .strictObject({
    id: ClientId,
    if: z.strictObject({
      slideId: ClientId,
      operator: z
        .enum([
          'equals',
          'not_equals',
          'includes',
          'greater_than',
          'less_than',
          'at_least',
          'at_most',
          'answered',
          'not_answered',
        ])
        .describe(
          '`equals`/`not_equals`: an option id or a rating; `includes`: any of the option ids in `value`; ' +
            '`greater_than`, `less_than`, `at_least`, `at_most`: a rating; `answered`/`not_answered`: no `value`.',
        ),
      value: z
        .union([
          text().max(pollLimits.labelLength),
          z.number(),
          z.array(text().max(pollLimits.labelLength)).max(pollLimits.options),
        ])
        .optional(),
    }),
    // biome-ignore lint/suspicious/noThenProperty: `then` is the field name of the rule's action.
    then: z.discriminatedUnion('action', [
      z.strictObject({ action: z.literal('skip_to'), slideId: ClientId }),
      z.strictObject({ action: z.literal('end') }),
    ]),
  })
  .meta({ id: 'BranchCondition' });

/** Rule ids are unique within a poll's skip logic: each repeat is named at its own `id`. */
export const Branching = z
  .strictObject({ conditions: z.array(BranchCondition).max(200) })
  .superRefine((branching, ctx) => {
    const firstAt = new Map<string, number>();
    branching.conditions.forEach((rule, index) => {
      const first = firstAt.get(rule.id);
      if (first === undefined) firstAt.set(rule.id, index);
      else {
        ctx.addIssue({
          code: 'custom',
          path: ['conditions', index, 'id'],
          message: `Rule id '${rule.id}' is used more than once (first by conditions.${first})`,
        });
      }
    });
  })
  .meta({ id: 'Branching' });
export type Branching = z.infer<typeof Branching>;

const MaxRespondents = z.number().int().min(1).max(1_000_000);

export const Poll = z
  .object({
    id: PollId,
    title: z.string(),
    status: PollStatus,
    content: PollContent,
    branching: Branching.nullable().describe('Skip logic between slides (see docs/branching.md); `null` when none.'),
    language: Language.describe(
      'The language of its sessions’ audience page and presenter screen (docs/languages.md); a session may set another.',
    ),
    themeId: ThemeId.nullable().describe(
      'The theme of its sessions’ pages (docs/themes.md); `null`: the workspace’s theme, if it has one.',
    ),
    textFilter: TextFilter.describe(
      'What happens to vulgar words in answers, questions and names (docs/moderation.md); a slide may set its own.',
    ),
    maxRespondents: MaxRespondents.nullable().describe(
      'At most this many distinct respondents (API voters and session participants, counted at their first answer); ' +
        '`null`: no cap.',
    ),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    publishedAt: Timestamp.nullable(),
    closedAt: Timestamp.nullable(),
  })
  .meta({ id: 'Poll' });

export type Poll = z.infer<typeof Poll>;

const Title = displayText().trim().min(1).max(pollLimits.titleLength);

export const CreatePollInput = z
  .strictObject({
    title: Title,
    content: PollContent.default({ questions: [] }),
    language: LanguageInput.optional().describe('Default: the workspace’s `language`, else `en`.'),
    themeId: ThemeId.nullable().optional().describe('A theme of this workspace; default: none (the workspace’s).'),
    textFilter: TextFilter.optional().describe('Default: `mask`.'),
    maxRespondents: MaxRespondents.nullable().optional().describe('Default: no cap.'),
  })
  .meta({ id: 'CreatePollInput' });

export const GetPollInput = z.strictObject({ id: PollId });

export const DuplicatePollInput = z
  .strictObject({
    id: PollId.describe('The poll to copy.'),
    title: Title.optional().describe('The copy’s title; the original’s with " (copy)" after it when absent.'),
  })
  .meta({ id: 'DuplicatePollInput' });
export type DuplicatePollInput = z.input<typeof DuplicatePollInput>;

export const UpdatePollInput = z
  .strictObject({
    id: PollId,
    title: Title.optional(),
    content: PollContent.optional().describe(
      'Replaces every slide. Refused once the poll has answers (`DELETE /polls/{id}/answers` deletes them).',
    ),
    publish: z
      .boolean()
      .optional()
      .describe(
        '`true` publishes (or reopens a closed poll), if it has at least one slide; `false` returns the poll to draft.',
      ),
    closed: z.boolean().optional().describe('`true` closes a published poll; `false` reopens a closed one.'),
    language: LanguageInput.optional(),
    themeId: ThemeId.nullable().optional().describe('A theme of this workspace; `null`: the workspace’s.'),
    textFilter: TextFilter.optional().describe(
      'Applies to what is written from now on, and to how everything is shown (stored text is never rewritten).',
    ),
    maxRespondents: MaxRespondents.nullable()
      .optional()
      .describe('`null` removes the cap; a cap below the respondents already counted lets nobody new in.'),
    branching: Branching.nullable()
      .optional()
      .describe(
        'Skip logic, checked against the slides (they exist, the operators fit, jumps go forward, every rule can ' +
          'apply); `null` removes it. New `content` must still fit the stored skip logic, or come with new `branching`.',
      ),
  })
  .superRefine((input, ctx) => {
    if (input.publish !== undefined && input.closed !== undefined) {
      ctx.addIssue({ code: 'custom', path: [], message: 'Send either `publish` or `closed`, not both' });
    }
    if (
      input.title === undefined &&
      input.content === undefined &&
      input.publish === undefined &&
      input.closed === undefined &&
      input.branching === undefined &&
      input.language === undefined &&
      input.themeId === undefined &&
      input.textFilter === undefined &&
      input.maxRespondents === undefined
    ) {
      ctx.addIssue({ code: 'custom', path: [], message: 'Send at least one field to change' });
    }
  });

export const ListPollsInput = z.strictObject({
  limit: ListLimit,
  cursor: ListCursor,
  status: PollStatus.optional().describe('Only polls in this status.'),
});

export const PollList = pageOf(Poll, 'PollList');

export const DeletedPoll = z.object({ id: PollId, deleted: z.literal(true) }).meta({ id: 'DeletedPoll' });

// Types of the same names: a request body or query as a client writes it (`z.input`: defaulted
// fields optional) for `*Input` schemas, the value as the API answers it (`z.output`) for the rest.
export type BranchCondition = z.output<typeof BranchCondition>;
export type ClientId = z.output<typeof ClientId>;
export type ContentSlide = z.output<typeof ContentSlide>;
export type CreatePollInput = z.input<typeof CreatePollInput>;
export type DeletedPoll = z.output<typeof DeletedPoll>;
export type GetPollInput = z.input<typeof GetPollInput>;
export type ListPollsInput = z.input<typeof ListPollsInput>;
export type MultipleChoiceSlide = z.output<typeof MultipleChoiceSlide>;
export type OpenEndedSlide = z.output<typeof OpenEndedSlide>;
export type Option = z.output<typeof Option>;
export type PollId = z.output<typeof PollId>;
export type PollList = z.output<typeof PollList>;
export type QaSlide = z.output<typeof QaSlide>;
export type QuizSlide = z.output<typeof QuizSlide>;
export type RankingSlide = z.output<typeof RankingSlide>;
export type ScaleSlide = z.output<typeof ScaleSlide>;
export type Statement = z.output<typeof Statement>;
export type UpdatePollInput = z.input<typeof UpdatePollInput>;
