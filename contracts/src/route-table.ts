// Generated from `contract` (index.ts) by server/src/openapi/route-table.ts: do not edit.
// `npx -y pnpm@10 generate` rewrites it; `pnpm check` fails when it is stale.
import type { RouteHead } from './route.js';

/** Each operation of `contract` as its HTTP shape alone (see {@link RouteHead}): no zod in it. */
export const routeTable = {
  polls: {
    list: { method: 'GET', path: '/polls', successStatus: 200, auth: 'workspace' },
    create: { method: 'POST', path: '/polls', successStatus: 201, auth: 'workspace' },
    get: { method: 'GET', path: '/polls/{id}', successStatus: 200, auth: 'workspace' },
    update: { method: 'PATCH', path: '/polls/{id}', successStatus: 200, auth: 'workspace' },
    delete: { method: 'DELETE', path: '/polls/{id}', successStatus: 200, auth: 'workspace' },
    duplicate: { method: 'POST', path: '/polls/{id}/duplicate', successStatus: 201, auth: 'workspace' },
    branch: { method: 'POST', path: '/polls/{id}/branch', successStatus: 200, auth: 'workspace' },
    nextSlide: { method: 'GET', path: '/polls/{id}/next-slide', successStatus: 200, auth: 'workspace' },
  },
  votes: {
    cast: { method: 'POST', path: '/polls/{id}/votes', successStatus: 201, auth: 'workspace' },
    list: { method: 'GET', path: '/polls/{id}/votes', successStatus: 200, auth: 'workspace' },
    delete: { method: 'DELETE', path: '/polls/{id}/votes/{voteId}', successStatus: 200, auth: 'workspace' },
  },
  responses: {
    create: { method: 'POST', path: '/polls/{id}/responses', successStatus: 201, auth: 'workspace' },
    list: { method: 'GET', path: '/polls/{id}/responses', successStatus: 200, auth: 'workspace' },
    delete: { method: 'DELETE', path: '/polls/{id}/responses/{responseId}', successStatus: 200, auth: 'workspace' },
  },
  respondents: {
    get: { method: 'GET', path: '/respondents/{id}', successStatus: 200, auth: 'workspace' },
    erase: { method: 'DELETE', path: '/respondents/{id}', successStatus: 200, auth: 'workspace' },
  },
  answers: {
    reset: { method: 'DELETE', path: '/polls/{id}/answers', successStatus: 200, auth: 'workspace' },
  },
  results: {
    get: { method: 'GET', path: '/polls/{id}/results', successStatus: 200, auth: 'workspace' },
    export: { method: 'GET', path: '/polls/{id}/export', successStatus: 200, auth: 'workspace', format: 'csv' },
  },
  questions: {
    list: { method: 'GET', path: '/polls/{id}/questions', successStatus: 200, auth: 'workspace' },
    moderate: { method: 'PATCH', path: '/polls/{id}/questions/{questionId}', successStatus: 200, auth: 'workspace' },
    upvote: { method: 'POST', path: '/polls/{id}/questions/{questionId}/upvotes', successStatus: 201, auth: 'workspace' },
  },
  media: {
    ingest: { method: 'POST', path: '/media', successStatus: 201, auth: 'workspace' },
  },
  sessions: {
    create: { method: 'POST', path: '/sessions', successStatus: 201, auth: 'workspace' },
    list: { method: 'GET', path: '/sessions', successStatus: 200, auth: 'workspace' },
    get: { method: 'GET', path: '/sessions/{id}', successStatus: 200, auth: 'host' },
    update: { method: 'PATCH', path: '/sessions/{id}', successStatus: 200, auth: 'host' },
    control: { method: 'POST', path: '/sessions/{id}/control', successStatus: 200, auth: 'host' },
    participants: { method: 'GET', path: '/sessions/{id}/participants', successStatus: 200, auth: 'host' },
    removeParticipant: { method: 'DELETE', path: '/sessions/{id}/participants/{participantId}', successStatus: 200, auth: 'host' },
    rotateHostToken: { method: 'POST', path: '/sessions/{id}/host-token', successStatus: 200, auth: 'host' },
    qrCode: { method: 'GET', path: '/sessions/{id}/qr.svg', successStatus: 200, auth: 'host', format: 'svg' },
    events: { method: 'GET', path: '/sessions/{id}/events', successStatus: 200, auth: 'host', format: 'sse' },
    deck: { method: 'GET', path: '/sessions/{id}/deck', successStatus: 200, auth: 'host' },
    questions: { method: 'GET', path: '/sessions/{id}/questions', successStatus: 200, auth: 'host' },
    moderateQuestion: { method: 'PATCH', path: '/sessions/{id}/questions/{questionId}', successStatus: 200, auth: 'host' },
    results: { method: 'GET', path: '/sessions/{id}/results', successStatus: 200, auth: 'host' },
    export: { method: 'GET', path: '/sessions/{id}/export', successStatus: 200, auth: 'workspace', format: 'csv' },
    resetAnswers: { method: 'DELETE', path: '/sessions/{id}/answers', successStatus: 200, auth: 'workspace' },
  },
  live: {
    join: { method: 'POST', path: '/live/{pin}/join', successStatus: 200, auth: 'participant' },
    events: { method: 'GET', path: '/live/{pin}/events', successStatus: 200, auth: 'participant', format: 'sse' },
    answer: { method: 'POST', path: '/live/{pin}/answers', successStatus: 201, auth: 'participant' },
    advance: { method: 'POST', path: '/live/{pin}/advance', successStatus: 200, auth: 'participant' },
    upvote: { method: 'POST', path: '/live/{pin}/questions/{questionId}/upvotes', successStatus: 201, auth: 'participant' },
  },
  keys: {
    list: { method: 'GET', path: '/keys', successStatus: 200, auth: 'workspace' },
    create: { method: 'POST', path: '/keys', successStatus: 201, auth: 'workspace' },
    revoke: { method: 'POST', path: '/keys/{id}/revoke', successStatus: 200, auth: 'workspace' },
    rotate: { method: 'POST', path: '/keys/{id}/rotate', successStatus: 201, auth: 'workspace' },
  },
  webhooks: {
    list: { method: 'GET', path: '/webhooks', successStatus: 200, auth: 'workspace' },
    create: { method: 'POST', path: '/webhooks', successStatus: 201, auth: 'workspace' },
    get: { method: 'GET', path: '/webhooks/{id}', successStatus: 200, auth: 'workspace' },
    update: { method: 'PATCH', path: '/webhooks/{id}', successStatus: 200, auth: 'workspace' },
    delete: { method: 'DELETE', path: '/webhooks/{id}', successStatus: 200, auth: 'workspace' },
    rotateSecret: { method: 'POST', path: '/webhooks/{id}/rotate-secret', successStatus: 200, auth: 'workspace' },
    test: { method: 'POST', path: '/webhooks/{id}/test', successStatus: 202, auth: 'workspace' },
    deliveries: { method: 'GET', path: '/webhooks/{id}/deliveries', successStatus: 200, auth: 'workspace' },
    delivery: { method: 'GET', path: '/webhooks/{id}/deliveries/{deliveryId}', successStatus: 200, auth: 'workspace' },
    redeliver: { method: 'POST', path: '/webhooks/{id}/deliveries/{deliveryId}/redeliver', successStatus: 202, auth: 'workspace' },
    attempts: { method: 'GET', path: '/webhooks/{id}/attempts', successStatus: 200, auth: 'workspace' },
  },
  workspace: {
    get: { method: 'GET', path: '/workspace', successStatus: 200, auth: 'workspace' },
  },
} as const satisfies Record<string, Record<string, RouteHead>>;
