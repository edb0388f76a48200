import {
  type Plan,
  type SupportedLanguage,
  scopes,
  type UpdateWorkspaceInput,
  type Workspace,
} from '@pollkit/contracts';
import type { Kysely, Updateable } from 'kysely';
import type { z } from 'zod';
import type { Config } from '../../config.js';
import { ApiError, invalidField } from '../../core/api-error.js';
import { newId } from '../../db/ids.js';
import type { Database, WorkspaceRow, WorkspacesTable } from '../../db/schema.js';
import { naming } from '../../db/theme-reference.js';
import type { WorkspaceCredential } from '../credentials/workspace-credential.js';
import * as workspaces from './workspaces.repository.js';

type Db = Kysely<Database>;

/** What `GET /workspace` needs: the database, and the server's default rate limit. */
export interface WorkspacesDeps {
  db: Db;
  /**
   * `PATCH /workspace` invalidates the workspace's compiled filter lists (the moderation module's
   * FilterTermsCache, which reads the lists through `storedFilterTerms` below: named by what it
   * does, so this module does not depend on moderation).
   */
  filterTerms: { invalidate(workspaceId: string): Promise<void> };
  config: Pick<Config, 'RATE_LIMIT_PER_MINUTE'>;
}

/**
 * `GET /workspace`: the caller's workspace and credential. Plan, limit and scopes are the ones the
 * authenticated credential carries, i.e. what this very request was checked against (and what its
 * `X-RateLimit-Limit` says); a change made a moment ago reaches them within the credential cache's
 * few seconds. The name is read from the database.
 */
export async function describeCaller(deps: WorkspacesDeps, credential: WorkspaceCredential): Promise<Workspace> {
  const workspace = await workspaces.findWorkspace(deps.db, credential.workspaceId);
  if (!workspace) {
    // Deleted while the credential sat in the cache: the next request answers this anyway.
    throw credential.kind === 'api_key'
      ? new ApiError('invalid_api_key', 'The API key is unknown or incorrect')
      : new ApiError('invalid_oauth_token', 'The OAuth access token is unknown');
  }
  const held = credential.scopes;
  return {
    id: workspace.id,
    name: workspace.name,
    plan: credential.plan,
    rateLimitPerMinute: credential.rateLimitPerMinute ?? deps.config.RATE_LIMIT_PER_MINUTE,
    credential: {
      kind: credential.kind,
      id: credential.id,
      // In the contract's order, so the list reads the same for every credential.
      scopes: held === 'all' ? [...scopes] : scopes.filter((scope) => held.has(scope)),
      expiresAt: credential.expiresAt?.toISOString() ?? null,
    },
    language: workspace.language,
    themeId: workspace.theme_id,
    embedOrigins: workspace.embed_origins,
    blockedTerms: workspace.blocked_terms,
    allowedTerms: workspace.allowed_terms,
  };
}

/**
 * `PATCH /workspace`: the pages' defaults (language, theme), the origins that may frame them and the
 * text filter's own terms.
 * Answers as `GET /workspace` does, with the change.
 */
export async function updatePageSettings(
  deps: WorkspacesDeps,
  credential: WorkspaceCredential,
  input: z.output<typeof UpdateWorkspaceInput>,
): Promise<Workspace> {
  const changes: Updateable<WorkspacesTable> = {};
  if (input.language !== undefined) changes.language = input.language;
  if (input.themeId !== undefined) changes.theme_id = input.themeId;
  // Each origin once, in the order given.
  if (input.embedOrigins !== undefined) changes.embed_origins = JSON.stringify([...new Set(input.embedOrigins)]);
  // Each term once (compared as the filter reads them: case aside), in the order given.
  if (input.blockedTerms !== undefined) changes.blocked_terms = JSON.stringify(distinctTerms(input.blockedTerms));
  if (input.allowedTerms !== undefined) changes.allowed_terms = JSON.stringify(distinctTerms(input.allowedTerms));
  await naming(input.themeId, () => workspaces.updateWorkspace(deps.db, credential.workspaceId, changes));
  if (input.blockedTerms !== undefined || input.allowedTerms !== undefined) {
    await deps.filterTerms.invalidate(credential.workspaceId);
  }
  return describeCaller(deps, credential);
}

function distinctTerms(terms: readonly string[]): string[] {
  const seen = new Set<string>();
  return terms.filter((term) => {
    const key = term.toLocaleLowerCase('und');
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The language a new poll of the workspace gets when it names none. */
export async function workspaceLanguage({ db }: { db: Db }, workspaceId: string): Promise<SupportedLanguage> {
  return (await workspaces.findWorkspace(db, workspaceId))?.language ?? 'en';
}

const WORKSPACE_NAME_MAX_LENGTH = 200;
/** Far above any real need, and well inside the `integer` column. */
const RATE_LIMIT_OVERRIDE_MAX = 1_000_000;

/** A workspace as admin tools show it (camelCase, ISO dates). */
export interface WorkspaceSummary {
  id: string;
  name: string;
  plan: Plan;
  /** Requests per minute per credential; null = the server's default (RATE_LIMIT_PER_MINUTE). */
  rateLimitPerMinute: number | null;
  createdAt: string;
}

export function toWorkspaceSummary(row: WorkspaceRow): WorkspaceSummary {
  return {
    id: row.id,
    name: row.name,
    plan: row.plan,
    rateLimitPerMinute: row.rate_limit_per_minute,
    createdAt: row.created_at.toISOString(),
  };
}

/**
 * Rules every workspace obeys, checked on create and on update: a non-blank name, and a rate-limit
 * override only on the Enterprise plan (the spec: "Enterprise customers can request higher limits").
 */
function checkWorkspace(workspace: { id?: string; name: string; plan: Plan; rateLimitPerMinute: number | null }) {
  if (workspace.name.trim().length === 0) throw invalidField('name', 'The workspace name must not be blank');
  if (workspace.name.length > WORKSPACE_NAME_MAX_LENGTH) {
    throw invalidField('name', `The workspace name is longer than ${WORKSPACE_NAME_MAX_LENGTH} characters`);
  }
  const limit = workspace.rateLimitPerMinute;
  if (limit === null) return;
  if (!Number.isInteger(limit) || limit < 1 || limit > RATE_LIMIT_OVERRIDE_MAX) {
    throw invalidField(
      'rateLimitPerMinute',
      `The rate limit must be a whole number of requests per minute from 1 to ${RATE_LIMIT_OVERRIDE_MAX}`,
    );
  }
  if (workspace.plan !== 'enterprise') {
    const which = workspace.id ? `workspace ${workspace.id}` : 'the workspace';
    throw invalidField(
      'rateLimitPerMinute',
      `Rate-limit overrides are an Enterprise feature, and ${which} is on the ${workspace.plan} plan`,
    );
  }
}

export function createWorkspace(
  db: Db,
  input: { name: string; plan: Plan; rateLimitPerMinute?: number | null },
): Promise<WorkspaceRow> {
  const rateLimitPerMinute = input.rateLimitPerMinute ?? null;
  checkWorkspace({ name: input.name, plan: input.plan, rateLimitPerMinute });
  return workspaces.insertWorkspace(db, {
    id: newId('workspace'),
    name: input.name,
    plan: input.plan,
    rate_limit_per_minute: rateLimitPerMinute,
  });
}

/** Oldest first (ids sort by creation time). */
export function listWorkspaces(db: Db): Promise<WorkspaceRow[]> {
  return workspaces.listWorkspaces(db);
}

/** The workspace, read with `db` (a transaction of the caller's, or the database). */
export function findWorkspace(db: Db, id: string): Promise<WorkspaceRow | undefined> {
  return workspaces.findWorkspace(db, id);
}

/**
 * Locks the workspace's row in the caller's transaction: a use case that counts the workspace's rows
 * of some kind before adding one (webhook endpoints) then counts alone.
 */
export function lockWorkspace(trx: Db, id: string): Promise<void> {
  return workspaces.lockWorkspace(trx, id);
}

/** The workspace's own terms for the text filter (modules/moderation compiles and caches them). */
export function storedFilterTerms(db: Db, workspaceId: string): Promise<workspaces.StoredFilterTerms | undefined> {
  return workspaces.findFilterTerms(db, workspaceId);
}

/** Switches OAuth client credentials on or off for the workspace (modules/oauth decides who may). */
export function setOAuthEnabled(db: Db, workspaceId: string, enabled: boolean): Promise<WorkspaceRow | undefined> {
  return workspaces.setOAuthEnabled(db, workspaceId, enabled);
}

/**
 * What checking a credential reads of its workspace (id, plan, rate limit, OAuth switch), as a
 * subquery the api-keys and oauth lookups join (one statement, as a join on workspaces itself).
 */
export function workspaceAccess(db: Db) {
  return workspaces.workspaceAccess(db);
}

/** What a page reads of its workspace (id, default theme, embedding origins), as a subquery the pages join. */
export function workspacePageSettings(db: Db) {
  return workspaces.workspacePageSettings(db);
}

/** Whether the database has any workspace yet (a first start has none). */
export async function hasWorkspaces(db: Db): Promise<boolean> {
  return (await workspaces.countWorkspaces(db)) > 0;
}

function workspaceNotFound(id: string): ApiError {
  return new ApiError('not_found', `Workspace ${id} not found`);
}

/**
 * Changes any of name, plan and rate-limit override (`null` returns to the server default). The
 * result must obey the workspace rules, so moving an Enterprise workspace with an override to
 * another plan is refused unless the override is dropped in the same update: silently keeping or
 * dropping a limit someone asked for would both surprise. Running servers cache a key's workspace
 * plan and limit for up to 5 seconds, so a change reaches them within that time.
 */
export function updateWorkspace(
  db: Db,
  id: string,
  changes: { name?: string; plan?: Plan; rateLimitPerMinute?: number | null },
): Promise<WorkspaceRow> {
  return db.transaction().execute(async (trx) => {
    const current = await workspaces.findWorkspaceForUpdate(trx, id);
    if (!current) throw workspaceNotFound(id);
    const next = {
      id,
      name: changes.name ?? current.name,
      plan: changes.plan ?? current.plan,
      rateLimitPerMinute:
        changes.rateLimitPerMinute === undefined ? current.rate_limit_per_minute : changes.rateLimitPerMinute,
    };
    if (changes.rateLimitPerMinute === undefined && next.rateLimitPerMinute !== null && next.plan !== 'enterprise') {
      throw invalidField(
        'plan',
        `Workspace ${id} has a rate-limit override of ${next.rateLimitPerMinute} requests per minute, which only ` +
          `Enterprise workspaces may have; drop the override in the same update to move it to the ${next.plan} plan`,
      );
    }
    checkWorkspace(next);
    const updated = await workspaces.updateWorkspace(trx, id, {
      name: next.name,
      plan: next.plan,
      rate_limit_per_minute: next.rateLimitPerMinute,
    });
    if (!updated) throw workspaceNotFound(id);
    return updated;
  });
}
