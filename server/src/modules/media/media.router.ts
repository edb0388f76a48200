import { contract } from '@pollkit/contracts';
import { implementGroup } from '../../trpc/implement.js';
import { ingestMedia } from './media.service.js';

export const media = implementGroup('media', contract.media, {
  ingest: async ({ ctx, input }) => ({ data: await ingestMedia(ctx.deps, ctx.credential.workspaceId, input) }),
});
