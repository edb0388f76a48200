/**
 * Raw HTTP helpers for tests: fetch against the test server, JSON in and out, nothing typed by the
 * contract. Calls of the API's routes go through the typed client (test-client.ts); `rawCall` is for
 * what the contract does not allow (malformed or hostile input, unknown fields) and for what is not
 * a route of it (pages, `/api/oauth/token`, `/mcp`, `/metrics`). Its body is `unknown` unless the
 * test says what it reads there: `rawCall<ErrorEnvelope>(…)`.
 */
export interface HttpResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  apiKey?: string | undefined;
  body?: unknown;
  /** Sent as is, bypassing JSON encoding. */
  rawBody?: string;
  headers?: Record<string, string>;
}

export async function rawCall<T = unknown>(
  method: string,
  url: string,
  { apiKey, body, rawBody, headers = {} }: RequestOptions = {},
): Promise<HttpResponse<T>> {
  const init: RequestInit = { method, headers: { ...headers } };
  const h = init.headers as Record<string, string>;
  if (apiKey) h.authorization = `Bearer ${apiKey}`;
  if (rawBody !== undefined) {
    init.body = rawBody;
  } else if (body !== undefined) {
    h['content-type'] ??= 'application/json';
    init.body = JSON.stringify(body);
  }
  const response = await fetch(url, init);
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: response.status, headers: response.headers, body: parsed as T, text };
}

/**
 * A JSON document no schema of the contract types, walked field by field: the OpenAPI document, an
 * MCP reply's structured content, an event's `data` read off the wire. `any` on purpose: the test
 * states what it expects at each step, and a wrong step fails it as it runs.
 */
export type LooseJson = Record<string, any>;
