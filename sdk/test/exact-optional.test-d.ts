/**
 * Compiled with `exactOptionalPropertyTypes` (sdk/tsconfig.exact-optional.json, part of the sdk's
 * `typecheck`): under that flag, which `tsc --init` turns on, an optional field declared `?: T` refuses
 * a value of type `T | undefined`. Every optional field of the SDK's own options accepts `undefined`,
 * so an integrator passes what it has (`process.env.X`, a field of its own that may be missing)
 * without spelling out conditionals. Vitest does not run this file; the compiler checks it.
 */
import { createClient, joinSession, presenterSession } from '../src/index.js';

declare const maybe: string | undefined;
declare const maybeNumber: number | undefined;

const client = createClient({
  apiKey: maybe,
  baseUrl: maybe,
  timeout: maybeNumber,
  maxRetries: maybeNumber,
  headers: undefined,
  validateResponses: undefined,
});
client.withOptions({ timeout: maybeNumber, maxRetries: undefined });
void client.polls.list({ limit: 5 }, { timeout: maybeNumber, idempotencyKey: maybe, signal: undefined });

void joinSession({ baseUrl: 'http://127.0.0.1:3000', pin: '123456', name: maybe, respondentId: maybe });
const presenter = presenterSession({
  baseUrl: 'http://127.0.0.1:3000',
  sessionId: 'ses_1',
  hostToken: 'pht_1',
  timeout: maybeNumber,
});
void presenter.events({ lastEventId: maybe, maxReconnects: maybeNumber });

// The routes' inputs come from the contract's zod schemas: their optional fields accept `undefined` too.
void client.polls.list({ limit: maybeNumber, cursor: maybe });

// A CSV download's `stream` may be a value that might be undefined: the answer is then either form.
declare const maybeStream: boolean | undefined;
const download: Promise<string | ReadableStream<Uint8Array>> = client.results.export(
  { id: 'poll_1' },
  { stream: maybeStream, timeout: maybeNumber },
);
void download;
void presenter.participants({ limit: maybeNumber, cursor: maybe });
