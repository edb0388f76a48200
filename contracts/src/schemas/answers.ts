import { z } from 'zod';
import { ListCursor, ListLimit, pageOf, resourceId, Timestamp } from './common.js';
import { ClientId, PollId } from './polls.js';
import { displayText, text, untrustedText } from './text.js';

/** The caller's own identifier for a respondent: an email hash, a user id, a session id… */
export const VoterId = text()
  .min(1)
  .max(200)
  .describe('Your identifier for the respondent. One answer per voter per slide (Q&A excepted).');

export const SlideId = ClientId.describe('The `id` of a slide of the poll.');

export const VoteId = resourceId('vote', 'Vote id.');
export const ResponseId = resourceId('rsp', 'Response id.');

/** What `POST /polls/{id}/votes` and `POST /polls/{id}/responses` answer with 201. */
export const AnswerReceipt = z
  .object({
    id: z.string().describe('`vote_…` for votes, `rsp_…` for responses.'),
    pollId: PollId,
    slideId: SlideId,
    voterId: VoterId,
    createdAt: Timestamp,
  })
  .meta({ id: 'AnswerReceipt' });
export type AnswerReceipt = z.infer<typeof AnswerReceipt>;

export const CastVoteInput = z
  .strictObject({
    id: PollId,
    voterId: VoterId,
    slideId: SlideId,
    optionIds: z
      .array(ClientId)
      .min(1)
      .max(50)
      .describe('Exactly one option for a `single` slide; one or more distinct options for `multiple`.'),
  })
  .meta({ id: 'CastVoteInput' });

const answerFields = ['scaleValue', 'scaleValues', 'rankingOrder', 'text', 'optionIds'] as const;

/** The answer fields of a response (and of a live answer): the one that matches the slide's kind. */
export const answerFieldShape = {
  scaleValue: z.number().int().optional().describe('`scale` slides without statements: the rating.'),
  scaleValues: z
    .record(ClientId, z.number().int())
    .optional()
    .describe('`scale` slides with statements: a rating per statement id.'),
  rankingOrder: z
    .array(ClientId)
    .max(50)
    .optional()
    .describe('`ranking` slides: every option id, most preferred first.'),
  text: displayText().trim().min(1).max(5000).optional().describe('`open_ended` answers and `qa` questions.'),
  optionIds: z.array(ClientId).min(1).max(50).optional().describe('`quiz` slides: the chosen options.'),
};

/** Exactly one of the answer fields (`answerFieldShape`) must be sent. */
export function checkOneAnswerField(
  input: { [K in (typeof answerFields)[number]]?: unknown },
  ctx: z.RefinementCtx,
): void {
  const sent = answerFields.filter((field) => input[field] !== undefined);
  if (sent.length !== 1) {
    ctx.addIssue({
      code: 'custom',
      path: [],
      message:
        sent.length === 0
          ? `Send the answer field that matches the slide's kind: one of ${answerFields.join(', ')}`
          : `Send exactly one answer field, not ${sent.join(' and ')}`,
    });
  }
}

export const CreateResponseInput = z
  .strictObject({
    id: PollId,
    voterId: VoterId,
    slideId: SlideId,
    ...answerFieldShape,
  })
  .superRefine(checkOneAnswerField)
  .meta({ id: 'CreateResponseInput' });

export const Vote = z
  .object({
    id: z.string(),
    pollId: PollId,
    slideId: SlideId,
    voterId: VoterId,
    optionIds: z.array(z.string()),
    createdAt: Timestamp,
  })
  .meta({ id: 'Vote' });
export type Vote = z.infer<typeof Vote>;

export const QuestionStatus = z
  .enum(['pending', 'approved', 'dismissed'])
  .meta({ id: 'QuestionStatus', description: 'Q&A questions on a moderated slide start `pending`.' });
export type QuestionStatus = z.infer<typeof QuestionStatus>;

/** A stored response (named PollResponse so it does not shadow fetch's global `Response`). */
export const PollResponse = z
  .object({
    id: z.string(),
    pollId: PollId,
    slideId: SlideId,
    voterId: VoterId,
    kind: z.enum(['quiz', 'scale', 'ranking', 'open_ended', 'qa']),
    scaleValue: z.number().optional(),
    scaleValues: z.record(z.string(), z.number()).optional(),
    rankingOrder: z.array(z.string()).optional(),
    text: untrustedText(z.string()).optional(),
    optionIds: z.array(z.string()).optional(),
    /**
     * Q&A questions, and open-ended answers held for review (`textFilter: review`); other open-ended
     * answers are `approved`.
     */
    status: QuestionStatus.optional().describe(
      'Q&A questions and open-ended answers: `pending` until approved when held (moderated Q&A, `textFilter: review`).',
    ),
    flagged: z
      .boolean()
      .optional()
      .describe('Open-ended answers and Q&A questions: whether the text filter finds a vulgar word in `text`.'),
    upvotes: z.number().int().optional(),
    createdAt: Timestamp,
  })
  .meta({ id: 'Response' });
export type PollResponse = z.infer<typeof PollResponse>;

export const ListAnswersInput = z.strictObject({
  id: PollId,
  limit: ListLimit,
  cursor: ListCursor,
  slideId: SlideId.optional().describe('Only answers to this slide.'),
  voterId: VoterId.optional().describe("Only this voter's answers."),
  sessionId: resourceId('ses', 'Session id.')
    .optional()
    .describe('Only answers given in this live session (`ses_…`); answers sent through the API belong to none.'),
});

/** `GET /polls/{id}/responses`: the answers' filters, and their moderation status. */
export const ListResponsesInput = ListAnswersInput.extend({
  status: QuestionStatus.optional().describe(
    'Only open-ended answers and Q&A questions in this status: `pending` is what the text filter holds for review ' +
      '(and a moderated Q&A slide’s queue); `approved` includes the answers never held.',
  ),
});

export const VoteList = pageOf(Vote, 'VoteList');
export const ResponseList = pageOf(PollResponse, 'ResponseList');

export const Question = z
  .object({
    id: ResponseId,
    pollId: PollId,
    slideId: SlideId,
    voterId: VoterId,
    text: untrustedText(z.string()),
    status: QuestionStatus,
    flagged: z.boolean().describe('Whether the text filter finds a vulgar word in `text` (docs/moderation.md).'),
    upvotes: z.number().int(),
    createdAt: Timestamp,
  })
  .meta({ id: 'Question' });
export type Question = z.infer<typeof Question>;

const QuestionIdParam = ResponseId.describe('The question: the `id` its `POST /polls/{id}/responses` answered.');

/** `PATCH /polls/{id}/responses/{responseId}`: a held open-ended answer or a Q&A question approved or dismissed. */
export const ModerateResponseInput = z.strictObject({
  id: PollId,
  responseId: ResponseId.describe('An open-ended answer or a Q&A question (`rsp_…`).'),
  status: z
    .enum(['approved', 'dismissed'])
    .describe('`approved`: counted and shown (masked where the filter flags it); `dismissed`: never shown.'),
});

export const ModerateQuestionInput = z.strictObject({
  id: PollId,
  questionId: QuestionIdParam,
  status: QuestionStatus.describe('`approved` shows the question; `dismissed` hides it.'),
});

export const UpvoteQuestionInput = z.strictObject({
  id: PollId,
  questionId: QuestionIdParam,
  voterId: VoterId,
});

export const ListQuestionsInput = z.strictObject({
  id: PollId,
  limit: ListLimit,
  cursor: ListCursor,
  slideId: SlideId.optional(),
  status: QuestionStatus.optional(),
});
export const QuestionList = pageOf(Question, 'QuestionList');

export const ResetAnswersInput = z.strictObject({ id: PollId });

const DeletedCount = z.number().int().min(0);

/** What `DELETE /polls/{id}/answers` answers: how much was deleted. */
export const AnswersReset = z
  .object({
    pollId: PollId,
    deleted: z.object({
      votes: DeletedCount.describe('Votes on multiple-choice slides.'),
      responses: DeletedCount.describe('Responses to quiz, scale, ranking and open-ended slides.'),
      questions: DeletedCount.describe('Q&A questions.'),
      upvotes: DeletedCount.describe('Upvotes of those questions.'),
    }),
  })
  .meta({ id: 'AnswersReset' });

// Types of the same names: a request body or query as a client writes it (`z.input`: defaulted
// fields optional) for `*Input` schemas, the value as the API answers it (`z.output`) for the rest.
export type AnswersReset = z.output<typeof AnswersReset>;
export type CastVoteInput = z.input<typeof CastVoteInput>;
export type CreateResponseInput = z.input<typeof CreateResponseInput>;
export type ListAnswersInput = z.input<typeof ListAnswersInput>;
export type ListResponsesInput = z.input<typeof ListResponsesInput>;
export type ListQuestionsInput = z.input<typeof ListQuestionsInput>;
export type ModerateQuestionInput = z.input<typeof ModerateQuestionInput>;
export type ModerateResponseInput = z.input<typeof ModerateResponseInput>;
export type QuestionList = z.output<typeof QuestionList>;
export type ResetAnswersInput = z.input<typeof ResetAnswersInput>;
export type ResponseId = z.output<typeof ResponseId>;
export type ResponseList = z.output<typeof ResponseList>;
export type SlideId = z.output<typeof SlideId>;
export type UpvoteQuestionInput = z.input<typeof UpvoteQuestionInput>;
export type VoteId = z.output<typeof VoteId>;
export type VoteList = z.output<typeof VoteList>;
export type VoterId = z.output<typeof VoterId>;
