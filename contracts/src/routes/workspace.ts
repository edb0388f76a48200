import { defineRoute } from '../route.js';
import { GetWorkspaceInput, UpdateWorkspaceInput, Workspace } from '../schemas/workspace.js';

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

export const updateWorkspace = defineRoute({
  method: 'PATCH',
  path: '/workspace',
  tags: ['workspace'],
  summary: 'Change the workspace’s page settings',
  description:
    'The defaults of the pages the audience and the presenter see: `language` for new polls, `themeId` where a ' +
    'poll and its session name none, and `embedOrigins`, the exact origins whose pages may frame them ' +
    '(docs/embedding.md). A field left out is unchanged; `embedOrigins` replaces the whole list. A `themeId` of ' +
    'another workspace is refused as unknown (422).',
  auth: 'workspace',
  scope: 'workspace:write',
  successStatus: 200,
  input: UpdateWorkspaceInput,
  output: Workspace,
  errors: ['validation_failed'],
});
