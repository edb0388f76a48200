import { z } from 'zod';
import { PollResponse, Question, ResponseId, SlideId, Vote, VoteId, VoterId } from './answers.js';
import { ListCursor, ListLimit, pageOf, Timestamp } from './common.js';
import { PollId } from './polls.js';
import { text, untrustedText } from './text.js';

/**
 * The customer's own id for a live or self-paced participant, given at join (`respondentId`, e.g. from
 * the join link's `?rid=`). Unverified: anyone holding the link can type any value (docs/privacy.md).
 */
export const RespondentId = text()
  .min(1)
  .max(200)
  .describe(
    'Your own identifier for this person (e.g. from the join link’s `?rid=`). Unverified: anyone with the ' +
      'link can send any value, so treat it as a label, not as proof of who answered.',
  );

/** A respondent as the privacy routes name them: a voter id, a participant id (`prt_…`) or a respondentId. */
const RespondentKey = text()
  .min(1)
  .max(200)
  .describe(
    'A `voterId` of API answers, a participant id (`prt_…`, the `voterId` of a live participant’s answers) or ' +
      'the `respondentId` a participant joined with.',
  );

export const GetRespondentInput = z.strictObject({ id: RespondentKey, limit: ListLimit, cursor: ListCursor });
export const EraseRespondentInput = z.strictObject({ id: RespondentKey });

const SessionOf = z.string().nullable().describe('The live session it came from (`ses_…`); null through the API.');

export const RespondentParticipant = z
  .object({
    type: z.literal('participant'),
    id: z.string().describe('Participant id (`prt_…`): the `voterId` of its answers.'),
    sessionId: z.string(),
    pollId: PollId,
    name: untrustedText(z.string().nullable()).describe('As given at join; null when none was (or once erased).'),
    flagged: z.boolean().describe('Whether the text filter flags `name`.'),
    respondentId: untrustedText(z.string().nullable()).describe('As given at join; null when none was.'),
    score: z.number().int().describe('Quiz points its answers earned in the session.'),
    joinedAt: Timestamp,
    removedAt: Timestamp.nullable().describe('When the host removed it (or it was erased); null while it may answer.'),
  })
  .meta({ id: 'RespondentParticipant' });

export const RespondentVote = Vote.extend({ type: z.literal('vote'), sessionId: SessionOf }).meta({
  id: 'RespondentVote',
});
export const RespondentResponse = PollResponse.extend({ type: z.literal('response'), sessionId: SessionOf }).meta({
  id: 'RespondentResponse',
});
export const RespondentQuestion = Question.extend({ type: z.literal('question'), sessionId: SessionOf }).meta({
  id: 'RespondentQuestion',
});
export const RespondentUpvote = z
  .object({
    type: z.literal('upvote'),
    questionId: z.string().describe('The question upvoted (`rsp_…`), someone else’s or their own.'),
    pollId: PollId,
    slideId: SlideId,
    voterId: VoterId,
    createdAt: Timestamp,
  })
  .meta({ id: 'RespondentUpvote' });

/** One record the workspace holds about a respondent, by `type`. */
export const RespondentRecord = z
  .discriminatedUnion('type', [
    RespondentParticipant,
    RespondentVote,
    RespondentResponse,
    RespondentQuestion,
    RespondentUpvote,
  ])
  .meta({ id: 'RespondentRecord' });
export type RespondentRecord = z.output<typeof RespondentRecord>;

/**
 * Everything about one respondent, one page at a time: participant records first, then votes,
 * responses, Q&A questions and upvotes, each oldest first.
 */
export const RespondentRecords = pageOf(RespondentRecord, 'RespondentRecords');

const ErasedCount = z.number().int().min(0);

/** What `DELETE /respondents/{id}` answers: how much it erased (all zeros on a second call). */
export const RespondentErased = z
  .object({
    id: z.string().describe('The id erased, as sent.'),
    erased: z.object({
      votes: ErasedCount.describe('Votes removed.'),
      responses: ErasedCount.describe('Responses (quiz, scale, ranking, open-ended) removed.'),
      questions: ErasedCount.describe('Q&A questions removed (with the upvotes others gave them).'),
      upvotes: ErasedCount.describe('Upvotes the respondent gave, removed.'),
      participants: ErasedCount.describe('Participant records blanked (name and respondentId) and signed out.'),
      redacted: ErasedCount.describe(
        'Stored webhook payloads, delivery-log excerpts and idempotent replies rewritten without the respondent.',
      ),
    }),
  })
  .meta({ id: 'RespondentErased' });

export const DeleteVoteInput = z.strictObject({ id: PollId, voteId: VoteId });
export const DeleteResponseInput = z.strictObject({
  id: PollId,
  responseId: ResponseId.describe('Response id (`rsp_…`); a Q&A question is deleted with its upvotes.'),
});

/** What deleting one vote or response answers. */
export const AnswerDeleted = z
  .object({
    id: z.string().describe('The vote or response deleted.'),
    pollId: PollId,
    deleted: z.literal(true),
  })
  .meta({ id: 'AnswerDeleted' });

// Types of the same names: a request body or query as a client writes it (`z.input`) for `*Input`
// schemas, the value as the API answers it (`z.output`) for the rest.
export type AnswerDeleted = z.output<typeof AnswerDeleted>;
export type DeleteResponseInput = z.input<typeof DeleteResponseInput>;
export type DeleteVoteInput = z.input<typeof DeleteVoteInput>;
export type EraseRespondentInput = z.input<typeof EraseRespondentInput>;
export type GetRespondentInput = z.input<typeof GetRespondentInput>;
export type RespondentErased = z.output<typeof RespondentErased>;
export type RespondentId = z.output<typeof RespondentId>;
export type RespondentRecords = z.output<typeof RespondentRecords>;
