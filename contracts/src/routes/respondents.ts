import { defineRoute } from '../route.js';
import {
  EraseRespondentInput,
  GetRespondentInput,
  RespondentErased,
  RespondentRecords,
} from '../schemas/respondents.js';

export const getRespondent = defineRoute({
  method: 'GET',
  path: '/respondents/{id}',
  tags: ['respondents'],
  summary: "A respondent's records (access request)",
  description:
    'Everything the workspace holds about one respondent, across every poll and session: participant records ' +
    '(name, session, score, `respondentId`), votes, responses, Q&A questions and upvotes, cursor-paginated. ' +
    '`{id}` is a `voterId`, a participant id (`prt_…`) or the `respondentId` a participant joined with. The id ' +
    'is logged only as a hash. An unknown id answers an empty list (a malformed one, such as one holding a NUL ' +
    'character, `404 not_found`).',
  auth: 'workspace',
  scope: 'responses:read',
  successStatus: 200,
  input: GetRespondentInput,
  output: RespondentRecords,
  errors: ['not_found', 'validation_failed'],
});

export const eraseRespondent = defineRoute({
  method: 'DELETE',
  path: '/respondents/{id}',
  tags: ['respondents'],
  summary: 'Erase a respondent (erasure request)',
  description:
    'In one transaction: removes every vote, response, Q&A question (with its upvotes) and upvote of the ' +
    'respondent across the workspace, with every result (poll and session) decremented exactly; blanks their ' +
    'participant records and signs them out; rewrites stored webhook payloads, delivery-log excerpts and ' +
    'idempotent replies without their ids, names and texts. Answers the counts; a second call answers zeros. ' +
    'Sends a `respondent.erased` webhook event carrying `{id}`, so your systems can erase downstream. ' +
    'Needs the `respondents:erase` scope. Cannot be undone.',
  auth: 'workspace',
  scope: 'respondents:erase',
  successStatus: 200,
  input: EraseRespondentInput,
  output: RespondentErased,
  errors: ['not_found', 'validation_failed'],
});
