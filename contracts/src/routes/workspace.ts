import { defineRoute } from '../route.js';
import { GetWorkspaceInput, Workspace } from '../schemas/workspace.js';

export const getWorkspace = defineRoute({
  method: 'GET',
  path: '/workspace',
  tags: ['workspace'],
  summary: 'Describe the calling credential and its workspace',
  description:
    'The workspace the credential belongs to (name, plan, effective rate limit) and the credential itself: ' +
    'its kind, id, scopes and when it expires, so an integration can check what a key or token is before ' +
    'relying on it. It needs no scope, so that any valid credential, however narrow, can describe itself; ' +
    'it reveals nothing the credential does not already grant.',
  auth: 'workspace',
  successStatus: 200,
  input: GetWorkspaceInput,
  output: Workspace,
  errors: [],
});
