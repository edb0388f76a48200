import { defineRoute } from '../route.js';
import {
  CreatePollInput,
  DeletedPoll,
  DuplicatePollInput,
  GetPollInput,
  ListPollsInput,
  Poll,
  PollList,
  UpdatePollInput,
} from '../schemas/polls.js';

/** Saving content resolves its inline media, which can fail as `POST /media` does. */
const mediaErrors = ['media_not_allowed', 'media_fetch_failed', 'media_too_large', 'unsupported_media'] as const;

export const listPolls = defineRoute({
  method: 'GET',
  path: '/polls',
  tags: ['polls'],
  summary: 'List polls',
  description: 'Newest first, cursor-paginated; filter by `status`.',
  auth: 'workspace',
  scope: 'polls:read',
  successStatus: 200,
  input: ListPollsInput,
  output: PollList,
  errors: ['validation_failed'],
});

export const createPoll = defineRoute({
  method: 'POST',
  path: '/polls',
  tags: ['polls'],
  summary: 'Create a poll',
  description:
    'Creates a draft poll. Publish it with `PATCH /polls/{id}` and `publish: true`. Inline `media` on slides ' +
    'and options is resolved as `POST /media` would (images fetched and re-hosted) before anything is saved; a ' +
    'refused media URL fails the request with `details.path` naming it. See docs/media.md.',
  auth: 'workspace',
  reachesOut: true,
  scope: 'polls:write',
  successStatus: 201,
  input: CreatePollInput,
  output: Poll,
  errors: ['validation_failed', ...mediaErrors],
});

export const getPoll = defineRoute({
  method: 'GET',
  path: '/polls/{id}',
  tags: ['polls'],
  summary: 'Get a poll',
  auth: 'workspace',
  scope: 'polls:read',
  successStatus: 200,
  input: GetPollInput,
  output: Poll,
  errors: ['not_found', 'validation_failed'],
});

export const updatePoll = defineRoute({
  method: 'PATCH',
  path: '/polls/{id}',
  tags: ['polls'],
  summary: 'Update, publish or close a poll',
  description:
    '`publish: true` publishes a draft or reopens a closed poll; `publish: false` returns it to draft; ' +
    '`closed: true` closes a published poll. A poll with no slides cannot be published (422 naming ' +
    '`content.questions`). `content` replaces every slide and is refused once the poll has answers ' +
    '(`poll_has_responses`; `DELETE /polls/{id}/answers` deletes them); its inline media is resolved as on `POST /polls`.',
  auth: 'workspace',
  reachesOut: true,
  scope: 'polls:write',
  successStatus: 200,
  input: UpdatePollInput,
  output: Poll,
  errors: ['not_found', 'validation_failed', 'poll_not_published', 'poll_has_responses', ...mediaErrors],
});

export const duplicatePoll = defineRoute({
  method: 'POST',
  path: '/polls/{id}/duplicate',
  tags: ['polls'],
  summary: 'Duplicate a poll',
  description:
    'Creates a draft with the poll’s content (its media included, as stored) and skip logic: a template to ' +
    'present again or change. Nothing of what the poll collected comes with it: no answers, results or sessions.',
  auth: 'workspace',
  scope: 'polls:write',
  successStatus: 201,
  input: DuplicatePollInput,
  output: Poll,
  errors: ['not_found', 'validation_failed'],
});

export const deletePoll = defineRoute({
  method: 'DELETE',
  path: '/polls/{id}',
  tags: ['polls'],
  summary: 'Delete a poll',
  description: 'Deletes the poll with its answers and results. Cannot be undone.',
  auth: 'workspace',
  scope: 'polls:write',
  successStatus: 200,
  input: GetPollInput,
  output: DeletedPoll,
  errors: ['not_found', 'validation_failed'],
});
