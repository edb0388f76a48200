import { contract } from '@pollkit/contracts';
import { defineHandlers } from '../handler.js';
import * as service from './themes.service.js';

export const themesHandlers = defineHandlers(contract.themes, {
  list: ({ ctx, input }) => service.listThemes(ctx.deps, ctx.credential.workspaceId, input),
  create: ({ ctx, input }) => service.createTheme(ctx.deps, ctx.credential.workspaceId, input),
  get: ({ ctx, input }) => service.getTheme(ctx.deps, ctx.credential.workspaceId, input.id),
  update: ({ ctx, input }) => service.updateTheme(ctx.deps, ctx.credential.workspaceId, input),
  delete: ({ ctx, input }) => service.deleteTheme(ctx.deps, ctx.credential.workspaceId, input.id),
});
