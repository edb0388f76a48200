import { resetAnswers } from './routes/answers.js';
import { branchPoll, nextSlide } from './routes/branching.js';
import { exportDeck, importDeck } from './routes/decks.js';
import { createKey, listKeys, revokeKey, rotateKey } from './routes/keys.js';
import { advanceLive, answerLive, joinChallenge, joinSession, liveEvents, upvoteLive } from './routes/live.js';
import { ingestMedia } from './routes/media.js';
import { createPoll, deletePoll, duplicatePoll, getPoll, listPolls, updatePoll } from './routes/polls.js';
import { listQuestions, moderateQuestion, upvoteQuestion } from './routes/questions.js';
import { eraseRespondent, getRespondent } from './routes/respondents.js';
import { createResponse, deleteResponse, listResponses, moderateResponse } from './routes/responses.js';
import { exportResults, getResults } from './routes/results.js';
import {
  controlSession,
  createSession,
  exportSessionResults,
  getSession,
  getSessionResults,
  listSessionParticipants,
  listSessionQuestions,
  listSessionResponses,
  listSessions,
  moderateSessionQuestion,
  moderateSessionResponse,
  removeParticipant,
  resetSessionAnswers,
  rotateHostToken,
  sessionDeck,
  sessionEvents,
  sessionQrCode,
  updateSession,
} from './routes/sessions.js';
import { createTheme, deleteTheme, getTheme, listThemes, updateTheme } from './routes/themes.js';
import { castVote, deleteVote, listVotes } from './routes/votes.js';
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  getWebhookDelivery,
  getWebhookEndpoint,
  listWebhookAttempts,
  listWebhookDeliveries,
  listWebhookEndpoints,
  redeliverWebhook,
  rotateWebhookSecret,
  sendTestWebhook,
  updateWebhookEndpoint,
} from './routes/webhooks.js';
import { getWorkspace, updateWorkspace } from './routes/workspace.js';

export * from './errors.js';
export * from './events.js';
export * from './languages.js';
export * from './route.js';
export { MEDIA_INGEST_REQUESTS_PER_MINUTE } from './routes/media.js';
export * from './schemas/answers.js';
export * from './schemas/branching.js';
export * from './schemas/common.js';
export * from './schemas/decks.js';
export * from './schemas/keys.js';
export * from './schemas/language.js';
export * from './schemas/live.js';
export * from './schemas/media.js';
export * from './schemas/polls.js';
export * from './schemas/respondents.js';
export * from './schemas/results.js';
export * from './schemas/sessions.js';
export * from './schemas/text.js';
export * from './schemas/themes.js';
export * from './schemas/webhooks.js';
export * from './schemas/workspace.js';
export * from './scopes.js';
export * from './validation.js';
export * from './webhook-events.js';

/**
 * Every schema is exported with a TypeScript type of the same name: for a `*Input` schema the
 * input as a client writes it (`z.input`: defaulted fields optional), for every other schema the
 * value as the API answers it (`z.output`). Route files are one per contract group.
 *
 * The whole API: `contract.<group>.<operation>`. The server implements every route in it, the
 * OpenAPI document describes every route in it, and the SDK exposes every route in it as
 * `client.<group>.<operation>()`.
 */
export const contract = {
  polls: {
    list: listPolls,
    create: createPoll,
    get: getPoll,
    update: updatePoll,
    delete: deletePoll,
    duplicate: duplicatePoll,
    branch: branchPoll,
    nextSlide,
    import: importDeck,
    exportDeck,
  },
  votes: {
    cast: castVote,
    list: listVotes,
    delete: deleteVote,
  },
  responses: {
    create: createResponse,
    list: listResponses,
    moderate: moderateResponse,
    delete: deleteResponse,
  },
  respondents: {
    get: getRespondent,
    erase: eraseRespondent,
  },
  answers: {
    reset: resetAnswers,
  },
  results: {
    get: getResults,
    export: exportResults,
  },
  questions: {
    list: listQuestions,
    moderate: moderateQuestion,
    upvote: upvoteQuestion,
  },
  media: {
    ingest: ingestMedia,
  },
  sessions: {
    create: createSession,
    list: listSessions,
    get: getSession,
    update: updateSession,
    control: controlSession,
    participants: listSessionParticipants,
    removeParticipant,
    rotateHostToken,
    qrCode: sessionQrCode,
    events: sessionEvents,
    deck: sessionDeck,
    questions: listSessionQuestions,
    moderateQuestion: moderateSessionQuestion,
    responses: listSessionResponses,
    moderateResponse: moderateSessionResponse,
    results: getSessionResults,
    export: exportSessionResults,
    resetAnswers: resetSessionAnswers,
  },
  live: {
    join: joinSession,
    challenge: joinChallenge,
    events: liveEvents,
    answer: answerLive,
    advance: advanceLive,
    upvote: upvoteLive,
  },
  keys: {
    list: listKeys,
    create: createKey,
    revoke: revokeKey,
    rotate: rotateKey,
  },
  webhooks: {
    list: listWebhookEndpoints,
    create: createWebhookEndpoint,
    get: getWebhookEndpoint,
    update: updateWebhookEndpoint,
    delete: deleteWebhookEndpoint,
    rotateSecret: rotateWebhookSecret,
    test: sendTestWebhook,
    deliveries: listWebhookDeliveries,
    delivery: getWebhookDelivery,
    redeliver: redeliverWebhook,
    attempts: listWebhookAttempts,
  },
  themes: {
    list: listThemes,
    create: createTheme,
    get: getTheme,
    update: updateTheme,
    delete: deleteTheme,
  },
  workspace: {
    get: getWorkspace,
    update: updateWorkspace,
  },
} as const;

export type PollkitContract = typeof contract;
export { errorStatuses, routeTable } from './route-table.js';
