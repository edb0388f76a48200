import { z } from 'zod';
import { scopes } from '../scopes.js';
import { ListCursor, ListLimit, pageOf, resourceId, Timestamp } from './common.js';
import { displayText } from './text.js';

export const ApiKeyId = resourceId('key', 'API key id.');

/** Key name length, and rotation grace periods: none at all up to a week. */
export const keyLimits = {
  nameLength: 200,
  defaultGracePeriodSeconds: 86_400,
  maxGracePeriodSeconds: 7 * 86_400,
} as const;

export const ApiKeyStatus = z
  .enum(['active', 'revoked', 'expiring', 'expired'])
  .describe(
    '`active`: works; `expiring`: rotated, works until `expiresAt`; `expired`: rotated and past its grace ' +
      'period (answers `expired_api_key`); `revoked`: answers `revoked_api_key`.',
  )
  .meta({ id: 'ApiKeyStatus' });

export const ApiKey = z
  .object({
    id: ApiKeyId,
    name: z.string().describe('A label to recognise the key by.'),
    prefix: z.string().describe('The first characters of the secret, to recognise a key. Never the secret.'),
    status: ApiKeyStatus,
    scopes: z
      .array(z.enum(scopes))
      .describe(
        'What the key may do, in the order of the scope list. A key created without `scopes` holds every scope, ' +
          'those added in later versions included.',
      ),
    createdAt: Timestamp,
    revokedAt: Timestamp.nullable(),
    expiresAt: Timestamp.nullable().describe('Set by a rotation: the end of the grace period.'),
  })
  .meta({ id: 'ApiKey' });

export const CreatedApiKey = ApiKey.extend({
  secret: z
    .string()
    .describe('The key itself, sent as `Authorization: Bearer <secret>`. Shown this once; only its hash is stored.'),
}).meta({ id: 'CreatedApiKey' });

/** What a rotation answers: the new key with its secret, and the old key with the end of its grace period. */
export const RotatedApiKey = CreatedApiKey.extend({
  previousKey: ApiKey.describe(
    'The rotated key as it now is: `status` `expiring` (or `expired` with a grace period of 0) and `expiresAt`, ' +
      'when it stops working.',
  ),
}).meta({ id: 'RotatedApiKey' });

export const ApiKeyList = pageOf(ApiKey, 'ApiKeyList');

export const ListApiKeysInput = z.strictObject({ limit: ListLimit, cursor: ListCursor });

export const CreateApiKeyInput = z.strictObject({
  name: displayText().trim().min(1).max(keyLimits.nameLength).describe('A label to recognise the key by.'),
  scopes: z
    .array(z.enum(scopes))
    .min(1)
    .max(scopes.length)
    .refine((list) => new Set(list).size === list.length, 'Each scope once')
    .optional()
    .describe(
      'The scopes the key holds; without it, every scope. Only scopes the calling credential holds itself: asking ' +
        'for more answers 403 `insufficient_scope`.',
    ),
});

export const ApiKeyIdInput = z.strictObject({ id: ApiKeyId });

export const RotateApiKeyInput = z.strictObject({
  id: ApiKeyId,
  gracePeriodSeconds: z
    .number()
    .int()
    .min(0)
    .max(keyLimits.maxGracePeriodSeconds)
    .default(keyLimits.defaultGracePeriodSeconds)
    .describe('How long the old key keeps working, in seconds (default one day, at most seven; 0 stops it at once).'),
});

export type ApiKey = z.infer<typeof ApiKey>;
export type CreatedApiKey = z.infer<typeof CreatedApiKey>;
export type RotatedApiKey = z.infer<typeof RotatedApiKey>;

// Types of the same names: a request body or query as a client writes it (`z.input`: defaulted
// fields optional) for `*Input` schemas, the value as the API answers it (`z.output`) for the rest.
export type ApiKeyId = z.output<typeof ApiKeyId>;
export type ApiKeyIdInput = z.input<typeof ApiKeyIdInput>;
export type ApiKeyList = z.output<typeof ApiKeyList>;
export type ApiKeyStatus = z.output<typeof ApiKeyStatus>;
export type CreateApiKeyInput = z.input<typeof CreateApiKeyInput>;
export type ListApiKeysInput = z.input<typeof ListApiKeysInput>;
export type RotateApiKeyInput = z.input<typeof RotateApiKeyInput>;
