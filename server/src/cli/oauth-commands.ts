import {
  createClient,
  enableOAuth,
  listClients,
  revokeClient,
  toClientSummary,
} from '../modules/oauth/oauth.service.js';
import { type CommandContext, CREDENTIAL_CACHE_SECONDS } from './context.js';
import { formatTable, formatTime, printable } from './output.js';

/** What the `pollkit oauth …` commands do (oauth-program.ts declares their command lines). */

export async function enableOAuthCommand({ db, out }: CommandContext, workspaceId: string): Promise<void> {
  await enableOAuth(db, workspaceId);
  out.result({ workspaceId, oauthEnabled: true });
  out.line(`OAuth client credentials are enabled for workspace ${workspaceId}.`);
  out.line('Create a client with:');
  out.line(`  pollkit oauth clients create --workspace ${workspaceId} --name <name> --scopes "polls:read"`);
}

export async function createClientCommand(
  { db, out }: CommandContext,
  options: { workspace: string; name: string; scopes: string },
): Promise<void> {
  const { client, secret } = await createClient(db, {
    workspaceId: options.workspace,
    name: options.name,
    scopes: options.scopes,
  });
  const summary = toClientSummary(client);
  out.result({ ...summary, clientSecret: secret });
  out.line(`Created OAuth client "${printable(summary.name)}" for workspace ${summary.workspaceId}.`);
  out.line(`Allowed scopes: ${summary.allowedScopes.join(' ')}`);
  out.line();
  out.line(`  client_id:     ${summary.clientId}`);
  out.line(`  client_secret: ${secret}`);
  out.line();
  out.line('The secret is shown once: copy it now. Pollkit stores only its hash and cannot show it again;');
  out.line('if it is lost, revoke the client and create another. Exchange the pair for an access token at');
  out.line('POST /api/oauth/token (grant_type=client_credentials).');
}

export async function listClientsCommand({ db, out }: CommandContext, options: { workspace: string }): Promise<void> {
  const clients = (await listClients(db, options.workspace)).map(toClientSummary);
  out.result(clients);
  if (clients.length === 0) {
    out.line(`Workspace ${options.workspace} has no OAuth clients.`);
    out.line(`Create one with: pollkit oauth clients create --workspace ${options.workspace} --name <name> --scopes …`);
    return;
  }
  out.line(
    formatTable(
      ['CLIENT ID', 'NAME', 'SCOPES', 'CREATED', 'STATUS'],
      clients.map((c) => [c.clientId, printable(c.name), c.allowedScopes.join(' '), formatTime(c.createdAt), c.status]),
    ),
  );
}

export async function revokeClientCommand(
  { db, out, openCredentialBus }: CommandContext,
  clientId: string,
): Promise<void> {
  const bus = await openCredentialBus();
  let result: Awaited<ReturnType<typeof revokeClient>>;
  try {
    result = await revokeClient({ db, invalidation: bus.invalidation }, clientId);
  } finally {
    await bus.close();
  }
  const summary = toClientSummary(result.client);
  const { revokedKeys } = result;
  out.result({ ...summary, alreadyRevoked: result.alreadyRevoked, revokedKeys, reachedServers: bus.reachesServers });
  const keys = `${revokedKeys} API ${revokedKeys === 1 ? 'key' : 'keys'}`;
  if (result.alreadyRevoked && revokedKeys === 0) {
    out.line(`OAuth client ${clientId} was already revoked (${formatTime(summary.revokedAt ?? '')}); nothing changed.`);
    return;
  }
  out.line(
    result.alreadyRevoked
      ? `OAuth client ${clientId} was already revoked; revoked ${keys} it had created.`
      : `Revoked OAuth client ${clientId} "${printable(summary.name)}" of workspace ${summary.workspaceId}, ` +
          `and ${keys} created with its tokens.`,
  );
  out.line(
    bus.reachesServers
      ? 'Running servers were told through Redis: its tokens answer 401 invalid_oauth_token, and its keys 401 ' +
          'revoked_api_key, everywhere at once.'
      : `Running servers may accept its tokens and keys for up to ${CREDENTIAL_CACHE_SECONDS} more seconds (they ` +
          'cache credentials); after that they answer 401 invalid_oauth_token and revoked_api_key.',
  );
  out.line('It can no longer get tokens: POST /api/oauth/token answers access_denied.');
}
