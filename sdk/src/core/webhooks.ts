/**
 * Webhook signatures per Standard Webhooks (https://www.standardwebhooks.com): a delivery carries
 * `webhook-id`, `webhook-timestamp` (Unix seconds) and `webhook-signature`, a space-separated list of
 * `v1,<base64 HMAC-SHA256(key, "<id>.<timestamp>.<raw body>")>` (two of them while a rotated secret
 * still signs). The key is the base64 after `whsec_` in the endpoint's secret.
 *
 * Web Crypto (`crypto.subtle`) rather than `node:crypto`, so that receivers on edge runtimes, Deno,
 * Bun and browsers verify with the same code as Node.
 */
import { WebhookEvent } from '@pollkit/contracts';

/** Why {@link verifyWebhook} refused a delivery. */
export type WebhookVerificationReason =
  | 'missing_header'
  | 'invalid_timestamp'
  | 'timestamp_too_old'
  | 'timestamp_too_new'
  | 'no_matching_signature'
  | 'invalid_payload';

/**
 * A delivery {@link verifyWebhook} refused: answer it with a 4xx. Every reason but `invalid_payload`
 * means the request cannot be shown to come from Pollkit; `invalid_payload` means it did, but its body is
 * not an event this SDK can read.
 */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
  readonly reason: WebhookVerificationReason;

  constructor(reason: WebhookVerificationReason, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.reason = reason;
  }
}

/**
 * A request's headers as frameworks hand them over: a fetch `Headers`, or a plain record such as Node's
 * `req.headers` (looked up case-insensitively; a repeated header's values are joined as `Headers` joins them).
 */
export type WebhookHeaders = Headers | Readonly<Record<string, string | readonly string[] | undefined>>;

export interface VerifyWebhookOptions {
  /** How far `webhook-timestamp` may be from now, either way, in seconds: 300 by default. */
  toleranceSeconds?: number | undefined;
  /** The clock the timestamp is checked against; the current time by default. */
  now?: Date | undefined;
}

/** The three Standard Webhooks headers of a delivery, as {@link signWebhook} makes them. */
export type WebhookSignatureHeaders = Record<'webhook-id' | 'webhook-timestamp' | 'webhook-signature', string>;

export interface SignWebhookInput {
  /** The endpoint's secret (`whsec_…`); several sign it as during a rotation, one `v1,` signature each. */
  secret: string | readonly string[];
  /** `webhook-id`: by default the payload's own `id` (the event id, as Pollkit sends it), else a new `evt_…`. */
  id?: string | undefined;
  /** `webhook-timestamp`; now by default. */
  timestamp?: Date | undefined;
  /** The event: an object is sent as its `JSON.stringify`, a string as it is. */
  payload: unknown;
}

const DEFAULT_TOLERANCE_SECONDS = 300;
const SECRET_PREFIX = 'whsec_';

const eventSchemas = new Map<string, (typeof WebhookEvent.options)[number]>(
  WebhookEvent.options.map((schema) => [schema.shape.type.value, schema]),
);

/**
 * Checks that a delivery was signed with the endpoint's secret within `toleranceSeconds` of now, and
 * returns its event.
 *
 * `rawBody` must be the body exactly as it arrived: the signature covers its bytes, and JSON parsed then
 * serialised again rarely reproduces them. `secret` may be several secrets (the new and the old one
 * during a rotation): a signature by any of them is accepted.
 *
 * An event of a type this SDK knows is validated against its schema. An event of a type it does not
 * know yet (added to the API after this release; an endpoint subscribed to `*` receives it) is not
 * refused: it is returned as `{ id, type, createdAt, data }` with `data` unchecked, and its `type` is
 * then none of {@link WebhookEvent}'s, so keep a `default` branch where you switch on it.
 *
 * @throws {WebhookVerificationError} when a header is missing, the timestamp is out of tolerance, no
 *   signature matches, or the signed body is not an event (see its `reason`).
 * @throws {TypeError} when `secret` is not a Standard Webhooks secret, or `rawBody` is not text or bytes.
 */
export async function verifyWebhook(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string | readonly string[],
  options: VerifyWebhookOptions = {},
): Promise<WebhookEvent> {
  const body = bodyBytes(rawBody);
  const keys = secretKeys(secret, 'verifyWebhook');

  const id = headerOf(headers, 'webhook-id');
  const timestamp = headerOf(headers, 'webhook-timestamp');
  const signature = headerOf(headers, 'webhook-signature');
  if (id === undefined || timestamp === undefined || signature === undefined) {
    const missing = Object.entries({ 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': signature })
      .filter(([, value]) => value === undefined)
      .map(([name]) => name);
    throw new WebhookVerificationError(
      'missing_header',
      `The delivery has no ${missing.join(', ')} header: a Pollkit webhook carries webhook-id, webhook-timestamp ` +
        'and webhook-signature. Pass the request headers as they arrived (a Headers object, or Node’s req.headers).',
    );
  }

  checkTimestamp(timestamp, options);

  const signed = concatBytes(utf8(`${id}.${timestamp}.`), body);
  const expected = await Promise.all(keys.map((key) => hmacSha256(key, signed)));
  const received = signaturesOf(signature);
  if (received.length === 0) {
    throw new WebhookVerificationError(
      'no_matching_signature',
      'The webhook-signature header holds no well-formed v1 signature (expected "v1,<base64>", space-separated).',
    );
  }
  // Every pair is compared, in constant time each: how long the check takes says nothing about which
  // signature or which bytes came close.
  let matched = false;
  for (const candidate of received) {
    for (const mac of expected) matched = constantTimeEqual(candidate, mac) || matched;
  }
  if (!matched) {
    throw new WebhookVerificationError(
      'no_matching_signature',
      `No signature in webhook-signature matches this body with the ${keys.length === 1 ? 'secret' : `${keys.length} secrets`} ` +
        'given. Verify the raw request body exactly as it arrived, not JSON parsed and serialised again, and use ' +
        'this endpoint’s own secret (whsec_…, shown when it was created or rotated; during a rotation, pass both).',
    );
  }

  return eventOf(body, id);
}

/**
 * Signs a payload as Pollkit signs a delivery: what a receiver's tests need to send it requests it
 * accepts. Returns the three headers and the body they sign.
 */
export async function signWebhook(
  input: SignWebhookInput,
): Promise<{ headers: WebhookSignatureHeaders; body: string }> {
  const keys = secretKeys(input.secret, 'signWebhook');
  const body = typeof input.payload === 'string' ? input.payload : JSON.stringify(input.payload);
  if (body === undefined) throw new TypeError('signWebhook: payload must be a string or a JSON value.');
  const id = input.id ?? idOf(input.payload) ?? newEventId();
  const timestamp = String(Math.floor((input.timestamp ?? new Date()).getTime() / 1000));

  const signed = utf8(`${id}.${timestamp}.${body}`);
  const macs = await Promise.all(keys.map((key) => hmacSha256(key, signed)));
  return {
    headers: {
      'webhook-id': id,
      'webhook-timestamp': timestamp,
      'webhook-signature': macs.map((mac) => `v1,${toBase64(mac)}`).join(' '),
    },
    body,
  };
}

function bodyBytes(rawBody: unknown): Uint8Array {
  if (typeof rawBody === 'string') return utf8(rawBody);
  if (rawBody instanceof Uint8Array) return rawBody;
  throw new TypeError(
    'verifyWebhook: rawBody must be the request body as received, a string or a Uint8Array (a Buffer is one), ' +
      `not ${rawBody === null ? 'null' : typeof rawBody}. A body parsed as JSON cannot be verified: read the raw ` +
      'body (in Express, express.raw({ type: "application/json" }) on this route).',
  );
}

/** The HMAC keys of `secret`: never echoed in an error, which could end up in a log. */
function secretKeys(secret: unknown, caller: string): Uint8Array[] {
  const secrets = typeof secret === 'string' ? [secret] : secret;
  if (!Array.isArray(secrets) || secrets.length === 0) {
    throw new TypeError(
      `${caller}: secret must be the endpoint's signing secret (whsec_…) or a non-empty list of them.`,
    );
  }
  return secrets.map((value: unknown, index) => {
    const key =
      typeof value === 'string'
        ? fromBase64(value.startsWith(SECRET_PREFIX) ? value.slice(SECRET_PREFIX.length) : value)
        : null;
    if (key === null || key.length === 0) {
      const which = secrets.length === 1 ? 'secret' : `secret ${index}`;
      throw new TypeError(`${caller}: ${which} is not a webhook signing secret: expected whsec_ followed by base64.`);
    }
    return key;
  });
}

function headerOf(headers: WebhookHeaders, name: string): string | undefined {
  let value: string | readonly string[] | null | undefined;
  if (typeof headers.get === 'function') value = (headers as Headers).get(name);
  else {
    const record = headers as Readonly<Record<string, string | readonly string[] | undefined>>;
    const key = Object.keys(record).find((candidate) => candidate.toLowerCase() === name);
    value = key === undefined ? undefined : record[key];
  }
  const text = typeof value === 'string' ? value : Array.isArray(value) ? value.join(', ') : '';
  return text.trim() === '' ? undefined : text.trim();
}

function checkTimestamp(timestamp: string, options: VerifyWebhookOptions): void {
  if (!/^[0-9]{1,15}$/.test(timestamp)) {
    throw new WebhookVerificationError(
      'invalid_timestamp',
      `The webhook-timestamp header is not a Unix time in seconds: ${JSON.stringify(timestamp.slice(0, 40))}.`,
    );
  }
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  const age = now - Number(timestamp);
  if (age > tolerance) {
    throw new WebhookVerificationError(
      'timestamp_too_old',
      `The delivery was signed ${age} s ago, more than the ${tolerance} s allowed: a replayed request, or this ` +
        'machine’s clock is behind (check that it is synchronised).',
    );
  }
  if (-age > tolerance) {
    throw new WebhookVerificationError(
      'timestamp_too_new',
      `The delivery claims to be signed ${-age} s from now, more than the ${tolerance} s allowed: this machine’s ` +
        'clock is ahead, or the timestamp was forged (check that the clock is synchronised).',
    );
  }
}

/** The `v1` signatures of the header's list, as bytes; entries of other versions or not base64 are skipped. */
function signaturesOf(header: string): Uint8Array[] {
  return header.split(/\s+/).flatMap((entry) => {
    // A repeated header arrives joined with ", ": its entries then end with a comma.
    const [version, value] = entry.replace(/,$/, '').split(',', 2);
    const bytes = version === 'v1' && value !== undefined ? fromBase64(value) : null;
    return bytes === null ? [] : [bytes];
  });
}

function eventOf(body: Uint8Array, headerId: string): WebhookEvent {
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body));
  } catch (cause) {
    throw new WebhookVerificationError('invalid_payload', 'The signature is valid but the body is not JSON.', {
      cause,
    });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new WebhookVerificationError('invalid_payload', 'The signature is valid but the body is not a JSON object.');
  }
  const event = parsed as Record<string, unknown>;
  if (event.id !== headerId) {
    throw new WebhookVerificationError(
      'invalid_payload',
      `The body's id (${JSON.stringify(event.id)}) is not the webhook-id header (${JSON.stringify(headerId)}): ` +
        'Pollkit sends the event id in both.',
    );
  }
  if (typeof event.type !== 'string' || typeof event.createdAt !== 'string' || !('data' in event)) {
    throw new WebhookVerificationError(
      'invalid_payload',
      'The signature is valid but the body is not an event: it needs a string type and createdAt, and data.',
    );
  }

  const schema = eventSchemas.get(event.type);
  if (schema === undefined) {
    // A type added to the API after this SDK: its sender is verified, its shape is not known here.
    return { id: headerId, type: event.type, createdAt: event.createdAt, data: event.data } as unknown as WebhookEvent;
  }
  const result = schema.safeParse(event);
  if (!result.success) {
    const issues = result.error.issues
      .slice(0, 3)
      .map((issue) => `${issue.path.join('.') || '(body)'}: ${issue.message}`)
      .join('; ');
    throw new WebhookVerificationError(
      'invalid_payload',
      `The signature is valid but the body is not a ${event.type} event as this SDK knows it (${issues}). ` +
        'The server may be newer than @pollkit/sdk: update it.',
      { cause: result.error },
    );
  }
  return result.data;
}

function idOf(payload: unknown): string | undefined {
  let value = payload;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      return undefined;
    }
  }
  const id = typeof value === 'object' && value !== null ? (value as { id?: unknown }).id : undefined;
  return typeof id === 'string' ? id : undefined;
}

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** `evt_` and a ULID: 10 characters of milliseconds, then 16 random ones, as the server's ids are. */
function newEventId(): string {
  let time = Date.now();
  let id = '';
  for (let i = 0; i < 10; i++) {
    id = CROCKFORD[time % 32] + id;
    time = Math.floor(time / 32);
  }
  for (const byte of globalThis.crypto.getRandomValues(new Uint8Array(16))) id += CROCKFORD[byte % 32];
  return `evt_${id}`;
}

async function hmacSha256(key: Uint8Array, message: Uint8Array): Promise<Uint8Array> {
  const subtle = globalThis.crypto?.subtle;
  if (subtle === undefined) {
    throw new Error(
      'Web Crypto (crypto.subtle) is not available here; in a browser it needs a secure context (https or localhost).',
    );
  }
  // Never a SharedArrayBuffer here (the bytes come from TextEncoder and base64 decoding): the DOM
  // library's BufferSource, which the browser entry compiles against, takes only ArrayBuffer views.
  const cryptoKey = await subtle.importKey(
    'raw',
    key as Uint8Array<ArrayBuffer>,
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  return new Uint8Array(await subtle.sign('HMAC', cryptoKey, message as Uint8Array<ArrayBuffer>));
}

function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= (a[i] as number) ^ (b[i] as number);
  return difference === 0;
}

function utf8(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

function concatBytes(a: Uint8Array, b: Uint8Array): Uint8Array {
  const joined = new Uint8Array(a.length + b.length);
  joined.set(a);
  joined.set(b, a.length);
  return joined;
}

/** Standard base64 (`atob` exists in every runtime the SDK supports); null when `text` is not base64. */
function fromBase64(text: string): Uint8Array | null {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text)) return null;
  try {
    return Uint8Array.from(atob(text), (char) => char.charCodeAt(0));
  } catch {
    return null;
  }
}

function toBase64(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes));
}
