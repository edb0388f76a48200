import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LooseJson } from './http.js';

/**
 * A stand-in for OpenAI on loopback: a small HTTP server that answers the Chat Completions API as
 * OpenAI does, so the real `openai` client is what the tests exercise. Each request is recorded;
 * `reply` decides each answer (or that none ever comes).
 */
export interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The request's JSON (a Chat Completions request), read field by field. */
  body: LooseJson;
  /** Resolves once the client has closed the connection or the response has been sent. */
  closed: Promise<void>;
}
/** What the fake answers to the request numbered `attempt` (0 first): a reply, or nothing ever. */
export type Reply = { status: number; headers?: Record<string, string>; body: unknown } | 'hang';

export interface FakeOpenAI {
  /** The client's `baseURL` (`OPENAI_BASE_URL`): `http://127.0.0.1:<port>/v1`. */
  baseURL: string;
  received: Received[];
  reply: (attempt: number) => Reply;
  close(): Promise<void>;
}

export async function startFakeOpenAI(): Promise<FakeOpenAI> {
  const fake = {
    baseURL: '',
    received: [] as Received[],
    reply: (() => ({ status: 500, body: { error: { message: 'no reply set', type: 'test' } } })) as (
      attempt: number,
    ) => Reply,
    close: async () => {},
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const closed = new Promise<void>((resolve) => res.on('close', resolve));
      const attempt = fake.received.length;
      fake.received.push({
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: JSON.parse(Buffer.concat(chunks).toString('utf8')),
        closed,
      });
      const answer = fake.reply(attempt);
      if (answer === 'hang') return;
      res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
      res.end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  fake.close = async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  };
  return fake;
}

/** A chat completion as OpenAI returns it. */
export function completion(content: string | null, refusal: string | null = null) {
  return {
    status: 200,
    headers: { 'x-request-id': 'req_test' },
    body: {
      id: 'chatcmpl-test',
      object: 'chat.completion',
      created: 1_760_000_000,
      model: 'gpt-4o-mini-2024-07-18',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content, refusal, annotations: [] },
          logprobs: null,
          finish_reason: 'stop',
        },
      ],
      usage: { prompt_tokens: 900, completion_tokens: 60, total_tokens: 960 },
      system_fingerprint: 'fp_test',
    },
  };
}

/** An error as OpenAI returns it. */
export function apiError(status: number, code: string | null, message: string, headers: Record<string, string> = {}) {
  return { status, headers, body: { error: { message, type: 'error', param: null, code } } };
}

/** The model's output for conditions written in the wire format. */
export function output(
  conditions: unknown[],
  problem: string | null = null,
  ignored: { text: string; why: string }[] = [],
): string {
  return JSON.stringify({ conditions, problem, ignored });
}

/** A condition as the model writes it: every field present, `value` null when there is none. */
export function wire(slideId: string, operator: string, value: unknown, to: string): unknown {
  return {
    source: `${slideId} ${operator}`,
    if: { slideId, operator, value },
    // biome-ignore lint/suspicious/noThenProperty: `then` is the field name of the rule's action.
    then: to === 'end' ? { action: 'end' } : { action: 'skip_to', slideId: to },
  };
}

/** A contract condition, as the drafter should return it. */
