import { contract } from '@pollkit/contracts';
import { defineHandlers } from '../handler.js';
import * as service from './workspaces.service.js';

export const workspaceHandlers = defineHandlers(contract.workspace, {
  get: ({ ctx }) => service.describeCaller(ctx.deps, ctx.credential),
  update: ({ ctx, input }) => service.updatePageSettings(ctx.deps, ctx.credential, input),
});
