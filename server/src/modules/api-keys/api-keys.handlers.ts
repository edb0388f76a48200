import { contract } from '@pollkit/contracts';
import { defineHandlers } from '../handler.js';
import * as service from './api-keys.service.js';

export const keysHandlers = defineHandlers(contract.keys, {
  list: ({ ctx, input }) => service.listWorkspaceKeys(ctx.deps.db, ctx.credential.workspaceId, input),
  create: ({ ctx, input }) => service.createWorkspaceKey(ctx.deps, ctx.credential, input),
  revoke: async ({ ctx, input }) => {
    const { key } = await service.revokeApiKey(ctx.deps, {
      keyId: input.id,
      workspaceId: ctx.credential.workspaceId,
      issuerScopes: ctx.credential.scopes,
    });
    return service.toApiKey(key);
  },
  rotate: async ({ ctx, input }) => {
    const { previous, key, secret } = await service.rotateApiKey(ctx.deps, {
      keyId: input.id,
      workspaceId: ctx.credential.workspaceId,
      gracePeriodSeconds: input.gracePeriodSeconds,
      issuerScopes: ctx.credential.scopes,
    });
    return { ...service.toApiKey(key), secret, previousKey: service.toApiKey(previous) };
  },
});
