import { contract } from '@pollkit/contracts';
import { defineHandlers } from '../handler.js';
import * as service from './webhooks.service.js';

export const webhooksHandlers = defineHandlers(contract.webhooks, {
  list: ({ ctx, input }) => service.listEndpoints(ctx.deps, ctx.credential.workspaceId, input),
  create: ({ ctx, input }) => service.createEndpoint(ctx.deps, ctx.credential, input),
  get: ({ ctx, input }) => service.getEndpoint(ctx.deps, ctx.credential.workspaceId, input.id),
  update: ({ ctx, input }) => service.updateEndpoint(ctx.deps, ctx.credential, input),
  delete: ({ ctx, input }) => service.deleteEndpoint(ctx.deps, ctx.credential.workspaceId, input.id),
  rotateSecret: ({ ctx, input }) => service.rotateSecret(ctx.deps, ctx.credential, input.id),
  test: ({ ctx, input }) => service.sendTestEvent(ctx.deps, ctx.credential, input.id),
  deliveries: ({ ctx, input }) => service.listDeliveries(ctx.deps, ctx.credential, input),
  delivery: ({ ctx, input }) => service.getDelivery(ctx.deps, ctx.credential, input),
  redeliver: ({ ctx, input }) => service.redeliver(ctx.deps, ctx.credential, input),
  attempts: ({ ctx, input }) => service.listAttempts(ctx.deps, ctx.credential, input),
});
