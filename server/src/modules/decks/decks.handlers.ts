import type { contract } from '@pollkit/contracts';
import { WithStatus } from '../../core/file-download.js';
import type { GroupHandlers } from '../handler.js';
import * as service from './decks.service.js';

/** The `polls` group's deck files (modules/index.ts joins them to the group). */
export const decksHandlers: Pick<GroupHandlers<typeof contract.polls>, 'import' | 'exportDeck'> = {
  import: async ({ ctx, input }) =>
    input.dryRun
      ? new WithStatus(200, await service.previewImport(ctx.deps, input))
      : service.importDeck(ctx.deps, ctx.credential.workspaceId, input),
  exportDeck: ({ ctx, input }) => service.exportDeck(ctx.deps, ctx.credential.workspaceId, input),
};
