import type { Command } from 'commander';
import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import type { DatabaseHandle } from '../db/database.js';
import type { Database } from '../db/schema.js';
import { CREDENTIAL_CACHE_TTL_MS } from '../modules/auth/auth.service.js';
import type { CredentialBus } from './credential-bus.js';
import type { CliOutput } from './output.js';

/** What every part of the CLI shares: exit codes, the context a command runs in, the `run` wrapper. */

export const EXIT_OK = 0;
/** The command ran and failed: unknown id, a value the rules refuse, the database unavailable. */
export const EXIT_FAILURE = 1;
/** The command line itself is wrong: unknown command or option, a missing argument. */
export const EXIT_USAGE = 2;

/**
 * How long a running server may keep accepting a revoked key, or apply an old plan or rate limit:
 * its credential cache lifetime.
 */
export const CREDENTIAL_CACHE_SECONDS = CREDENTIAL_CACHE_TTL_MS / 1000;

export interface CommandContext {
  /** The environment read as the server reads it (WEBHOOK_SECRETS_KEY, …). */
  config: Config;
  db: Kysely<Database>;
  database: DatabaseHandle;
  out: CliOutput;
  /** Connects to the servers' Redis (REDIS_URL) to announce a key change; close it when done. */
  openCredentialBus(): Promise<CredentialBus>;
}

/**
 * program.ts's wrapper around a command's work: opens the database, runs the work, closes it and
 * records the exit code. Each command group loads its commands module itself, when a command runs.
 */
export type Run = <A extends unknown[]>(
  work: (context: CommandContext, ...args: A) => Promise<void>,
) => (this: Command, ...args: A) => Promise<void>;
