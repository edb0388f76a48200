import { contract } from '@pollkit/contracts';
import { defineHandlers, hostScopes, hostWorkspaceId } from '../handler.js';
import * as rooms from './session-results.service.js';
import * as service from './sessions.service.js';

export const sessionsHandlers = defineHandlers(contract.sessions, {
  create: ({ ctx, input }) => service.createSession(ctx.deps, ctx.credential.workspaceId, ctx.credential.scopes, input),
  list: ({ ctx, input }) => service.listSessions(ctx.deps, ctx.credential.workspaceId, input),
  get: ({ ctx, input }) => service.getSession(ctx.deps, hostWorkspaceId(ctx), input.id),
  update: ({ ctx, input }) => service.updateSession(ctx.deps, hostWorkspaceId(ctx), input),
  removeParticipant: ({ ctx, input }) => service.removeParticipant(ctx.deps, hostWorkspaceId(ctx), input),
  rotateHostToken: ({ ctx, input }) =>
    service.rotateHostToken(ctx.deps, hostWorkspaceId(ctx), hostScopes(ctx), input.id),
  control: ({ ctx, input }) => service.controlSession(ctx.deps, hostWorkspaceId(ctx), input),
  qrCode: ({ ctx, input }) => service.sessionQrCode(ctx.deps, hostWorkspaceId(ctx), input.id),
  deck: ({ ctx, input }) => service.sessionDeck(ctx.deps, hostWorkspaceId(ctx), hostScopes(ctx), input.id),
  questions: ({ ctx, input }) => service.listSessionQuestions(ctx.deps, hostWorkspaceId(ctx), input),
  moderateQuestion: ({ ctx, input }) => service.moderateSessionQuestion(ctx.deps, hostWorkspaceId(ctx), input),
  responses: ({ ctx, input }) => service.listSessionResponses(ctx.deps, hostWorkspaceId(ctx), input),
  moderateResponse: ({ ctx, input }) => service.moderateSessionResponse(ctx.deps, hostWorkspaceId(ctx), input),
  events: ({ ctx, input }) =>
    service.sessionEvents(ctx.deps, hostWorkspaceId(ctx), hostScopes(ctx), input.id, ctx.lastEventId),
  results: ({ ctx, input }) => rooms.getSessionResults(ctx.deps, hostWorkspaceId(ctx), hostScopes(ctx), input.id),
  participants: ({ ctx, input }) => rooms.listSessionParticipants(ctx.deps, hostWorkspaceId(ctx), input),
  export: ({ ctx, input }) => rooms.exportSessionResults(ctx.deps, ctx.credential.workspaceId, input.id, input.format),
  resetAnswers: ({ ctx, input }) => rooms.resetSessionAnswers(ctx.deps, ctx.credential.workspaceId, input.id),
});
