import { z } from 'zod';
import { plans, scopes } from '../scopes.js';
import { resourceId, Timestamp } from './common.js';
import { Language, LanguageInput } from './language.js';
import { displayText, storableText } from './text.js';
import { ThemeId } from './themes.js';

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
    language: Language.describe(
      "The default language of the workspace's new polls (`en` until set with `PATCH /workspace`).",
    ),
    themeId: ThemeId.nullable().describe(
      "The theme of the pages whose poll and session name none; `null`: Pollkit's own colours.",
    ),
    embedOrigins: z
      .array(z.string())
      .describe(
        'Origins whose pages may show the audience page and presenter screen in a frame (docs/embedding.md); ' +
          'empty: no framing at all.',
      ),
    blockedTerms: z
      .array(z.string())
      .describe('Words and phrases the text filter flags besides its own lists (docs/moderation.md).'),
    allowedTerms: z.array(z.string()).describe('Words and phrases the text filter never flags.'),
  })
  .meta({ id: 'Workspace' });

export const GetWorkspaceInput = z.strictObject({});

/** At most this many embedding origins per workspace. */
export const EMBED_ORIGINS_MAX = 50;

const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['localhost', '127.0.0.1']);

/**
 * An origin allowed to frame the pages: `https://host[:port]`, or for development
 * `http://localhost[:port]` and `http://127.0.0.1[:port]`. Exact (no wildcard, no path); read in
 * URL-canonical form, so `HTTPS://Example.com:443/` is `https://example.com`.
 */
export const EmbedOrigin = z
  .string()
  .max(300)
  .check(storableText)
  .transform((text, ctx) => {
    let url: URL | undefined;
    try {
      url = new URL(text);
    } catch {
      // Refused below.
    }
    const exact =
      url !== undefined &&
      url.username === '' &&
      url.password === '' &&
      url.pathname === '/' &&
      url.search === '' &&
      url.hash === '' &&
      !text.includes('*') &&
      /^[a-z][a-z0-9+.-]*:\/\/[^/?#]+\/?$/i.test(text);
    const allowedScheme =
      url !== undefined &&
      (url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname)));
    if (!url || !exact || !allowedScheme) {
      ctx.addIssue({
        code: 'custom',
        message:
          'An exact origin: `https://host[:port]`, or `http://localhost[:port]` / `http://127.0.0.1[:port]`, ' +
          'with no path, wildcard or credentials',
      });
      return z.NEVER;
    }
    return url.origin;
  });

/** At most this many terms in each of `blockedTerms` and `allowedTerms`. */
export const FILTER_TERMS_MAX = 500;

/** A word or phrase of a workspace's text filter lists. */
export const FilterTerm = displayText().trim().min(1).max(64);

const FilterTerms = z.array(FilterTerm).max(FILTER_TERMS_MAX);

export const UpdateWorkspaceInput = z
  .strictObject({
    embedOrigins: z
      .array(EmbedOrigin)
      .max(EMBED_ORIGINS_MAX)
      .optional()
      .describe(
        'Replaces the list of origins that may frame the pages that belong to this workspace (`/join/{pin}`, ' +
          '`/join/{linkId}`, `/present/{sessionId}`); `[]` forbids framing again.',
      ),
    language: LanguageInput.optional().describe('The default language of new polls.'),
    themeId: ThemeId.nullable().optional().describe("The default theme; `null`: Pollkit's own colours."),
    blockedTerms: FilterTerms.optional().describe(
      `Replaces the words and phrases the text filter flags besides its own lists (at most ${FILTER_TERMS_MAX}, ` +
        'each up to 64 characters; matched as whole words, evasions included).',
    ),
    allowedTerms: FilterTerms.optional().describe(
      `Replaces the words and phrases the text filter never flags (at most ${FILTER_TERMS_MAX}); ` +
        'they win over its lists and over `blockedTerms`.',
    ),
  })
  .refine((input) => Object.values(input).some((value) => value !== undefined), {
    message: 'Send `embedOrigins`, `language`, `themeId`, `blockedTerms`, `allowedTerms`, or several',
  })
  .meta({ id: 'UpdateWorkspaceInput' });

// Types of the same names: a request body or query as a client writes it (`z.input`) for `*Input`
// schemas, the value as the API answers it (`z.output`) for the rest.
export type CallerCredential = z.output<typeof CallerCredential>;
export type GetWorkspaceInput = z.input<typeof GetWorkspaceInput>;
export type UpdateWorkspaceInput = z.input<typeof UpdateWorkspaceInput>;
export type Workspace = z.output<typeof Workspace>;
export type WorkspaceId = z.output<typeof WorkspaceId>;
