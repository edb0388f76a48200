import type { Plan } from '@pollkit/contracts';
import { ConfigError } from '../config.js';
import { ApiError } from '../core/api-error.js';
import { DataDirInUseError } from '../db/data-dir-lock.js';
import {
  type ApiKeySummary,
  createOperatorKey,
  describeKeyScopes,
  listApiKeys,
  toApiKeySummary,
} from '../modules/api-keys/api-keys.admin.js';
import { revokeApiKey, rotateApiKey } from '../modules/api-keys/api-keys.service.js';
import { holdClientForKey } from '../modules/oauth/oauth.service.js';
import { UnopenableSecretsError } from '../modules/webhooks/secrets-key.js';
import {
  createWorkspace,
  listWorkspaces,
  toWorkspaceSummary,
  updateWorkspace,
  type WorkspaceSummary,
} from '../modules/workspaces/workspaces.service.js';
import { type CommandContext, CREDENTIAL_CACHE_SECONDS, EXIT_FAILURE, EXIT_OK } from './context.js';
import { openCredentialBus } from './credential-bus.js';
import { withDatabase } from './database.js';
import { type CliIo, createOutput, formatTable, formatTime, printable } from './output.js';

/**
 * What each command does, once its command line has parsed. Loaded only when a command runs, so
 * `--help` and usage errors do not pay for loading the database drivers.
 */

/**
 * Runs one command against the database and returns its exit code: 0, or 1 with the reason on
 * stderr (as `{ error: { code, message } }` with --json). Errors no command expects propagate with
 * their stack: they are bugs, and a one-line message would hide where.
 */
export async function execute(
  io: CliIo,
  json: boolean,
  work: (context: CommandContext) => Promise<void>,
): Promise<number> {
  const out = createOutput(json, io.stdout);
  try {
    await withDatabase(
      io.env,
      (db, database, config) =>
        work({
          config,
          db,
          database,
          out,
          openCredentialBus: () => openCredentialBus(io.env, (message) => io.stderr.write(`${message}\n`)),
        }),
      (migrations) => io.stderr.write(`Database schema updated: ${migrations.join(', ')}\n`),
    );
    return EXIT_OK;
  } catch (error) {
    const failure = describeFailure(error);
    if (!failure) throw error;
    io.stderr.write(json ? `${JSON.stringify({ error: failure })}\n` : `error: ${failure.message}\n`);
    return EXIT_FAILURE;
  }
}

export async function createWorkspaceCommand(
  { db, out }: CommandContext,
  options: { name: string; plan: Plan; rateLimit?: number },
): Promise<void> {
  const workspace = toWorkspaceSummary(
    await createWorkspace(db, { name: options.name, plan: options.plan, rateLimitPerMinute: options.rateLimit }),
  );
  out.result(workspace);
  out.line(`Created workspace ${workspace.id}: ${describeWorkspace(workspace)}.`);
  out.line('Give it an API key with:');
  out.line(`  pollkit keys create --workspace ${workspace.id}`);
}

export async function listWorkspacesCommand({ db, database, out }: CommandContext): Promise<void> {
  const workspaces = (await listWorkspaces(db)).map(toWorkspaceSummary);
  out.result(workspaces);
  if (workspaces.length === 0) {
    // Naming the database answers the usual surprise: a different DATA_DIR or DATABASE_URL.
    out.line(`No workspaces in ${database.description}.`);
    out.line('Create one with: pollkit workspaces create --name <name> --plan pro');
    return;
  }
  out.line(
    formatTable(
      ['ID', 'NAME', 'PLAN', 'RATE LIMIT', 'CREATED'],
      workspaces.map((w) => [w.id, printable(w.name), w.plan, describeRateLimit(w), formatTime(w.createdAt)]),
    ),
  );
}

export async function updateWorkspaceCommand(
  { db, out }: CommandContext,
  workspaceId: string,
  options: { name?: string; plan?: Plan; rateLimit?: number | 'default' },
): Promise<void> {
  const workspace = toWorkspaceSummary(
    await updateWorkspace(db, workspaceId, {
      name: options.name,
      plan: options.plan,
      rateLimitPerMinute: options.rateLimit === 'default' ? null : options.rateLimit,
    }),
  );
  out.result(workspace);
  out.line(`Updated workspace ${workspace.id}: ${describeWorkspace(workspace)}.`);
  out.line(`Running servers apply the change within ${CREDENTIAL_CACHE_SECONDS} seconds (they cache credentials).`);
}

export async function createKeyCommand(
  { db, out }: CommandContext,
  options: { workspace: string; name: string; scopes?: string },
): Promise<void> {
  const { key, secret } = await createOperatorKey(db, {
    workspaceId: options.workspace,
    name: options.name,
    scopes: options.scopes,
  });
  const summary = toApiKeySummary(key);
  out.result({ ...summary, secret });
  out.line(`Created API key ${summary.id} "${printable(summary.name)}" for workspace ${summary.workspaceId}.`);
  out.line(`Scopes: ${describeKeyScopes(summary)}`);
  out.line();
  out.line(`  ${secret}`);
  out.line();
  out.line('This secret is shown once: copy it now. Pollkit stores only its hash and cannot show it again;');
  out.line('if it is lost, revoke the key and create another. Send it as `Authorization: Bearer <secret>`.');
}

export async function listKeysCommand({ db, out }: CommandContext, options: { workspace: string }): Promise<void> {
  const keys = (await listApiKeys(db, options.workspace)).map((key) => toApiKeySummary(key));
  out.result(keys);
  if (keys.length === 0) {
    out.line(`Workspace ${options.workspace} has no API keys.`);
    out.line(`Create one with: pollkit keys create --workspace ${options.workspace}`);
    return;
  }
  out.line(
    formatTable(
      ['ID', 'NAME', 'PREFIX', 'CREATED', 'STATUS', 'SCOPES'],
      keys.map((k) => [
        k.id,
        printable(k.name),
        `${k.prefix}…`,
        formatTime(k.createdAt),
        describeStatus(k),
        describeKeyScopes(k),
      ]),
    ),
  );
}

export async function revokeKeyCommand({ db, out, openCredentialBus }: CommandContext, keyId: string): Promise<void> {
  const bus = await openCredentialBus();
  let revoked: Awaited<ReturnType<typeof revokeApiKey>>;
  try {
    revoked = await revokeApiKey({ db, invalidation: bus.invalidation }, { keyId });
  } finally {
    await bus.close();
  }
  const { key, alreadyRevoked } = revoked;
  const summary = toApiKeySummary(key);
  if (alreadyRevoked) {
    out.result({ ...summary, alreadyRevoked, credentialCacheSeconds: CREDENTIAL_CACHE_SECONDS });
    out.line(`API key ${summary.id} was already revoked (${formatTime(summary.revokedAt ?? '')}); nothing changed.`);
    return;
  }
  const reachedServers = bus.reachesServers;
  out.result({ ...summary, alreadyRevoked, credentialCacheSeconds: CREDENTIAL_CACHE_SECONDS, reachedServers });
  out.line(`Revoked API key ${summary.id} "${printable(summary.name)}" of workspace ${summary.workspaceId}.`);
  out.line(
    reachedServers
      ? 'Running servers were told through Redis: it answers 401 revoked_api_key everywhere within a second.'
      : `Running servers may accept it for up to ${CREDENTIAL_CACHE_SECONDS} more seconds (they cache credentials); ` +
          'after that it answers 401 revoked_api_key.',
  );
}

export async function rotateKeyCommand(
  { db, out, openCredentialBus }: CommandContext,
  keyId: string,
  options: { grace: number },
): Promise<void> {
  const bus = await openCredentialBus();
  let rotated: Awaited<ReturnType<typeof rotateApiKey>>;
  try {
    rotated = await rotateApiKey(
      // The replacement of a key an OAuth client made is held against the client's revocation.
      { db, invalidation: bus.invalidation, oauthClients: { holdClientForKey } },
      { keyId, gracePeriodSeconds: options.grace },
    );
  } finally {
    await bus.close();
  }
  const previous = toApiKeySummary(rotated.previous);
  const replacement = toApiKeySummary(rotated.key);
  out.result({ ...replacement, secret: rotated.secret, previous, reachedServers: bus.reachesServers });
  out.line(`Rotated API key ${previous.id} "${printable(previous.name)}" of workspace ${previous.workspaceId}.`);
  out.line(`Its replacement is ${replacement.id}, with the same scopes (${describeKeyScopes(replacement)}):`);
  out.line();
  out.line(`  ${rotated.secret}`);
  out.line();
  out.line('This secret is shown once: copy it now. Pollkit stores only its hash and cannot show it again.');
  const expiresAt = formatTime(previous.expiresAt ?? '');
  out.line(
    options.grace === 0
      ? `The old key answers 401 expired_api_key from now on${bus.reachesServers ? '' : ` (running servers may accept it for up to ${CREDENTIAL_CACHE_SECONDS} more seconds)`}.`
      : `The old key keeps working until ${expiresAt}, then answers 401 expired_api_key.`,
  );
}

function describeRateLimit(workspace: WorkspaceSummary): string {
  return workspace.rateLimitPerMinute === null ? 'default' : `${workspace.rateLimitPerMinute}/min`;
}

function describeWorkspace(workspace: WorkspaceSummary): string {
  const limit =
    workspace.rateLimitPerMinute === null
      ? 'the server’s default rate limit'
      : `a rate limit of ${workspace.rateLimitPerMinute} requests per minute`;
  return `"${printable(workspace.name)}", ${workspace.plan} plan, ${limit}`;
}

function describeStatus(key: ApiKeySummary): string {
  if (key.status === 'expiring' && key.expiresAt) return `expiring (${formatTime(key.expiresAt)})`;
  return key.status;
}

/** The failures a command reports as a message (code + text); undefined for anything else. */
function describeFailure(error: unknown): { code: string; message: string } | undefined {
  if (error instanceof ApiError) return { code: error.code, message: error.message };
  if (error instanceof ConfigError) return { code: 'invalid_config', message: error.message };
  if (error instanceof DataDirInUseError) return { code: 'database_in_use', message: error.message };
  if (error instanceof UnopenableSecretsError) return { code: error.code, message: error.message };
  if (isConnectionError(error)) {
    return { code: 'database_unavailable', message: `Cannot reach the database: ${connectionErrorText(error)}` };
  }
  return undefined;
}

type ErrnoLike = Error & { code?: string; errors?: unknown[] };

/** Network failures, and PostgreSQL's "wrong password" and "no such database". */
const connectionErrorCodes = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'ECONNRESET',
  'EHOSTUNREACH',
  '28P01',
  '28000',
  '3D000',
]);

function isConnectionError(error: unknown): error is ErrnoLike {
  return error instanceof Error && connectionErrorCodes.has((error as ErrnoLike).code ?? '');
}

/** Node reports a refused connection to a dual-stack host as an AggregateError with no message. */
function connectionErrorText(error: ErrnoLike): string {
  if (error.message) return error.message;
  const inner = (error.errors ?? []).map((e) => (e instanceof Error ? e.message : String(e))).filter(Boolean);
  return inner.length > 0 ? inner.join('; ') : (error.code ?? 'connection failed');
}
