import type { Plan } from '@pollkit/contracts';
import type { Kysely } from 'kysely';
import { newId } from '../../db/ids.js';
import type { Database, WorkspaceRow } from '../../db/schema.js';
import { createApiKey } from '../api-keys/api-keys.service.js';
import * as workspaces from './workspaces.repository.js';

export function createWorkspace(
  db: Kysely<Database>,
  input: { name: string; plan: Plan; rateLimitPerMinute?: number | null },
): Promise<WorkspaceRow> {
  return workspaces.insertWorkspace(db, {
    id: newId('workspace'),
    name: input.name,
    plan: input.plan,
    rate_limit_per_minute: input.rateLimitPerMinute ?? null,
  });
}

/**
 * First start on an empty database: one workspace on the enterprise plan (every feature) and an
 * API key, so a new user can call the API at once. Returns the key's secret for the one-time
 * display, or undefined when the database already had a workspace.
 */
export async function bootstrapDefaultWorkspace(
  db: Kysely<Database>,
): Promise<{ workspace: WorkspaceRow; secret: string } | undefined> {
  return db.transaction().execute(async (trx) => {
    if ((await workspaces.countWorkspaces(trx)) > 0) return undefined;
    const workspace = await createWorkspace(trx, { name: 'Default workspace', plan: 'enterprise' });
    const { secret } = await createApiKey(trx, { workspaceId: workspace.id, name: 'Bootstrap key' });
    return { workspace, secret };
  });
}
