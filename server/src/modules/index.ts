import { answersHandlers, responsesHandlers, votesHandlers } from './answers/answers.handlers.js';
import { keysHandlers } from './api-keys/api-keys.handlers.js';
import { branchingHandlers } from './branching/branching.handlers.js';
import { decksHandlers } from './decks/decks.handlers.js';
import type { ContractHandlers } from './handler.js';
import { liveHandlers } from './live/live.handlers.js';
import { mediaHandlers } from './media/media.handlers.js';
import { pollsHandlers } from './polls/polls.handlers.js';
import { questionsHandlers, responseModerationHandlers } from './questions/questions.handlers.js';
import { respondentsHandlers } from './respondents/respondents.handlers.js';
import { resultsHandlers } from './results/results.handlers.js';
import { sessionsHandlers } from './sessions/sessions.handlers.js';
import { themesHandlers } from './themes/themes.handlers.js';
import { webhooksHandlers } from './webhooks/webhooks.handlers.js';
import { workspaceHandlers } from './workspaces/workspaces.handlers.js';

export type { ContractHandlers, HandlerContext, ModuleDeps } from './handler.js';

/**
 * The handler of every operation of the contract, by group: what the server serves. A group or an
 * operation added to the contract without a handler here is a compile error. server.ts hands this
 * registry to the HTTP app; nothing else reaches into the modules for handlers.
 */
export const handlers: ContractHandlers = {
  polls: { ...pollsHandlers, ...branchingHandlers, ...decksHandlers },
  votes: votesHandlers,
  responses: { ...responsesHandlers, ...responseModerationHandlers },
  respondents: respondentsHandlers,
  answers: answersHandlers,
  results: resultsHandlers,
  questions: questionsHandlers,
  media: mediaHandlers,
  sessions: sessionsHandlers,
  live: liveHandlers,
  keys: keysHandlers,
  webhooks: webhooksHandlers,
  themes: themesHandlers,
  workspace: workspaceHandlers,
};
