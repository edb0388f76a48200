import { z } from 'zod';
import { PresenterEvent } from '../events.js';
import { defineRoute } from '../route.js';
import { PollResponse, Question, QuestionList, ResponseList } from '../schemas/answers.js';
import { SvgDocument } from '../schemas/common.js';
import { ListSessionParticipantsInput, SessionParticipantList, SessionResults } from '../schemas/live.js';
import { ResultsFileFormat, resultsFiles } from '../schemas/results.js';
import {
  CreatedSession,
  CreateSessionInput,
  GetSessionInput,
  ListSessionQuestionsInput,
  ListSessionResponsesInput,
  ListSessionsInput,
  ModerateSessionQuestionInput,
  ModerateSessionResponseInput,
  RemovedParticipant,
  RemoveParticipantInput,
  RotatedHostToken,
  RotateHostTokenInput,
  Session,
  SessionAnswersInput,
  SessionAnswersReset,
  SessionControlInput,
  SessionDeck,
  SessionDeckInput,
  SessionEventsInput,
  SessionList,
  SessionQrInput,
  UpdateSessionInput,
} from '../schemas/sessions.js';

export const createSession = defineRoute({
  method: 'POST',
  path: '/sessions',
  tags: ['sessions'],
  summary: 'Create a live session',
  description:
    'Opens a `pending` session of a published poll with a six-digit PIN for the audience. The `hostToken` is shown ' +
    'this once; it carries the calling credential’s scopes (docs/live-sessions.md). `pace: "audience"` makes it self-paced: its `joinUrl` carries a link id that joins without the PIN ' +
    '(and `pin: false` goes without a PIN), and each participant walks the deck by the poll’s skip logic. ' +
    '`joinChallenge: "pow"` asks each new participant to solve a proof-of-work challenge first (docs/moderation.md). ' +
    'See docs/live-sessions.md.',
  auth: 'workspace',
  scope: 'sessions:write',
  successStatus: 201,
  input: CreateSessionInput,
  output: CreatedSession,
  errors: ['not_found', 'validation_failed', 'poll_not_published', 'poll_closed'],
});

export const listSessions = defineRoute({
  method: 'GET',
  path: '/sessions',
  tags: ['sessions'],
  summary: 'List live sessions',
  description: 'Newest first, cursor-paginated; filter by `pollId` and `status`.',
  auth: 'workspace',
  scope: 'sessions:read',
  successStatus: 200,
  input: ListSessionsInput,
  output: SessionList,
  errors: ['validation_failed'],
});

export const getSession = defineRoute({
  method: 'GET',
  path: '/sessions/{id}',
  tags: ['sessions'],
  summary: 'Get a live session',
  auth: 'host',
  scope: 'sessions:read',
  successStatus: 200,
  input: GetSessionInput,
  output: Session,
  errors: ['not_found', 'validation_failed', 'invalid_host_token'],
});

export const controlSession = defineRoute({
  method: 'POST',
  path: '/sessions/{id}/control',
  tags: ['sessions'],
  summary: 'Control a live session',
  description:
    '`start`, `next`, `prev`, `goto` (with `slideIndex`), `showResults`, `hideResults`, `lock`, `unlock`, `end`. ' +
    'Answers the session as it now is; participants receive the change on their event stream. An action the ' +
    'session is not in a state for answers 409 `invalid_session_state`, as does any but `start` and `end` on a ' +
    'self-paced session (each participant has their own slide); moving outside the deck answers 422. ' +
    'Authorised by a workspace credential or by the session’s `X-Host-Token`.',
  auth: 'host',
  scope: 'sessions:write',
  successStatus: 200,
  input: SessionControlInput,
  output: Session,
  errors: ['not_found', 'validation_failed', 'invalid_host_token', 'invalid_session_state'],
});

export const updateSession = defineRoute({
  method: 'PATCH',
  path: '/sessions/{id}',
  tags: ['sessions'],
  summary: 'Lock joins, change the participant cap or the closing time',
  description:
    '`joinsLocked: true` takes no new participants (a join answers 409 `joins_locked`); those who joined carry on. ' +
    '`maxParticipants` changes the cap, within the server’s ceiling and not below the participants who joined. ' +
    '`closesAt` sets when the session ends itself (`null`: never). ' +
    '`joinChallenge: "pow"` asks new participants to solve a proof-of-work challenge (`null`: no longer). ' +
    'Authorised by a workspace credential or by the session’s `X-Host-Token`.',
  auth: 'host',
  scope: 'sessions:write',
  successStatus: 200,
  input: UpdateSessionInput,
  output: Session,
  errors: ['not_found', 'validation_failed', 'invalid_host_token', 'invalid_session_state'],
});

export const removeParticipant = defineRoute({
  method: 'DELETE',
  path: '/sessions/{id}/participants/{participantId}',
  tags: ['sessions'],
  summary: 'Remove a participant',
  description:
    'The participant’s token stops working on every server process (at once with Redis, within 10 seconds ' +
    'without) and its event streams are closed; its answers stay. It can join again as a new participant ' +
    'unless joins are locked (`PATCH /sessions/{id}`). Authorised by a workspace credential or by the session’s ' +
    '`X-Host-Token`.',
  auth: 'host',
  scope: 'sessions:write',
  successStatus: 200,
  input: RemoveParticipantInput,
  output: RemovedParticipant,
  errors: ['not_found', 'validation_failed', 'invalid_host_token'],
});

export const rotateHostToken = defineRoute({
  method: 'POST',
  path: '/sessions/{id}/host-token',
  tags: ['sessions'],
  summary: 'Rotate the host token',
  description:
    'A new `hostToken`, shown this once; the one it replaces stops working at once. Authorised by a workspace ' +
    'credential or by the session’s current `X-Host-Token` (a presenter device that suspects its token leaked). ' +
    'The new token carries the scopes of the credential that asked for it (a host token: its own).',
  auth: 'host',
  effect: 'destroys',
  scope: 'sessions:write',
  successStatus: 200,
  input: RotateHostTokenInput,
  output: RotatedHostToken,
  errors: ['not_found', 'validation_failed', 'invalid_host_token', 'invalid_session_state'],
});

export const sessionQrCode = defineRoute({
  method: 'GET',
  path: '/sessions/{id}/qr.svg',
  tags: ['sessions'],
  summary: 'QR code of the join URL',
  description: 'An SVG image of a QR code that encodes the session’s `joinUrl`.',
  auth: 'host',
  scope: 'sessions:read',
  successStatus: 200,
  format: 'svg',
  input: SessionQrInput,
  output: SvgDocument,
  errors: ['not_found', 'validation_failed', 'invalid_host_token'],
});

export const sessionEvents = defineRoute({
  method: 'GET',
  path: '/sessions/{id}/events',
  tags: ['sessions'],
  summary: 'Presenter event stream',
  description:
    'Server-Sent Events: the session on connect and after every control action, and live counts for the current ' +
    'slide (throttled; self-paced: `progress`, participants per slide and every slide’s results). Reconnect with ' +
    '`Last-Event-ID` to receive what was missed. Authorised by a workspace ' +
    'credential or by the session’s `X-Host-Token`. What it carries depends on the scopes of the credential (a host ' +
    'token: those it carries): without `responses:read`, only `session` events (the session’s moves: status, slide, ' +
    'results shown, locks); with it, counts, progress, results and the summary, and quiz results’ answer key ' +
    '(`correct`, `correctAnswers`, `correctRate`) only with `polls:read` too.',
  auth: 'host',
  scope: 'sessions:read',
  successStatus: 200,
  format: 'sse',
  input: SessionEventsInput,
  output: PresenterEvent,
  errors: ['not_found', 'validation_failed', 'invalid_host_token'],
});

export const sessionDeck = defineRoute({
  method: 'GET',
  path: '/sessions/{id}/deck',
  tags: ['sessions'],
  summary: 'Slides of a live session',
  description:
    'The poll’s title and slides as they are now, quiz answers included, for a presenter device that holds only ' +
    'the session’s `X-Host-Token` (it cannot read the poll). `currentSlideIndex` indexes `slides`. A workspace ' +
    'credential needs `polls:read` as well: the deck is the poll’s content. A host token created by a credential ' +
    'without `polls:read` reads the slides without their answer key: quiz slides come without `correctOptionIds`.',
  auth: 'host',
  scope: 'sessions:read',
  additionalScopes: ['polls:read'],
  successStatus: 200,
  input: SessionDeckInput,
  output: SessionDeck,
  errors: ['not_found', 'validation_failed', 'invalid_host_token'],
});

export const listSessionQuestions = defineRoute({
  method: 'GET',
  path: '/sessions/{id}/questions',
  tags: ['sessions'],
  summary: 'Q&A questions of a live session',
  description:
    'The Q&A questions asked in this session, newest first, cursor-paginated, in every status: `status=pending` ' +
    'is the presenter’s moderation queue. Another session’s questions and those asked through the API are not ' +
    'listed (`GET /polls/{id}/questions` lists them all). Filter by `slideId`. Authorised by the session’s `X-Host-Token`, or by ' +
    'a workspace credential holding `responses:read` as well (the questions are the audience’s answers); a host ' +
    'token needs `responses:read` among its scopes.',
  auth: 'host',
  scope: 'sessions:read',
  additionalScopes: ['responses:read'],
  hostTokenScopes: ['responses:read'],
  successStatus: 200,
  input: ListSessionQuestionsInput,
  output: QuestionList,
  errors: ['not_found', 'validation_failed', 'invalid_host_token'],
});

export const moderateSessionQuestion = defineRoute({
  method: 'PATCH',
  path: '/sessions/{id}/questions/{questionId}',
  tags: ['sessions'],
  summary: 'Approve or dismiss a question of a live session',
  description:
    'As `PATCH /polls/{id}/questions/{questionId}`, for a presenter device that holds only the session’s ' +
    '`X-Host-Token`: the question must have been asked in this session (another session’s is a 404). The ' +
    'session’s Q&A board shows the change.',
  auth: 'host',
  scope: 'sessions:write',
  successStatus: 200,
  input: ModerateSessionQuestionInput,
  output: Question,
  errors: ['not_found', 'validation_failed', 'invalid_host_token'],
});

export const listSessionResponses = defineRoute({
  method: 'GET',
  path: '/sessions/{id}/responses',
  tags: ['sessions'],
  summary: 'Open-ended answers of a live session',
  description:
    'The open-ended answers given in this session, newest first, cursor-paginated: `status=pending` is the ' +
    'presenter’s review queue when the text filter is `review` (docs/moderation.md). Texts are shown as the ' +
    'audience sees them (flagged words masked, `flagged` set); `GET /polls/{id}/responses` has them as written. ' +
    'Authorised as `GET /sessions/{id}/questions`.',
  auth: 'host',
  scope: 'sessions:read',
  additionalScopes: ['responses:read'],
  hostTokenScopes: ['responses:read'],
  successStatus: 200,
  input: ListSessionResponsesInput,
  output: ResponseList,
  errors: ['not_found', 'validation_failed', 'invalid_host_token'],
});

export const moderateSessionResponse = defineRoute({
  method: 'PATCH',
  path: '/sessions/{id}/responses/{responseId}',
  tags: ['sessions'],
  summary: 'Approve or dismiss an answer held for review',
  description:
    'As `PATCH /polls/{id}/responses/{responseId}`, for a presenter device that holds only the session’s ' +
    '`X-Host-Token`: an open-ended answer or a Q&A question given in this session (another session’s is a 404). ' +
    'Approving a held answer counts it in the results; the presenter screen’s review queue calls this.',
  auth: 'host',
  scope: 'sessions:write',
  successStatus: 200,
  input: ModerateSessionResponseInput,
  output: PollResponse,
  errors: ['not_found', 'validation_failed', 'invalid_host_token'],
});

export const getSessionResults = defineRoute({
  method: 'GET',
  path: '/sessions/{id}/results',
  tags: ['sessions'],
  summary: 'Results of a live session',
  description:
    'The `PollResults` of this session alone: the answers given in it, its Q&A questions, its voters ' +
    '(`totalVoters`). Maintained as answers arrive, like the poll’s: reading never scans the answers. ' +
    '`GET /polls/{id}/results` stays the sum of every session and every answer sent through the API. Authorised ' +
    'by the session’s `X-Host-Token` (carrying `responses:read`), or by a workspace credential holding `responses:read`. ' +
    'Also the session’s outcome: `participantCount` and the `leaderboard` (the ten highest scores; null without ' +
    'quiz slides), as the `ended` stream event and the `session.ended` webhook carry them, for as long as the ' +
    'session is kept.',
  auth: 'host',
  scope: 'responses:read',
  hostTokenScopes: ['responses:read'],
  successStatus: 200,
  input: SessionAnswersInput,
  output: SessionResults,
  errors: ['not_found', 'validation_failed', 'invalid_host_token'],
});

export const listSessionParticipants = defineRoute({
  method: 'GET',
  path: '/sessions/{id}/participants',
  tags: ['sessions'],
  summary: 'Participants of a live session, by rank',
  description:
    'Everyone who joined, removed participants included (`removedAt`), ordered by rank (highest score first; equal ' +
    'scores by join order), cursor-paginated: each with its score, rank, slides answered and, self-paced, when it ' +
    'completed. For prizes, grades and syncing scores after the session; scores are those of every answer, ' +
    'whatever the audience was shown. While the session runs, scores move between pages: read the list once it ' +
    'has ended for a stable one. Authorised by the session’s `X-Host-Token` (carrying `responses:read`), or by a ' +
    'workspace credential holding `responses:read`.',
  auth: 'host',
  scope: 'responses:read',
  hostTokenScopes: ['responses:read'],
  successStatus: 200,
  input: ListSessionParticipantsInput,
  output: SessionParticipantList,
  errors: ['not_found', 'validation_failed', 'invalid_host_token'],
});

export const exportSessionResults = defineRoute({
  method: 'GET',
  path: '/sessions/{id}/export',
  tags: ['sessions'],
  summary: 'Export a live session’s results as CSV or XLSX',
  description:
    'As `GET /polls/{id}/export`, of this session alone: the same columns (`Slide, Question, Type, Answer / Label, ' +
    'Count / Value`) and rows, downloaded as `session-<id>-results.csv`, or with `format=xlsx` the same workbook ' +
    '(`session-<id>-results.xlsx`). Pro and Enterprise plans.',
  auth: 'workspace',
  scope: 'export:read',
  plan: 'pro',
  successStatus: 200,
  format: 'file',
  files: resultsFiles,
  input: SessionAnswersInput.extend({ format: ResultsFileFormat }).meta({ id: 'ExportSessionResultsInput' }),
  output: z.string().describe('The CSV document, or the XLSX workbook.'),
  errors: ['not_found', 'validation_failed'],
});

export const resetSessionAnswers = defineRoute({
  method: 'DELETE',
  path: '/sessions/{id}/answers',
  tags: ['sessions'],
  summary: 'Delete a live session’s answers',
  description:
    'Deletes every vote, response and Q&A question given in this session (with their upvotes), in one ' +
    'transaction: the session’s results start again from zero, and the poll’s results lose exactly what the ' +
    'session had added. Other sessions and answers sent through the API are untouched. The session keeps its ' +
    'status and participants, who may answer again. Answers arriving while the reset runs are either deleted ' +
    'with the rest or recorded after it, never half of each. Cannot be undone.',
  auth: 'workspace',
  scope: 'responses:write',
  successStatus: 200,
  input: SessionAnswersInput,
  output: SessionAnswersReset,
  errors: ['not_found', 'validation_failed'],
});
