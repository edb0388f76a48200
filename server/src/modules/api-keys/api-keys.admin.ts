import { type ApiKey, scopes as knownScopes, type Scope } from '@pollkit/contracts';
import type { Kysely } from 'kysely';
import { invalidField } from '../../core/api-error.js';
import type { ApiKeyRow, Database, WorkspaceRow } from '../../db/schema.js';
import { parseScopes } from '../credentials/credential-scopes.js';
import { createWorkspace, hasWorkspaces } from '../workspaces/workspaces.service.js';
import * as apiKeys from './api-keys.repository.js';
import { assertWorkspaceExists, createApiKey, toApiKey } from './api-keys.service.js';

/**
 * The operator's key use cases (the admin CLI), across workspaces. Creating, revoking and rotating
 * are the same use cases as the API's (api-keys.service.ts) without a workspace scope; what is the
 * operator's own is here.
 */

/** A key as admin tools show it: the API's shape plus the workspace it belongs to. */
export type ApiKeySummary = ApiKey & { workspaceId: string };

export function toApiKeySummary(key: ApiKeyRow, now = new Date()): ApiKeySummary {
  const { id, ...rest } = toApiKey(key, now);
  return { id, workspaceId: key.workspace_id, ...rest };
}

/** Every key of a workspace, oldest first; revoked and expired keys included (their status says so). */
export async function listApiKeys(db: Kysely<Database>, workspaceId: string): Promise<ApiKeyRow[]> {
  await assertWorkspaceExists(db, workspaceId);
  return apiKeys.listApiKeys(db, workspaceId);
}

/**
 * The operator's `keys create`: any scopes, named as a space-separated list (as `oauth clients
 * create --scopes`); without a list, every scope.
 */
export function createOperatorKey(
  db: Kysely<Database>,
  input: { workspaceId: string; name: string; scopes?: string | undefined },
): Promise<{ key: ApiKeyRow; secret: string }> {
  let scopes: Scope[] | undefined;
  if (input.scopes !== undefined) {
    const parsed = parseScopes(input.scopes);
    if (parsed.unknown.length > 0) {
      throw invalidField(
        'scopes',
        `Unknown scope ${parsed.unknown.join(', ')}; the scopes are: ${knownScopes.join(' ')}`,
      );
    }
    if (parsed.scopes.length === 0) {
      throw invalidField('scopes', 'Give the key at least one scope, or leave --scopes out for every scope');
    }
    scopes = parsed.scopes;
  }
  return createApiKey(db, { workspaceId: input.workspaceId, name: input.name, scopes });
}

/** A key's scopes for a table: `all` when it holds every scope, else the list. */
export function describeKeyScopes(key: Pick<ApiKey, 'scopes'>): string {
  return key.scopes.length === knownScopes.length ? 'all' : key.scopes.join(' ');
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
    if (await hasWorkspaces(trx)) return undefined;
    const workspace = await createWorkspace(trx, { name: 'Default workspace', plan: 'enterprise' });
    const { secret } = await createApiKey(trx, { workspaceId: workspace.id, name: 'Bootstrap key' });
    return { workspace, secret };
  });
}
