import { timingSafeEqual } from 'node:crypto';
import type { JoinChallenge } from '@pollkit/contracts';
import { createChallenge, extractParams } from 'altcha-lib/v1';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { ApiError } from '../../core/api-error.js';
import type { Clock } from '../../core/clock.js';
import type { Database } from '../../db/schema.js';
import type { RedisConnection } from '../../infra/redis.js';
import { spendChallenge } from './join-challenge.repository.js';

/**
 * The join challenge (docs/moderation.md, "The join challenge"): a session with `joinChallenge: "pow"`
 * takes a new participant only with the solution of a proof-of-work challenge, so that a script
 * flooding a join link posted in public pays for each participant it adds.
 *
 * Challenges are ALTCHA's (v1: SHA-256, made and checked by `altcha-lib`, MIT), stateless until they
 * are used: the salt carries the session's id and the expiry, the signature is an HMAC of the
 * challenge with a key only the server has (derived from the webhook sealing key:
 * core/sealed-secrets.ts `deriveKey`; never stored, never logged). A solution joins once: its
 * challenge is recorded as used until it expires (in Redis when configured, else in the database).
 */

/**
 * The secret number is drawn from 0 to this: a solver tries half of them on average. 20,000 is about
 * 0.3 s on average, 0.7 s at worst, for the Web Crypto solver in Chromium slowed down four times as a
 * mid-range phone stands in for (server/bench/RESULTS.md, "Join challenge").
 */
export const JOIN_CHALLENGE_MAX_NUMBER = 20_000;
/** How long a challenge joins after it was issued. */
export const JOIN_CHALLENGE_TTL_MS = 5 * 60_000;
const ALGORITHM = 'SHA-256';
/** The HKDF purpose of the HMAC key (core/sealed-secrets.ts). */
export const JOIN_CHALLENGE_KEY_PURPOSE = 'join-challenge/v1';

/** Why a join's challenge failed: `details.reason` of 422 `challenge_failed`. */
export type ChallengeFailure = 'missing' | 'invalid' | 'expired' | 'used';

/** Where used challenges are remembered until they expire. */
export interface SpentChallenges {
  /** Records `challenge` as used until `expiresAt`: false when it already was. */
  spend(challenge: string, expiresAt: Date): Promise<boolean>;
}

/** A solution as ALTCHA sends it, decoded: base64 of this JSON. */
interface Solution {
  algorithm: typeof ALGORITHM;
  challenge: string;
  number: number;
  salt: string;
  signature: string;
}

export class JoinChallenges {
  /** altcha-lib takes the HMAC key as text: the derived key's hex. */
  readonly #hmacKey: string;

  constructor(
    key: Buffer,
    private readonly spent: SpentChallenges,
    private readonly clock: Clock,
    private readonly maxNumber = JOIN_CHALLENGE_MAX_NUMBER,
  ) {
    if (key.length < 32) throw new Error('The join challenge key is 32 bytes at least');
    this.#hmacKey = key.toString('hex');
  }

  /** A new challenge for joining `sessionId`, valid for JOIN_CHALLENGE_TTL_MS. */
  async issue(sessionId: string): Promise<JoinChallenge> {
    // ALTCHA counts expiry in whole seconds: the one said is the one checked.
    const expires = new Date(Math.floor((this.clock.now() + JOIN_CHALLENGE_TTL_MS) / 1000) * 1000);
    const made = await createChallenge({
      algorithm: ALGORITHM,
      hmacKey: this.#hmacKey,
      maxnumber: this.maxNumber,
      expires,
      params: { session: sessionId },
    });
    return {
      algorithm: ALGORITHM,
      challenge: made.challenge,
      maxnumber: made.maxnumber ?? this.maxNumber,
      salt: made.salt,
      signature: made.signature,
      expiresAt: expires.toISOString(),
    };
  }

  /**
   * Checks the solution a join sent for `sessionId` and spends it: 422 `challenge_failed` when there
   * is none, when it is malformed, wrong, forged or another session's (`invalid`), past its expiry
   * (`expired`), or already used (`used`). Its `details` carry a new challenge, so a client can solve
   * and join again without another request.
   */
  async redeem(sessionId: string, sent: string | undefined): Promise<void> {
    const failure = await this.#check(sessionId, sent);
    if (failure) throw await this.#failed(sessionId, failure);
  }

  async #check(sessionId: string, sent: string | undefined): Promise<ChallengeFailure | undefined> {
    if (sent === undefined) return 'missing';
    const solution = decode(sent);
    if (!solution) return 'invalid';
    // The library's check (the challenge from salt and number, its HMAC), compared in constant time.
    const expected = await createChallenge({
      algorithm: ALGORITHM,
      hmacKey: this.#hmacKey,
      number: solution.number,
      salt: solution.salt,
    });
    if (!sameText(expected.challenge, solution.challenge) || !sameText(expected.signature, solution.signature)) {
      return 'invalid';
    }
    // Signed, so these are the server's own: the session it was issued for, and when it expires.
    const params = extractParams(solution);
    if (params.session !== sessionId) return 'invalid';
    const expiresAt = Number(params.expires) * 1000;
    if (!Number.isSafeInteger(expiresAt)) return 'invalid';
    if (expiresAt <= this.clock.now()) return 'expired';
    return (await this.spent.spend(solution.challenge, new Date(expiresAt))) ? undefined : 'used';
  }

  async #failed(sessionId: string, reason: ChallengeFailure): Promise<ApiError> {
    const message = {
      missing: 'This session asks new participants to solve a join challenge first: send its solution as `challenge`',
      invalid: 'The join challenge’s solution is not right, or it was not issued for this session',
      expired: 'The join challenge has expired: solve a new one',
      used: 'The join challenge was already used to join: solve a new one',
    }[reason];
    return new ApiError('challenge_failed', message, {
      required: true,
      reason,
      challenge: await this.issue(sessionId),
    });
  }
}

/** The solution's JSON out of its base64, with the fields and types ALTCHA sends; undefined when it is not one. */
function decode(sent: string): Solution | undefined {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(sent, 'base64').toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const { algorithm, challenge, number, salt, signature } = value as Record<string, unknown>;
  if (algorithm !== ALGORITHM) return undefined;
  if (typeof challenge !== 'string' || typeof salt !== 'string' || typeof signature !== 'string') return undefined;
  if (typeof number !== 'number' || !Number.isSafeInteger(number) || number < 0) return undefined;
  return { algorithm: ALGORITHM, challenge, number, salt, signature };
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** Used challenges in the database (spent_join_challenges): shared by every process on it. */
export class DatabaseSpentChallenges implements SpentChallenges {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
  ) {}

  spend(challenge: string, expiresAt: Date): Promise<boolean> {
    return spendChallenge(this.db, challenge, expiresAt, new Date(this.clock.now()));
  }
}

/**
 * Used challenges in Redis, each a key that expires with its challenge (`SET NX PX`): nothing to
 * clear. While Redis cannot be reached they are recorded in the database instead (a challenge used
 * in Redis before the outage is then not known there: for its five minutes at most, once more).
 */
export class RedisSpentChallenges implements SpentChallenges {
  #inFallback = false;

  constructor(
    private readonly redis: RedisConnection,
    private readonly fallback: SpentChallenges,
    private readonly clock: Clock,
    private readonly log: Pick<Logger, 'warn' | 'info'>,
  ) {}

  async spend(challenge: string, expiresAt: Date): Promise<boolean> {
    const ttlMs = Math.max(1, expiresAt.getTime() - this.clock.now());
    if (!this.redis.ready) return this.#fallback(challenge, expiresAt, 'not connected');
    let reply: string | null;
    try {
      reply = await this.redis.client.set(`pollkit:jc:${challenge}`, '1', 'PX', ttlMs, 'NX');
    } catch (error) {
      return this.#fallback(challenge, expiresAt, (error as Error).message);
    }
    if (this.#inFallback) {
      this.#inFallback = false;
      this.log.info('Redis reachable: used join challenges are recorded there again');
    }
    return reply === 'OK';
  }

  #fallback(challenge: string, expiresAt: Date, reason: string): Promise<boolean> {
    if (!this.#inFallback) {
      this.#inFallback = true;
      this.log.warn(
        { reason },
        'Redis unreachable: used join challenges are recorded in the database until it is back',
      );
    }
    return this.fallback.spend(challenge, expiresAt);
  }
}
