/**
 * verifyWebhook and signWebhook against `standardwebhooks`, the reference implementation of the
 * Standard Webhooks spec: what it signs we verify, what we sign it verifies, byte for byte.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebhookEvent as WebhookEventSchema } from '@pollkit/contracts';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import {
  signWebhook,
  verifyWebhook,
  type WebhookEvent,
  type WebhookEventOf,
  type WebhookHeaders,
  WebhookVerificationError,
  type WebhookVerificationReason,
} from '../../src/index.js';
import { rejectionOf } from '../support/rejection.js';

const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;
const secret = newSecret();

const pollId = 'poll_01JF3Z8Q6M4W9Y2K7T5R0B1C3D';
const sessionId = 'ses_01JF3Z8Q6M4W9Y2K7T5R0B1C3E';
const at = '2026-11-24T13:50:45.000Z';

const poll = {
  id: pollId,
  title: 'Team lunch',
  status: 'published' as const,
  content: { questions: [] },
  branching: null,
  language: 'en' as const,
  themeId: null,
  textFilter: 'mask' as const,
  maxRespondents: null,
  createdAt: at,
  updatedAt: at,
  publishedAt: at,
  closedAt: null,
};
const session = {
  id: sessionId,
  pollId,
  pin: '123456',
  pace: 'presenter' as const,
  status: 'active' as const,
  currentSlideIndex: 0,
  slideCount: 2,
  resultsVisible: false,
  locked: false,
  slideStartedAt: at,
  joinUrl: 'https://polls.example.com/join/123456',
  participantCount: 3,
  completedCount: 0,
  showScores: null,
  closesAt: null,
  maxParticipants: 2000,
  joinsLocked: false,
  language: null,
  themeId: null,
  joinChallenge: null,
  createdAt: at,
  startedAt: at,
  endedAt: null,
};

/** The event of a type, with an id of its own (the last characters tell them apart). */
function event<T extends WebhookEvent['type']>(type: T, n: number, data: WebhookEventOf<T>['data']) {
  return { id: `evt_01JF3Z8Q6M4W9Y2K7T5R0B1C${String(n).padStart(2, '0')}`, type, createdAt: at, data };
}

/** One small event of every type the contract defines. */
const samples: { [T in WebhookEvent['type']]: WebhookEventOf<T> } = {
  'poll.created': event('poll.created', 10, { ...poll, status: 'draft', publishedAt: null }),
  'poll.updated': event('poll.updated', 11, { ...poll, title: 'Team lunch, Friday' }),
  'poll.published': event('poll.published', 12, poll),
  'poll.closed': event('poll.closed', 13, { ...poll, status: 'closed', closedAt: at }),
  'poll.deleted': event('poll.deleted', 14, { id: pollId, deleted: true }),
  'vote.created': event('vote.created', 15, {
    id: 'vote_01JF3Z8Q6M4W9Y2K7T5R0B1C3F',
    pollId,
    slideId: 'lunch',
    voterId: 'ada',
    optionIds: ['pizza'],
    createdAt: at,
    sessionId: null,
  }),
  'response.created': event('response.created', 16, {
    id: 'rsp_01JF3Z8Q6M4W9Y2K7T5R0B1C3G',
    pollId,
    slideId: 'mood',
    voterId: 'ada',
    kind: 'scale',
    scaleValue: 4,
    createdAt: at,
    sessionId,
  }),
  'question.created': event('question.created', 17, {
    id: 'rsp_01JF3Z8Q6M4W9Y2K7T5R0B1C3H',
    pollId,
    slideId: 'ask',
    voterId: 'grace',
    text: 'Is there a vegetarian option?',
    status: 'pending',
    flagged: false,
    upvotes: 0,
    createdAt: at,
    sessionId,
  }),
  'session.created': event('session.created', 18, {
    ...session,
    status: 'pending',
    slideStartedAt: null,
    startedAt: null,
    participantCount: 0,
  }),
  'session.started': event('session.started', 19, session),
  'session.slide_changed': event('session.slide_changed', 20, { ...session, currentSlideIndex: 1 }),
  'session.ended': event('session.ended', 21, {
    ...session,
    status: 'ended',
    endedAt: at,
    leaderboard: [{ rank: 1, participantId: 'prt_01JF3Z8Q6M4W9Y2K7T5R0B1C3K', name: 'Ada', score: 1000 }],
  }),
  'session.participant_completed': event('session.participant_completed', 23, {
    sessionId,
    pollId,
    participantId: 'prt_01JF3Z8Q6M4W9Y2K7T5R0B1C3K',
    name: 'Ada',
    answerCount: 2,
    score: 900,
  }),
  'respondent.erased': event('respondent.erased', 24, {
    id: 'ada@example.com',
    erased: { votes: 1, responses: 2, questions: 0, upvotes: 1, participants: 1, redacted: 3 },
  }),
  'webhook.test': event('webhook.test', 22, {
    endpointId: 'whk_01JF3Z8Q6M4W9Y2K7T5R0B1C3J',
    message: 'A test event from Pollkit.',
  }),
};
const sampleList = Object.values(samples);
const vote = samples['vote.created'];

/** The three headers as `standardwebhooks` signs them, one signature per secret. */
function referenceHeaders(body: string, id: string, secrets: string[], timestamp = new Date()) {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
    'webhook-signature': secrets.map((key) => new Webhook(key).sign(id, timestamp, body)).join(' '),
  };
}

async function refusal(promise: Promise<unknown>, reason: WebhookVerificationReason) {
  const error = await rejectionOf(promise);
  expect(error).toBeInstanceOf(WebhookVerificationError);
  expect(error).toMatchObject({ name: 'WebhookVerificationError', reason });
  return error as WebhookVerificationError;
}

describe('events signed by standardwebhooks', () => {
  it('has a sample of every event type of the contract', () => {
    const types = WebhookEventSchema.options.map((schema) => schema.shape.type.value);
    expect(Object.keys(samples).sort()).toEqual([...types].sort());
  });

  it.each(sampleList)('$type: verifies and returns the event as sent', async (sample) => {
    const body = JSON.stringify(sample);
    const verified = await verifyWebhook(body, referenceHeaders(body, sample.id, [secret]), secret);
    expect(verified).toEqual(sample);
  });

  it('verifies a body given as bytes (a Buffer, a Uint8Array), non-ASCII text included', async () => {
    const sample = { ...samples['poll.updated'], data: { ...poll, title: 'Déjeuner ☕ 🍕' } };
    const body = JSON.stringify(sample);
    const headers = referenceHeaders(body, sample.id, [secret]);
    expect(await verifyWebhook(Buffer.from(body), headers, secret)).toEqual(sample);
    expect(await verifyWebhook(new TextEncoder().encode(body), headers, secret)).toEqual(sample);
  });

  it('reads a Headers object and a plain record whatever the case of its names', async () => {
    const body = JSON.stringify(vote);
    const headers = referenceHeaders(body, vote.id, [secret]);
    expect(await verifyWebhook(body, new Headers(headers), secret)).toEqual(vote);
    const capitalised = {
      'Webhook-Id': headers['webhook-id'],
      'WEBHOOK-TIMESTAMP': headers['webhook-timestamp'],
      'Webhook-Signature': headers['webhook-signature'],
      'content-type': 'application/json',
    };
    expect(await verifyWebhook(body, capitalised, secret)).toEqual(vote);
  });
});

describe('signWebhook, checked by standardwebhooks', () => {
  it.each(sampleList)('$type: its signature verifies', async (sample) => {
    const { headers, body } = await signWebhook({ secret, payload: sample });
    expect(body).toBe(JSON.stringify(sample));
    expect(headers['webhook-id']).toBe(sample.id);
    expect(new Webhook(secret).verify(body, headers)).toEqual(sample);
  });

  it('signs the same bytes as standardwebhooks for the same id, time and body', async () => {
    const timestamp = new Date('2026-11-24T13:50:45.678Z');
    const { headers, body } = await signWebhook({ secret, timestamp, payload: JSON.stringify(vote) });
    expect(headers).toEqual({
      'webhook-id': vote.id,
      'webhook-timestamp': '1795528245',
      'webhook-signature': new Webhook(secret).sign(vote.id, timestamp, body),
    });
  });

  it('makes an evt_ id when neither the input nor the payload has one', async () => {
    const { headers, body } = await signWebhook({ secret, payload: 'not json' });
    expect(headers['webhook-id']).toMatch(/^evt_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(body).toBe('not json');
    expect(new Webhook(secret).verify(body, headers, { jsonParse: false })).toBeUndefined();
  });

  it('signs with each of several secrets, as during a rotation; either verifies', async () => {
    const next = newSecret();
    const { headers, body } = await signWebhook({ secret: [next, secret], payload: vote });
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(new Webhook(secret).verify(body, headers)).toEqual(vote);
    expect(new Webhook(next).verify(body, headers)).toEqual(vote);
  });
});

describe('refused deliveries', () => {
  const body = JSON.stringify(vote);
  const headers = referenceHeaders(body, vote.id, [secret]);

  it('a body changed after signing, or re-serialised JSON', async () => {
    const tampered = body.replace('"pizza"', '"sushi"');
    const error = await refusal(verifyWebhook(tampered, headers, secret), 'no_matching_signature');
    expect(error.message).toMatch(/raw request body/);

    // Receivers that parse first and stringify again lose the bytes the signature covers.
    const pretty = JSON.stringify(vote, null, 2);
    const signed = referenceHeaders(pretty, vote.id, [secret]);
    await refusal(verifyWebhook(JSON.stringify(JSON.parse(pretty)), signed, secret), 'no_matching_signature');
    expect(await verifyWebhook(pretty, signed, secret)).toEqual(vote);
  });

  it('another secret', async () => {
    const error = await refusal(verifyWebhook(body, headers, newSecret()), 'no_matching_signature');
    expect(error.message).toMatch(/whsec_/);
    await refusal(verifyWebhook(body, headers, [newSecret(), newSecret()]), 'no_matching_signature');
  });

  it('a signature header with no v1 signature, or a v1 one that is not base64 HMAC-SHA256', async () => {
    const v1 = headers['webhook-signature'].slice(3);
    for (const signature of [`v1a,${v1}`, `v2,${v1}`, 'v1,!!!', 'v1,AAAA', v1]) {
      await refusal(
        verifyWebhook(body, { ...headers, 'webhook-signature': signature }, secret),
        'no_matching_signature',
      );
    }
    // Entries of other versions are skipped, not fatal.
    const mixed = `v1a,${v1} ${headers['webhook-signature']}`;
    expect(await verifyWebhook(body, { ...headers, 'webhook-signature': mixed }, secret)).toEqual(vote);
  });

  it.each(['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const)('no %s header', async (name) => {
    const { [name]: _left, ...rest } = headers;
    const error = await refusal(verifyWebhook(body, rest, secret), 'missing_header');
    expect(error.message).toContain(`no ${name} header`);
    await refusal(verifyWebhook(body, { ...headers, [name]: '' }, secret), 'missing_header');
    await refusal(verifyWebhook(body, { ...headers, [name]: undefined }, secret), 'missing_header');
  });

  it('a timestamp that is not Unix seconds', async () => {
    for (const timestamp of ['abc', '1.7e9', '-5', '2026-11-24T13:50:45Z']) {
      const error = await refusal(
        verifyWebhook(body, { ...headers, 'webhook-timestamp': timestamp }, secret),
        'invalid_timestamp',
      );
      expect(error.message).toContain(JSON.stringify(timestamp));
    }
  });

  describe('the timestamp tolerance, five minutes either way by default', () => {
    const signedAt = new Date('2026-11-24T13:50:45Z');
    const seconds = (n: number) => new Date(signedAt.getTime() + n * 1000);
    const signed = referenceHeaders(body, vote.id, [secret], signedAt);

    it('accepts a delivery up to 300 s old or 300 s ahead of the clock', async () => {
      for (const now of [seconds(-300), seconds(0), seconds(300)]) {
        expect(await verifyWebhook(body, signed, secret, { now })).toEqual(vote);
      }
    });

    it('refuses one signed more than 300 s ago', async () => {
      const error = await refusal(verifyWebhook(body, signed, secret, { now: seconds(301) }), 'timestamp_too_old');
      expect(error.message).toContain('301 s ago');
    });

    it('refuses one signed more than 300 s ahead of the clock', async () => {
      const error = await refusal(verifyWebhook(body, signed, secret, { now: seconds(-301) }), 'timestamp_too_new');
      expect(error.message).toContain('301 s from now');
    });

    it('takes another tolerance', async () => {
      const options = { now: seconds(61), toleranceSeconds: 60 };
      await refusal(verifyWebhook(body, signed, secret, options), 'timestamp_too_old');
      expect(await verifyWebhook(body, signed, secret, { ...options, toleranceSeconds: 61 })).toEqual(vote);
    });

    it('checks the time before the signature: a stale replay is refused as stale', async () => {
      await refusal(verifyWebhook(body, signed, newSecret(), { now: seconds(3600) }), 'timestamp_too_old');
    });
  });
});

describe('secret rotation: two signatures', () => {
  const previous = newSecret();
  const body = JSON.stringify(vote);
  const headers = referenceHeaders(body, vote.id, [secret, previous]);

  it('either secret alone verifies', async () => {
    expect(await verifyWebhook(body, headers, secret)).toEqual(vote);
    expect(await verifyWebhook(body, headers, previous)).toEqual(vote);
  });

  it('a list of secrets verifies when any of them signed', async () => {
    expect(await verifyWebhook(body, headers, [newSecret(), previous])).toEqual(vote);
    const newOnly = referenceHeaders(body, vote.id, [secret]);
    expect(await verifyWebhook(body, newOnly, [previous, secret])).toEqual(vote);
    await refusal(verifyWebhook(body, newOnly, [previous]), 'no_matching_signature');
  });

  it('a signature header repeated, as a Headers object or Node joins it', async () => {
    const [first, second] = headers['webhook-signature'].split(' ') as [string, string];
    const repeated = new Headers({ 'webhook-id': vote.id, 'webhook-timestamp': headers['webhook-timestamp'] });
    repeated.append('webhook-signature', first);
    repeated.append('webhook-signature', second);
    expect(repeated.get('webhook-signature')).toBe(`${first}, ${second}`);
    expect(await verifyWebhook(body, repeated, previous)).toEqual(vote);
    const asList: WebhookHeaders = { ...headers, 'webhook-signature': [first, second] };
    expect(await verifyWebhook(body, asList, previous)).toEqual(vote);
  });
});

describe('the signed body', () => {
  it('is refused when its id is not the webhook-id header', async () => {
    const { headers, body } = await signWebhook({ secret, id: 'evt_01JF3Z8Q6M4W9Y2K7T5R0B1C99', payload: vote });
    const error = await refusal(verifyWebhook(body, headers, secret), 'invalid_payload');
    expect(error.message).toContain('webhook-id');
    expect(error.message).toContain(vote.id);
  });

  it('of a type this SDK does not know is returned unchecked, not refused', async () => {
    const future = {
      id: 'evt_01JF3Z8Q6M4W9Y2K7T5R0B1C50',
      type: 'poll.archived',
      createdAt: at,
      data: { id: pollId, archivedBy: 'ada' },
      apiVersion: 2,
    };
    const { headers, body } = await signWebhook({ secret, payload: future });
    const verified = await verifyWebhook(body, headers, secret);
    expect(verified).toEqual({ id: future.id, type: 'poll.archived', createdAt: at, data: future.data });
  });

  it('of a known type is checked against its schema', async () => {
    const wrong = { ...vote, data: { ...vote.data, optionIds: 'pizza' } };
    const { headers, body } = await signWebhook({ secret, payload: wrong });
    const error = await refusal(verifyWebhook(body, headers, secret), 'invalid_payload');
    expect(error.message).toContain('data.optionIds');
    expect(error.message).toContain('vote.created');
    expect(error.cause).toBeInstanceOf(Error);
  });

  it('is refused when it is not a JSON event', async () => {
    const id = 'evt_01JF3Z8Q6M4W9Y2K7T5R0B1C51';
    for (const payload of ['not json', '[1, 2]', JSON.stringify({ id, type: 'poll.created' })]) {
      const { headers, body } = await signWebhook({ secret, id, payload });
      await refusal(verifyWebhook(body, headers, secret), 'invalid_payload');
    }
    const bytes = new Uint8Array([0x7b, 0xff, 0x7d]); // `{`, a byte that is not UTF-8, `}`
    const headers = referenceHeaders('', id, [secret]);
    headers['webhook-signature'] = `v1,${hmacBase64(secret, id, headers['webhook-timestamp'], bytes)}`;
    await refusal(verifyWebhook(bytes, headers, secret), 'invalid_payload');
  });
});

describe('misuse', () => {
  const body = JSON.stringify(vote);
  const headers = referenceHeaders(body, vote.id, [secret]);

  it('a secret that is not whsec_ base64, or no secret, is a TypeError that does not echo it', async () => {
    for (const wrong of ['whsec_not base64!', 'whsec_', '', [] as string[]]) {
      const error = await rejectionOf(verifyWebhook(body, headers, wrong));
      expect(error).toBeInstanceOf(TypeError);
      if (typeof wrong === 'string' && wrong.length > 6) expect((error as Error).message).not.toContain(wrong);
    }
    await expect(signWebhook({ secret: 'nope!', payload: vote })).rejects.toThrow(TypeError);
  });

  it('a parsed body is a TypeError that says to pass the raw one', async () => {
    const error = await rejectionOf(verifyWebhook(JSON.parse(body), headers, secret));
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toMatch(/raw/);
  });

  it('a secret without its whsec_ prefix still works, as in standardwebhooks', async () => {
    expect(await verifyWebhook(body, headers, secret.slice('whsec_'.length))).toEqual(vote);
  });
});

describe('a node:http receiver, as the README shows it', () => {
  it('answers 204 to a signed delivery and 400 to a tampered one', async () => {
    const received: WebhookEvent[] = [];
    const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      try {
        received.push(await verifyWebhook(Buffer.concat(chunks), req.headers, secret));
        res.writeHead(204).end();
      } catch (error) {
        if (!(error instanceof WebhookVerificationError)) throw error;
        res.writeHead(400, { 'content-type': 'text/plain' }).end(error.reason);
      }
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
    try {
      const { headers, body } = await signWebhook({ secret, payload: vote });
      const post = (content: string) =>
        fetch(url, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: content });

      expect((await post(body)).status).toBe(204);
      const refused = await post(body.replace('ada', 'eve'));
      expect(refused.status).toBe(400);
      expect(await refused.text()).toBe('no_matching_signature');
      expect(received).toEqual([vote]);
    } finally {
      server.close();
    }
  });
});

/** An HMAC-SHA256 of arbitrary bytes, which `standardwebhooks` signs only as text. */
function hmacBase64(key: string, id: string, timestamp: string, body: Uint8Array): string {
  const mac = createHmac('sha256', Buffer.from(key.slice('whsec_'.length), 'base64'));
  return mac.update(`${id}.${timestamp}.`).update(body).digest('base64');
}
