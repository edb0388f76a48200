import { contract } from '@pollkit/contracts';
import { defineHandlers } from '../handler.js';
import * as service from './results.service.js';

export const resultsHandlers = defineHandlers(contract.results, {
  get: ({ ctx, input }) => service.getResults(ctx.deps, ctx.credential.workspaceId, ctx.credential.scopes, input.id),
  export: ({ ctx, input }) => service.exportResults(ctx.deps, ctx.credential.workspaceId, input.id, input.format),
});
