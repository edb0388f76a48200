/** Raw HTTP helpers for tests: fetch against the test server, JSON in and out. */
export interface JsonResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  apiKey?: string;
  body?: unknown;
  /** Sent as is, bypassing JSON encoding. */
  rawBody?: string;
  headers?: Record<string, string>;
}

export async function call<T = any>(
  method: string,
  url: string,
  { apiKey, body, rawBody, headers = {} }: RequestOptions = {},
): Promise<JsonResponse<T>> {
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
