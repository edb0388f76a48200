import { defineRoute } from '../route.js';
import {
  ApiKey,
  ApiKeyIdInput,
  ApiKeyList,
  CreateApiKeyInput,
  CreatedApiKey,
  ListApiKeysInput,
  RotateApiKeyInput,
  RotatedApiKey,
} from '../schemas/keys.js';

export const listKeys = defineRoute({
  method: 'GET',
  path: '/keys',
  tags: ['keys'],
  summary: 'List API keys',
  description: "The workspace's API keys, newest first, cursor-paginated. Secrets are never listed.",
  auth: 'workspace',
  scope: 'keys:manage',
  successStatus: 200,
  input: ListApiKeysInput,
  output: ApiKeyList,
  errors: ['validation_failed'],
});

export const createKey = defineRoute({
  method: 'POST',
  path: '/keys',
  tags: ['keys'],
  summary: 'Create an API key',
  description:
    'The response holds the `secret` this once; Pollkit stores only its hash and cannot show it again. `scopes` ' +
    'limits what the key may do (default: every scope). A credential gives a key only scopes it holds itself: ' +
    'asking for another (or, without `scopes`, for every scope) answers 403 `insufficient_scope` with ' +
    '`details.missingScopes`. A key created with an OAuth access token (or by a key so created) is revoked with ' +
    'that OAuth client.',
  auth: 'workspace',
  scope: 'keys:manage',
  successStatus: 201,
  input: CreateApiKeyInput,
  output: CreatedApiKey,
  errors: ['validation_failed', 'insufficient_scope'],
});

export const revokeKey = defineRoute({
  method: 'POST',
  path: '/keys/{id}/revoke',
  tags: ['keys'],
  summary: 'Revoke an API key',
  description:
    'The key answers `401 revoked_api_key` from then on, on every server process within a second. ' +
    'Revoking the key that makes the call is allowed (that call still succeeds); revoking a revoked key ' +
    'changes nothing and returns it as it is. The calling credential must hold every scope of the key it revokes ' +
    '(403 `insufficient_scope` otherwise), as for a rotation.',
  auth: 'workspace',
  effect: 'destroys',
  scope: 'keys:manage',
  successStatus: 200,
  input: ApiKeyIdInput,
  output: ApiKey,
  errors: ['not_found', 'validation_failed', 'insufficient_scope'],
});

export const rotateKey = defineRoute({
  method: 'POST',
  path: '/keys/{id}/rotate',
  tags: ['keys'],
  summary: 'Rotate an API key',
  description:
    'Creates a replacement key (its `secret` is shown this once) and gives the old key `gracePeriodSeconds` ' +
    '(default one day) before it answers `401 expired_api_key`. The answer is the new key, with the old one as ' +
    '`previousKey` (its `expiresAt` says when it stops working). Only an `active` key can be rotated. The new ' +
    'key holds the old one’s `scopes`, so the calling credential must hold them all (403 `insufficient_scope` ' +
    'otherwise).',
  auth: 'workspace',
  effect: 'destroys',
  scope: 'keys:manage',
  successStatus: 201,
  input: RotateApiKeyInput,
  output: RotatedApiKey,
  errors: ['not_found', 'validation_failed', 'key_not_active', 'insufficient_scope'],
});
