import { resolve } from 'node:path';
import { z } from 'zod';

/**
 * Every setting the server reads from the environment, parsed by one schema. A bad value stops the
 * process at start-up with a message naming the variable (see `loadConfig`). README.md has the table.
 */
const ConfigSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65_535).default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  PUBLIC_BASE_URL: z.url().optional(),
  DATABASE_URL: z
    .string()
    .regex(/^(postgres(ql)?:\/\/.+|memory:\/\/)$/, 'must be postgres://…, postgresql://… or memory://')
    .optional(),
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(500).default(20),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\/.+/, 'must be redis://… or rediss://…')
    .optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** `auto`: human-readable lines when stdout is a terminal, JSON lines otherwise (logger.ts). */
  LOG_FORMAT: z.enum(['auto', 'json', 'pretty']).default('auto'),
  BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(50 * 1024 * 1024)
    .default(1024 * 1024),
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(120),
  /** Lifetime of an OAuth access token (`expires_in`). */
  OAUTH_TOKEN_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(60)
    .max(24 * 3600)
    .default(3600),
  /** Media ingestion (docs/media.md): one deadline per fetch, body included. */
  MEDIA_FETCH_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  /** Largest media download; the body is cut off past it. */
  MEDIA_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(200 * 1024 * 1024)
    .default(10 * 1024 * 1024),
  /** Largest image (width × height) sharp will decode: the guard against decompression bombs. */
  MEDIA_MAX_PIXELS: z.coerce.number().int().min(1).default(50_000_000),
  /** Tests only: let media fetches reach 127.0.0.0/8 and ::1. Private and link-local stay refused. */
  MEDIA_ALLOW_LOOPBACK: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true'),
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).default(10_000),
  /**
   * The language model that drafts skip logic (`POST /polls/{id}/branch`). Without a key, or when the
   * provider fails, the rule-based parser answers instead. The key is a credential: never logged.
   */
  OPENAI_API_KEY: z.string().min(1).optional(),
  /** The client's `baseURL`: a proxy, or another provider that speaks the Chat Completions API. */
  OPENAI_BASE_URL: z.url().optional(),
  OPENAI_MODEL: z.string().min(1).default('gpt-4o-mini'),
  /** The budget of one draft: every attempt and the waits between retries, end to end. */
  OPENAI_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(15_000),
  /**
   * Where the audience joins a live session: a URL with `{pin}` in it (it is the session's `joinUrl`
   * and what its QR code encodes). Default: PUBLIC_BASE_URL + `/join/{pin}`.
   */
  LIVE_JOIN_URL: z
    .string()
    .refine((value) => value.includes('{pin}') && URL.canParse(value.replace('{pin}', '000000')), {
      message: 'must be an absolute URL containing {pin}',
    })
    .optional(),
  /**
   * Which proxies' `X-Forwarded-For` to believe for the client's address (participant limits are per
   * address): `false` (the peer address, default), `true` (any), a hop count, or addresses/CIDRs
   * separated by commas (Fastify's `trustProxy`).
   */
  TRUST_PROXY: z
    .string()
    .default('false')
    .transform((value): boolean | number | string => {
      if (value === 'true') return true;
      if (value === 'false' || value === '') return false;
      return /^[0-9]+$/.test(value) ? Number(value) : value;
    }),
  /** Requests per minute per IP address on the participant routes (`/live/{pin}/…`) that name no participant. */
  LIVE_RATE_LIMIT_PER_IP_PER_MINUTE: z.coerce.number().int().min(1).default(600),
  /** Requests per minute per participant (a valid `X-Participant-Token`) on the participant routes. */
  LIVE_RATE_LIMIT_PER_PARTICIPANT_PER_MINUTE: z.coerce.number().int().min(1).default(120),
  /** Unknown PINs per minute per IP address before that address is refused every PIN until the minute ends. */
  LIVE_PIN_MISSES_PER_IP_PER_MINUTE: z.coerce.number().int().min(1).default(10),
  /** How often every event stream gets a heartbeat comment (keeps proxies and phones from dropping it). */
  LIVE_HEARTBEAT_MS: z.coerce.number().int().min(1000).max(120_000).default(15_000),
  /**
   * Webhooks (docs/webhooks.md). Endpoint URLs must be https unless this is `true` (local development:
   * a receiver on your machine over plain http).
   */
  WEBHOOK_ALLOW_HTTP: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true'),
  /** Tests only: let endpoints resolve to 127.0.0.0/8 and ::1. Private and link-local stay refused. */
  WEBHOOK_ALLOW_LOOPBACK: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true'),
  /**
   * The waits before each retry, in ms, comma-separated: a delivery gets one attempt plus one per
   * entry. Each wait is jittered by ±25%. Default: 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 3 h, 6 h,
   * 12 h, 24 h, 24 h — about three days in all.
   */
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
    }),
  /** One attempt's deadline: connecting, sending, and the receiver's whole answer. */
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  /** Attempts in flight at once in this process, and at most this many per endpoint (one slow receiver cannot take them all). */
  WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(64),
  WEBHOOK_ENDPOINT_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(16),
  /** How often an idle delivery worker looks for due deliveries (written by any process). */
  WEBHOOK_POLL_INTERVAL_MS: z.coerce.number().int().min(10).max(60_000).default(500),
  /** Finished deliveries and their attempts are kept this long, then deleted. */
  WEBHOOK_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
  /** `false`: this process serves the API but delivers nothing (another process does). */
  WEBHOOK_DELIVERY: z
    .enum(['true', 'false'])
    .default('true')
    .transform((v) => v === 'true'),
  /**
   * Base64 of 32 bytes that seals webhook signing secrets in the database. Unset, the server makes a
   * key and keeps it in the database itself, which protects nothing against a database dump: set
   * this in production, the same in every process. A credential: never logged.
   */
  WEBHOOK_SECRETS_KEY: z
    .string()
    .refine(
      (value) => Buffer.from(value, 'base64').length === 32,
      'must be base64 of 32 bytes (openssl rand -base64 32)',
    )
    .optional(),
  /** Check every response against its contract schema. On in tests; off by default (see docs/architecture.md). */
  RESPONSE_VALIDATION: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true'),
  BOOTSTRAP: z
    .enum(['true', 'false'])
    .default('true')
    .transform((v) => v === 'true'),
});

export type Config = z.output<typeof ConfigSchema>;
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

/** The join URL of a PIN: `LIVE_JOIN_URL` with the PIN in it, or PUBLIC_BASE_URL + `/join/<pin>`. */
export function liveJoinUrl(config: Config, port: number, pin: string): string {
  if (config.LIVE_JOIN_URL) return config.LIVE_JOIN_URL.replace('{pin}', pin);
  return `${publicBaseUrl(config, port)}/join/${pin}`;
}

/** The base URL clients reach this server at, for links the API hands out. */
export function publicBaseUrl(config: Config, port: number): string {
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
