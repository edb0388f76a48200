import { contract } from '@pollkit/contracts';
import { defineHandlers } from '../handler.js';
import { ingestMedia } from './media.service.js';

export const mediaHandlers = defineHandlers(contract.media, {
  // Media are content-addressed and shared by every workspace: the same bytes are stored once.
  ingest: async ({ ctx, input }) => ({ data: await ingestMedia(ctx.deps, input) }),
});
