import { contract } from '@pollkit/contracts';
import { implementGroup } from '../../trpc/implement.js';
import * as service from './results.service.js';

export const results = implementGroup('results', contract.results, {
  get: ({ ctx, input }) => service.getResults(ctx.deps, ctx.credential.workspaceId, input.id),
  export: ({ ctx, input }) => service.exportResults(ctx.deps, ctx.credential.workspaceId, input.id),
});
