import { z } from 'zod';
import { plans, scopes } from '../scopes.js';
import { resourceId, Timestamp } from './common.js';

export const WorkspaceId = resourceId('ws', 'Workspace id.');

/** The credential a call was made with, as `GET /workspace` describes it. */
export const CallerCredential = z
  .object({
    kind: z
      .enum(['api_key', 'oauth_token'])
      .describe('`api_key`: a workspace API key; `oauth_token`: an OAuth access token.'),
    id: z
      .string()
      .describe(
        "The API key's id (`key_…`), or for an access token the id of the OAuth client it was issued to (`oac_…`).",
      ),
    scopes: z
      .array(z.enum(scopes))
      .describe(
        'What the credential may do: for an API key, the scopes it was created with (every scope unless it was ' +
          'given a list); for an access token, the ones it was granted.',
      ),
    expiresAt: Timestamp.nullable().describe(
      "When the credential stops working: the end of a rotated key's grace period, or of an access token's " +
        'lifetime; `null` for a key that has not been rotated.',
    ),
  })
  .meta({ id: 'CallerCredential' });

export const Workspace = z
  .object({
    id: WorkspaceId,
    name: z.string(),
    plan: z.enum(plans).describe('`pro` and `enterprise` have API access; CSV export needs `pro` or higher.'),
    rateLimitPerMinute: z
      .number()
      .int()
      .min(1)
      .describe(
        "Requests per fixed 60-second window this credential may make: the workspace's own limit, else the " +
          "server's default.",
      ),
    credential: CallerCredential,
  })
  .meta({ id: 'Workspace' });

export const GetWorkspaceInput = z.strictObject({});

// Types of the same names: a request body or query as a client writes it (`z.input`) for `*Input`
// schemas, the value as the API answers it (`z.output`) for the rest.
export type CallerCredential = z.output<typeof CallerCredential>;
export type GetWorkspaceInput = z.input<typeof GetWorkspaceInput>;
export type Workspace = z.output<typeof Workspace>;
export type WorkspaceId = z.output<typeof WorkspaceId>;
