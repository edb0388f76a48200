import { PresenterEvent } from '../events.js';
import { defineRoute } from '../route.js';
import { SvgDocument } from '../schemas/common.js';
import {
  CreatedSession,
  CreateSessionInput,
  GetSessionInput,
  ListSessionsInput,
  Session,
  SessionControlInput,
  SessionEventsInput,
  SessionList,
  SessionQrInput,
} from '../schemas/sessions.js';

export const createSession = defineRoute({
  method: 'POST',
  path: '/sessions',
  tags: ['sessions'],
  summary: 'Create a live session',
  description:
    'Opens a `pending` session of a published poll with a six-digit PIN for the audience. The `hostToken` is shown ' +
    'this once. See docs/live-sessions.md.',
  auth: 'workspace',
  scope: 'sessions:write',
  successStatus: 201,
  input: CreateSessionInput,
  output: CreatedSession,
  errors: ['not_found', 'validation_failed', 'poll_not_published', 'poll_closed'],
});

export const listSessions = defineRoute({
  method: 'GET',
  path: '/sessions',
  tags: ['sessions'],
  summary: 'List live sessions',
  description: 'Newest first, cursor-paginated; filter by `pollId` and `status`.',
  auth: 'workspace',
  scope: 'sessions:read',
  successStatus: 200,
  input: ListSessionsInput,
  output: SessionList,
  errors: ['validation_failed'],
});

export const getSession = defineRoute({
  method: 'GET',
  path: '/sessions/{id}',
  tags: ['sessions'],
  summary: 'Get a live session',
  auth: 'host',
  scope: 'sessions:read',
  successStatus: 200,
  input: GetSessionInput,
  output: Session,
  errors: ['not_found', 'validation_failed', 'invalid_host_token'],
});

export const controlSession = defineRoute({
  method: 'POST',
  path: '/sessions/{id}/control',
  tags: ['sessions'],
  summary: 'Control a live session',
  description:
    '`start`, `next`, `prev`, `goto` (with `slideIndex`), `showResults`, `hideResults`, `lock`, `unlock`, `end`. ' +
    'Answers the session as it now is; participants receive the change on their event stream. An action the ' +
    'session is not in a state for answers 409 `invalid_session_state`; moving outside the deck answers 422. ' +
    'Authorised by a workspace credential or by the session’s `X-Host-Token`.',
  auth: 'host',
  scope: 'sessions:write',
  successStatus: 200,
  input: SessionControlInput,
  output: Session,
  errors: ['not_found', 'validation_failed', 'invalid_host_token', 'invalid_session_state'],
});

export const sessionQrCode = defineRoute({
  method: 'GET',
  path: '/sessions/{id}/qr.svg',
  tags: ['sessions'],
  summary: 'QR code of the join URL',
  description: 'An SVG image of a QR code that encodes the session’s `joinUrl`.',
  auth: 'host',
  scope: 'sessions:read',
  successStatus: 200,
  format: 'svg',
  input: SessionQrInput,
  output: SvgDocument,
  errors: ['not_found', 'validation_failed', 'invalid_host_token'],
});

export const sessionEvents = defineRoute({
  method: 'GET',
  path: '/sessions/{id}/events',
  tags: ['sessions'],
  summary: 'Presenter event stream',
  description:
    'Server-Sent Events: the session on connect and after every control action, and live counts for the current ' +
    'slide (throttled). Reconnect with `Last-Event-ID` to receive what was missed. Authorised by a workspace ' +
    'credential or by the session’s `X-Host-Token`.',
  auth: 'host',
  scope: 'sessions:read',
  successStatus: 200,
  format: 'sse',
  input: SessionEventsInput,
  output: PresenterEvent,
  errors: ['not_found', 'validation_failed', 'invalid_host_token'],
});
