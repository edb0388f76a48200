import { ParticipantEvent } from '../events.js';
import { defineRoute } from '../route.js';
import { Question } from '../schemas/answers.js';
import {
  JoinChallenge,
  JoinChallengeInput,
  JoinedSession,
  JoinSessionInput,
  LiveAdvanceInput,
  LiveAnswerInput,
  LiveAnswerReceipt,
  LiveEventsInput,
  LiveUpvoteInput,
  ParticipantProgress,
} from '../schemas/live.js';

/** Errors of every participant route: an unknown PIN (404), the per-IP limits (429). */
const participantErrors = ['not_found', 'validation_failed', 'rate_limited'] as const;

/** Errors of the routes a participant acts on the current slide with (its token required). */
const actingErrors = [
  ...participantErrors,
  'missing_authorization',
  'invalid_participant_token',
  'session_not_active',
  'slide_not_active',
  'poll_not_published',
  'poll_closed',
] as const;

export const joinSession = defineRoute({
  method: 'POST',
  path: '/live/{pin}/join',
  tags: ['live'],
  summary: 'Join a live session',
  description:
    'No API key: the audience joins with the PIN, or with a self-paced session’s link id in its place. Answers a ' +
    'participant token and what is on screen (self-paced: the participant’s own slide, the first for a newcomer). ' +
    'Sending a token from an earlier join as `X-Participant-Token` resumes that participant (name, answers, score, ' +
    'place) instead of adding one. Unknown PINs are limited per IP address, so PINs cannot be found by enumeration. ' +
    'A session with `joinChallenge: "pow"` takes a new participant only with the solution of a challenge from ' +
    '`GET /live/{pin}/challenge` as `challenge`: without one, or with a wrong, expired or used one, 422 ' +
    '`challenge_failed` (`details.required: true`).',
  auth: 'participant',
  successStatus: 200,
  input: JoinSessionInput,
  output: JoinedSession,
  errors: [...participantErrors, 'session_full', 'joins_locked', 'content_rejected', 'challenge_failed'],
});

export const joinChallenge = defineRoute({
  method: 'GET',
  path: '/live/{pin}/challenge',
  tags: ['live'],
  summary: 'Get a join challenge',
  description:
    'No API key. A proof-of-work challenge in ALTCHA’s format (SHA-256), bound to the session the PIN (or link id) ' +
    'names and valid for five minutes: find the `number` from 0 to `maxnumber` whose SHA-256 of `salt` + `number` ' +
    'is `challenge`, and send base64 of `{ algorithm, challenge, number, salt, signature }` as the join’s ' +
    '`challenge`. Only a session with `joinChallenge: "pow"` checks it. Each call answers a new challenge; each ' +
    'joins once.',
  auth: 'participant',
  successStatus: 200,
  input: JoinChallengeInput,
  output: JoinChallenge,
  errors: [...participantErrors],
});

export const liveEvents = defineRoute({
  method: 'GET',
  path: '/live/{pin}/events',
  tags: ['live'],
  summary: 'Participant event stream',
  description:
    'Server-Sent Events: the current slide on connect and on every change, results shown and hidden, lock and ' +
    'unlock, the end summary. Send `X-Participant-Token` for your own answered state and rank. Reconnect with ' +
    '`Last-Event-ID` to receive what was missed. Slides never carry `correctOptionIds`. Self-paced, a participant’s ' +
    'stream starts with their own place (`slide`, or `completed`) on every connect and follows their walk.',
  auth: 'participant',
  successStatus: 200,
  format: 'sse',
  input: LiveEventsInput,
  output: ParticipantEvent,
  errors: [...participantErrors, 'invalid_participant_token'],
});

export const answerLive = defineRoute({
  method: 'POST',
  path: '/live/{pin}/answers',
  tags: ['live'],
  summary: 'Answer the current slide',
  description:
    'The answer field of the slide’s kind, as `POST /polls/{id}/votes` and `/responses` take them; it is stored ' +
    'with them (results and CSV export include it). Needs `X-Participant-Token`. Accepts an `Idempotency-Key`. On ' +
    'a quiz slide the answer is timed from the moment the slide went live. Self-paced: the participant’s own ' +
    'slide, and the answer sends them on by the poll’s skip logic (`progress`).',
  auth: 'participant',
  successStatus: 201,
  input: LiveAnswerInput,
  output: LiveAnswerReceipt,
  errors: [
    ...actingErrors,
    'slide_locked',
    'time_up',
    'already_responded',
    'content_rejected',
    'poll_full',
    'idempotency_key_in_use',
    'idempotency_key_reused',
  ],
});

export const advanceLive = defineRoute({
  method: 'POST',
  path: '/live/{pin}/advance',
  tags: ['live'],
  summary: 'Move on in a self-paced session',
  description:
    'Self-paced sessions: moves the participant past their current slide, a content slide or one they skip (a skip ' +
    'counts as not answered for the skip logic), to the slide the poll’s skip logic sends them to, or to the end. ' +
    'Needs `X-Participant-Token`. A presenter-paced session answers 409 `invalid_session_state`.',
  auth: 'participant',
  successStatus: 200,
  input: LiveAdvanceInput,
  output: ParticipantProgress,
  errors: [...actingErrors, 'invalid_session_state'],
});

export const upvoteLive = defineRoute({
  method: 'POST',
  path: '/live/{pin}/questions/{questionId}/upvotes',
  tags: ['live'],
  summary: 'Upvote a question',
  description: 'A question of the current Q&A slide, once per participant. Needs `X-Participant-Token`.',
  auth: 'participant',
  successStatus: 201,
  input: LiveUpvoteInput,
  output: Question,
  errors: [...actingErrors, 'already_upvoted', 'upvotes_disabled'],
});
