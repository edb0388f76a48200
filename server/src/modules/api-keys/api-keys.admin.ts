import type { ApiKey } from '@pollkit/contracts';
import type { Kysely } from 'kysely';
import type { ApiKeyRow, Database } from '../../db/schema.js';
import * as apiKeys from './api-keys.repository.js';
import { assertWorkspaceExists, toApiKey } from './api-keys.service.js';

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
