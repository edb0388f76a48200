import { isIP } from 'node:net';
import { resolve } from 'node:path';
import { z } from 'zod';

/**
 * Every setting the server reads from the environment, parsed by one schema. A bad value stops the
 * process at start-up with a message naming the variable (see `parseConfig`). Each variable's `.describe()`
 * is its documentation: docs/scripts/generate.ts makes the configuration table of the docs site and the
 * README from this schema.
 */
export const ConfigSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65_535).default(3000).describe('HTTP port (`0` picks a free one).'),
  HOST: z.string().min(1).default('127.0.0.1').describe('Interface to listen on; `0.0.0.0` in containers.'),
  PUBLIC_BASE_URL: z
    .url()
    .optional()
    .describe(
      "Address clients reach the server at, for links the API hands out, and the audience page's address in a session's QR code (at a venue: the laptop's LAN address). Default: `http://HOST:PORT`.",
    ),
  DATABASE_URL: z
    .string()
    .regex(/^(postgres(ql)?:\/\/.+|memory:\/\/)$/, 'must be postgres://…, postgresql://… or memory://')
    .optional()
    .describe(
      '`postgres://…` for PostgreSQL; `memory://` for a throw-away in-memory database. Default: the embedded PGlite database in `DATA_DIR`.',
    ),
  DATA_DIR: z
    .string()
    .min(1)
    .default('./data')
    .describe(
      'Where the embedded database and re-hosted media (`DATA_DIR/media`) live; relative to where you run the command.',
    ),
  DATABASE_POOL_SIZE: z.coerce
    .number()
    .int()
    .min(1)
    .max(500)
    .default(20)
    .describe('PostgreSQL connections per process.'),
  DATABASE_CONNECT_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(100)
    .max(60_000)
    .default(2_000)
    .describe(
      'PostgreSQL: the longest a request waits for a connection (a new one, or a free one from a busy pool); past it, 503 `service_unavailable`.',
    ),
  DATABASE_STATEMENT_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(100)
    .max(600_000)
    .default(5_000)
    .describe(
      'PostgreSQL: the longest one statement may run (`statement_timeout`; the client gives up a second later if the server cannot even answer); past it, 503 `service_unavailable`. Migrations run without it.',
    ),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\/.+/, 'must be redis://… or rediss://…')
    .optional()
    .describe(
      '`redis://…`: share rate-limit counters, cache invalidations and live-session changes between processes. Without it they stay in the process.',
    ),
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
    .default('info')
    .describe('One access-log line per request at `info`; health checks at `debug`.'),
  LOG_FORMAT: z
    .enum(['auto', 'json', 'pretty'])
    .default('auto')
    .describe(
      '`json` (one pino JSON object per line), `pretty` (one human-readable line per entry) or `auto`: `pretty` when stdout is a terminal, `json` otherwise.',
    ),
  BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(50 * 1024 * 1024)
    .default(1024 * 1024)
    .describe('Largest request body accepted (larger: 413 `payload_too_large`).'),
  REQUEST_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(1_000)
    .max(600_000)
    .default(30_000)
    .describe(
      'The longest a client may take to send one request, headers and body; past it the request is answered 408 `request_timeout` and its connection closed (checked every second). Only receiving is bounded: responses, event streams included, may last longer.',
    ),
  RATE_LIMIT_PER_MINUTE: z.coerce
    .number()
    .int()
    .min(1)
    .default(120)
    .describe(
      'Requests per fixed 60-second window per API key (Enterprise workspaces can be raised per workspace with the CLI).',
    ),
  OAUTH_TOKEN_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(60)
    .max(24 * 3600)
    .default(3600)
    .describe('Lifetime of an OAuth access token (`expires_in`).'),
  MEDIA_FETCH_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(100)
    .max(120_000)
    .default(10_000)
    .describe('One deadline per media fetch (`POST /media`), redirects and body included.'),
  MEDIA_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(200 * 1024 * 1024)
    .default(10 * 1024 * 1024)
    .describe('Largest media download; the body is cut off past it (422 `media_too_large`).'),
  MEDIA_MAX_PIXELS: z.coerce
    .number()
    .int()
    .min(1)
    .default(50_000_000)
    .describe(
      'Largest image (width × height) decoded; more is 422 `unsupported_media` (the guard against decompression bombs).',
    ),
  MEDIA_ALLOW_LOOPBACK: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true')
    .describe(
      'Tests only: let media fetches reach 127.0.0.0/8 and `::1`. Private and link-local addresses stay refused.',
    ),
  SHUTDOWN_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(0)
    .default(10_000)
    .describe(
      'On SIGTERM, how long in-flight requests may take before the process exits anyway (new requests get 503 meanwhile).',
    ),
  OPENAI_API_KEY: z
    .string()
    .min(1)
    .optional()
    .describe(
      'Lets `POST /polls/{id}/branch` draft skip logic with an OpenAI model. Without it, or when the provider fails, the rule-based parser answers. Never logged.',
    ),
  OPENAI_BASE_URL: z
    .url()
    .optional()
    .describe(
      "The OpenAI client's base URL: a proxy, or another provider that speaks the Chat Completions API with structured output. Default: OpenAI's API.",
    ),
  OPENAI_MODEL: z
    .string()
    .min(1)
    .default('gpt-4o-mini')
    .describe('The model asked; it must support structured output (`json_schema`, strict).'),
  OPENAI_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(100)
    .max(120_000)
    .default(15_000)
    .describe(
      'The budget of one draft, its retries included (at most 2: on 429, 5xx and lost connections); past it the parser answers.',
    ),
  BRANCH_RATE_LIMIT_PER_MINUTE: z.coerce
    .number()
    .int()
    .min(1)
    .default(10)
    .describe(
      'Skip-logic drafts (`POST /polls/{id}/branch`) per minute per workspace, whichever keys or tokens call: each may ask the provider three times with the whole deck. Counted besides `RATE_LIMIT_PER_MINUTE`; past it, 429 `rate_limited`.',
    ),
  LIVE_JOIN_URL: z
    .string()
    .refine((value) => value.includes('{pin}') && URL.canParse(value.replace('{pin}', '000000')), {
      message: 'must be an absolute URL containing {pin}',
    })
    .optional()
    .describe(
      "Where the audience joins a live session (its `joinUrl` and QR code): a URL with `{pin}` in it, replaced by the PIN (a self-paced session's: its link id, `lnk_…`). Default: Pollkit's own audience page, `PUBLIC_BASE_URL/join/{pin}`.",
    ),
  TRUST_PROXY: z
    .string()
    .default('false')
    .transform((value, ctx): TrustProxy => {
      if (value === 'false' || value === '') return false;
      if (/^[0-9]+$/.test(value)) return trustHops(Number(value));
      if (value === 'true') {
        ctx.addIssue({
          code: 'custom',
          message:
            '`true` is not offered: it would believe the X-Forwarded-For a client writes itself, so anyone could pick ' +
            'the address the per-address limits count. Set the number of proxies in front of the server (e.g. 1) or ' +
            'their addresses/CIDRs (e.g. 10.0.0.5 or 10.0.0.0/8)',
        });
        return z.NEVER;
      }
      const proxies = value.split(',').map((part) => part.trim());
      const bad = proxies.filter((proxy) => !isProxyAddress(proxy));
      if (bad.length > 0) {
        ctx.addIssue({
          code: 'custom',
          message: `must be \`false\`, a hop count, or proxy addresses/CIDRs separated by commas; not ${bad.map((p) => JSON.stringify(p)).join(', ')}`,
        });
        return z.NEVER;
      }
      return proxies;
    })
    .describe(
      'Whose `X-Forwarded-For` to believe for the client address (the per-address limits count by it: participants, failed authentications): `false` (the peer address), a hop count (the number of proxies in front of the server), or the proxies’ addresses/CIDRs separated by commas (`loopback`, `linklocal` and `uniquelocal` name those ranges). `true` is refused: it would believe any client’s own header.',
    ),
  LIVE_RATE_LIMIT_PER_IP_PER_MINUTE: z.coerce
    .number()
    .int()
    .min(1)
    .default(600)
    .describe(
      'Requests per minute per IP address on the participant routes (`/live/{pin}/…`) that name no participant (joins, anonymous streams).',
    ),
  LIVE_RATE_LIMIT_PER_PARTICIPANT_PER_MINUTE: z.coerce
    .number()
    .int()
    .min(1)
    .default(120)
    .describe(
      'Requests per minute per participant (a valid `X-Participant-Token`): a classroom behind one address is not one client.',
    ),
  LIVE_PIN_MISSES_PER_IP_PER_MINUTE: z.coerce
    .number()
    .int()
    .min(1)
    .default(10)
    .describe(
      'Unknown PINs per minute per IP address; past it the address gets 429 for every PIN until the minute ends.',
    ),
  LIVE_JOINS_PER_IP_PER_MINUTE: z.coerce
    .number()
    .int()
    .min(1)
    .default(300)
    .describe(
      'New participants per minute per IP address (joins without a participant token): a room behind one NAT address joins, one address cannot fill a session.',
    ),
  LIVE_MAX_PARTICIPANTS_DEFAULT: z.coerce
    .number()
    .int()
    .min(1)
    .default(2_000)
    .describe(
      'Participants a session takes when `POST /sessions` names no `maxParticipants`; a join past it is 409 `session_full`.',
    ),
  LIVE_MAX_PARTICIPANTS_CEILING: z.coerce
    .number()
    .int()
    .min(1)
    .default(20_000)
    .describe(
      'The most `maxParticipants` a session may ask for (one process has held 18,000 streams of one session, and two 20,000: server/bench/RESULTS.md, issue 42).',
    ),
  SESSION_CLOSE_CHECK_MS: z.coerce
    .number()
    .int()
    .min(50)
    .default(5_000)
    .describe(
      'How often each process looks for sessions whose `closesAt` has come, and ends them (answers past `closesAt` are refused at once either way).',
    ),
  LIVE_QA_QUESTIONS_PER_PARTICIPANT_PER_MINUTE: z.coerce
    .number()
    .int()
    .min(1)
    .default(5)
    .describe('Q&A questions a participant may ask per minute (429 `rate_limited` past it).'),
  LIVE_QA_QUESTIONS_PER_IP_PER_MINUTE: z.coerce
    .number()
    .int()
    .min(1)
    .default(300)
    .describe(
      'Q&A questions the participants behind one IP address may ask per minute, all together (429 `rate_limited` past it): as many as the address may add participants (`LIVE_JOINS_PER_IP_PER_MINUTE`), so a room behind one NAT address where everyone asks at once still gets through, while one address can no longer flood a room with a new participant’s few questions each.',
    ),
  LIVE_STREAMS_PER_PARTICIPANT: z.coerce
    .number()
    .int()
    .min(1)
    .default(3)
    .describe('Event streams one participant may hold open on one process (a few tabs); more are 429 `rate_limited`.'),
  LIVE_ANONYMOUS_STREAMS_PER_IP: z.coerce
    .number()
    .int()
    .min(1)
    .default(20)
    .describe(
      'Event streams without a participant token one IP address may hold open on one process; more are 429 `rate_limited`.',
    ),
  LIVE_MAX_STREAMS_PER_PROCESS: z.coerce
    .number()
    .int()
    .min(1)
    .default(20_000)
    .describe(
      'Event streams (participants and presenters) one process holds open at most; more are 429 `rate_limited`. Each holds a socket: the process lowers the cap to its open-files limit less 1,000 (logged at start; docs/self-hosting.md).',
    ),
  LIVE_HOST_TOKEN_TTL_AFTER_END_MS: z.coerce
    .number()
    .int()
    .min(0)
    .default(24 * 3_600_000)
    .describe(
      'How long after its session ended a host token still reads the session (and nothing else); then it answers 401 `invalid_host_token`.',
    ),
  AUTH_FAILURES_PER_IP_PER_MINUTE: z.coerce
    .number()
    .int()
    .min(1)
    .default(30)
    .describe(
      'Failed authentications (a wrong API key, access token, host token or OAuth client secret) per minute per IP address; past it, that address’s further failures answer 429 until the minute ends. Valid credentials are never refused for it.',
    ),
  LIVE_HEARTBEAT_MS: z.coerce
    .number()
    .int()
    .min(1000)
    .max(120_000)
    .default(15_000)
    .describe(
      'How often every live event stream gets a heartbeat comment (keeps proxies and phones from dropping it).',
    ),
  WEBHOOK_ALLOW_HTTP: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true')
    .describe('Allow `http` webhook URLs (local development); otherwise they must be `https`.'),
  WEBHOOK_ALLOW_LOOPBACK: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true')
    .describe(
      'Tests and one-machine trials only: let webhook endpoints be on 127.0.0.0/8 and `::1`. Private and link-local addresses stay refused.',
    ),
  WEBHOOK_RETRY_SCHEDULE_MS: z
    .string()
    .default('5000,30000,120000,600000,1800000,3600000,10800000,21600000,43200000,86400000,86400000')
    .transform((value, ctx) => {
      const delays = value.split(',').map((part) => Number(part.trim()));
      if (
        delays.length > 50 ||
        delays.some((delay) => !Number.isInteger(delay) || delay < 0 || delay > 7 * 86_400_000)
      ) {
        ctx.addIssue({
          code: 'custom',
          message: 'must be up to 50 comma-separated whole numbers of ms, each ≤ 7 days',
        });
        return z.NEVER;
      }
      return delays;
    })
    .describe(
      'The waits before each webhook retry, in ms, comma-separated: a delivery gets one attempt plus one per entry, each wait jittered by ±25%. The default is 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 3 h, 6 h, 12 h, 24 h, 24 h: about three days.',
    ),
  WEBHOOK_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(100)
    .max(60_000)
    .default(10_000)
    .describe("One webhook attempt's deadline: connecting, sending, and the receiver's whole answer."),
  WEBHOOK_CONCURRENCY: z.coerce
    .number()
    .int()
    .min(1)
    .max(1000)
    .default(64)
    .describe('Webhook attempts in flight at once per process.'),
  WEBHOOK_ENDPOINT_CONCURRENCY: z.coerce
    .number()
    .int()
    .min(1)
    .max(1000)
    .default(16)
    .describe(
      'Of the attempts in flight, at most this many to one endpoint, so a slow receiver cannot take every slot.',
    ),
  WEBHOOK_POLL_INTERVAL_MS: z.coerce
    .number()
    .int()
    .min(10)
    .max(60_000)
    .default(500)
    .describe('How often an idle process looks for due deliveries (written by any process).'),
  WEBHOOK_RETENTION_DAYS: z.coerce
    .number()
    .int()
    .min(1)
    .max(3650)
    .default(30)
    .describe('How long finished deliveries and their attempts are kept before they are deleted.'),
  WEBHOOK_DELIVERY: z
    .enum(['true', 'false'])
    .default('true')
    .transform((v) => v === 'true')
    .describe('`false`: this process serves the API but delivers no webhooks (others on the same database do).'),
  WEBHOOK_SECRETS_KEY: z
    .string()
    .refine(
      (value) => Buffer.from(value, 'base64').length === 32,
      'must be base64 of 32 bytes (openssl rand -base64 32)',
    )
    .optional()
    .describe(
      'Base64 of 32 bytes that seals webhook signing secrets at rest, and from which the key signing live sessions’ join challenges is derived. Unset, the server keeps a key in the database itself, which protects nothing against a database dump, and warns at start-up: set it in production, the same in every process (`openssl rand -base64 32`), then run `pollkit webhooks reseal-secrets` once to move the secrets sealed before under it. Setting or changing it refuses the join challenges issued before (they live five minutes). Never logged.',
    ),
  METRICS_TOKEN: z
    .string()
    .min(16, 'must be at least 16 characters (openssl rand -hex 32)')
    .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces')
    .optional()
    .describe(
      'Turns on `GET /metrics` (Prometheus text format), readable with `Authorization: Bearer <METRICS_TOKEN>`. Unset: no metrics are collected and `/metrics` is a 404. Never logged.',
    ),
  RESPONSE_VALIDATION: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true')
    .describe('Check every response against its contract schema (the tests turn it on; it halves throughput).'),
  BOOTSTRAP: z
    .enum(['true', 'false'])
    .default('true')
    .transform((v) => v === 'true')
    .describe('On an empty database, create a default workspace and print its API key once.'),
});

export type Config = z.output<typeof ConfigSchema>;

/**
 * Settings that loosen a guard for local development and tests, and must never be on in production:
 * the server logs a warning for each one in effect when it starts (server.ts), or nothing would tell
 * an operator who copied a development `.env` that webhooks may reach `http://` or loopback addresses.
 */
const developmentOnlySettings = {
  WEBHOOK_ALLOW_HTTP: 'webhook endpoints may be http:// (deliveries unencrypted)',
  WEBHOOK_ALLOW_LOOPBACK: 'webhook endpoints may be on 127.0.0.0/8 and ::1 (this machine)',
  MEDIA_ALLOW_LOOPBACK: 'media fetches may reach 127.0.0.0/8 and ::1 (this machine)',
  RESPONSE_VALIDATION: 'every response is checked against its schema (half the throughput; a mismatch is a 500)',
} as const satisfies Partial<Record<keyof Config, string>>;

/** The development-only settings in effect, each with what it allows. */
export function developmentSettingsInEffect(config: Config): Array<{ setting: string; allows: string }> {
  return Object.entries(developmentOnlySettings).flatMap(([setting, allows]) =>
    config[setting as keyof typeof developmentOnlySettings] === true ? [{ setting, allows }] : [],
  );
}
export type ConfigInput = z.input<typeof ConfigSchema>;

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export function parseConfig(env: Record<string, string | undefined>): Config {
  const result = ConfigSchema.safeParse(
    Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== '')),
  );
  if (!result.success) {
    const lines = result.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  return result.data;
}

/**
 * The join URL of a join code (a PIN, or a self-paced session's link id): `LIVE_JOIN_URL` with the
 * code in it, or PUBLIC_BASE_URL + `/join/<code>`.
 */
export function liveJoinUrl(config: Config, port: number, pin: string): string {
  if (config.LIVE_JOIN_URL) return config.LIVE_JOIN_URL.replace('{pin}', pin);
  return `${publicBaseUrl(config, port)}/join/${pin}`;
}

/** The base URL clients reach this server at, for links the API hands out. */
export function publicBaseUrl(config: Pick<Config, 'PUBLIC_BASE_URL' | 'HOST'>, port: number): string {
  if (config.PUBLIC_BASE_URL) return config.PUBLIC_BASE_URL.replace(/\/$/, '');
  const host = config.HOST === '0.0.0.0' || config.HOST === '::' ? 'localhost' : config.HOST;
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/**
 * A relative DATA_DIR is relative to where the user ran the command: pnpm runs scripts inside the
 * package folder but records the caller's directory in INIT_CWD.
 */
export function resolveDataDir(dataDir: string): string {
  return resolve(process.env.INIT_CWD ?? process.cwd(), dataDir);
}

/**
 * `TRUST_PROXY` as Fastify's `trustProxy` takes it: `false`, the proxies' addresses, or a function
 * that trusts the last `hops` senders.
 */
export type TrustProxy = false | string[] | ((address: string, hop: number) => boolean);

/**
 * A hop count as a trust function. Fastify 5.12 no longer takes a number (it now trusts no proxy
 * for one, since a count cannot tell a proxy from a client that reaches the server directly), so
 * `TRUST_PROXY=1` silently counted every client as the proxy's address. The function restores what
 * the variable documents; docs/self-hosting.md says when a count is safe and when to list addresses.
 */
function trustHops(hops: number): (address: string, hop: number) => boolean {
  return (_address, hop) => hop < hops;
}

/**
 * One `TRUST_PROXY` entry as Fastify's proxy-addr takes it: an IPv4 or IPv6 address, one with a
 * prefix length (`10.0.0.0/8`), or a named range.
 */
function isProxyAddress(entry: string): boolean {
  if (entry === 'loopback' || entry === 'linklocal' || entry === 'uniquelocal') return true;
  const [address = '', prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^[0-9]{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}
