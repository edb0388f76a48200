import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { ERASED, eraserOfText } from '../../core/erase-in-text.js';
import type { SecretSealer } from '../../core/sealed-secrets.js';
import { type DependencyUnavailableError, isDependencyUnavailable } from '../../core/unavailable.js';
import { newId } from '../../db/ids.js';
import type { Database } from '../../db/schema.js';
import { GroupCommit } from '../../infra/group-commit.js';
import type { WebhookResponse, WebhookSender } from '../../infra/webhook-sender.js';
import {
  type AttemptOutcome,
  type ClaimedDelivery,
  claimDueDeliveries,
  pruneFinishedDeliveries,
  recordOutcomes,
} from './delivery.repository.js';
import { fanOutEventBatches } from './outbox.repository.js';
import { signedHeaders } from './webhook-signing.js';

export interface DeliveryWorkerOptions {
  /** The waits before retries, in ms (WEBHOOK_RETRY_SCHEDULE_MS): a delivery gets `length + 1` attempts. */
  retryScheduleMs: readonly number[];
  /** One attempt's deadline (WEBHOOK_TIMEOUT_MS). */
  timeoutMs: number;
  /** Attempts in flight at once in this process, and per endpoint. */
  concurrency: number;
  endpointConcurrency: number;
  /** How often an idle worker looks for due deliveries. */
  pollIntervalMs: number;
  /** The database runs in this thread (PGlite): gather a turn's outcomes before recording them (GroupCommit). */
  inProcessDatabase?: boolean;
  /** Finished deliveries older than this are deleted. */
  retentionMs: number;
}

/** A claimed attempt is someone else's to retry only this long after its deadline. */
const LEASE_MARGIN_MS = 30_000;
/** While the database is away, attempts' outcomes are kept and their recording tried again this often. */
const RECORD_RETRY_MS = 1_000;

/** What became of one attempt (counted by /metrics). */
export type AttemptResult = 'succeeded' | 'failed' | 'gone' | 'interrupted';
/** Retention runs this often, deleting at most this many deliveries a round. */
const PRUNE_EVERY_MS = 10 * 60_000;
const PRUNE_BATCH = 1_000;
/**
 * Event batches fanned out before each claim (a batch is one answer-writer flush: tens of events):
 * enough to fill every slot, few enough that fanning out keeps pace with claiming instead of
 * holding the first claim back behind a whole burst's backlog.
 */
const FAN_OUT_BATCHES = 8;

/**
 * The delivery worker of one process. It claims due deliveries from the outbox
 * (delivery.repository.ts: `FOR UPDATE SKIP LOCKED`, so any number of processes share the work and
 * never send the same attempt twice), sends each, signed, through the WebhookSender, and records
 * the outcomes in batches (GroupCommit: under load, one transaction records hundreds).
 *
 * - Success is a 2xx answer within the deadline; anything else is a failure, retried after the next
 *   wait of the schedule, jittered by ±25% so a receiver that failed for everyone is not hit by
 *   every retry in the same second.
 * - 410 Gone disables the endpoint at once; a delivery that exhausts its schedule with nothing
 *   delivered to its endpoint since the delivery was created disables it too.
 * - At most `endpointConcurrency` attempts per endpoint are in flight in this process, so one slow
 *   receiver holds a bounded share of the slots and never delays everybody else's deliveries.
 * - Ordering: none is promised. Deliveries are claimed oldest-due first, but several are in flight
 *   per endpoint and a retry goes after newer events (docs/webhooks.md).
 */
export class WebhookDeliveryWorker {
  readonly #inFlight = new Map<string, number>();
  #inFlightTotal = 0;
  readonly #sends = new Set<Promise<void>>();
  readonly #recorder: GroupCommit<AttemptOutcome, undefined>;
  #timer: NodeJS.Timeout | undefined;
  #claiming = false;
  /** Set when a claim was asked for while one ran: claim again as soon as it ends. */
  #again = false;
  #stopped = true;
  #stopping: Promise<void> | undefined;
  /** Aborts the attempts still in flight when a stop's grace period is over. */
  #interrupt = new AbortController();
  #lastPrune = 0;
  /** When to fan event batches out next: before every claim while there are some, else once a poll. */
  #nextFanOutAt = 0;
  /** The database could not be reached: logged once, until a claim succeeds again. */
  #paused = false;

  constructor(
    private readonly deps: {
      db: Kysely<Database>;
      sender: WebhookSender;
      secretSealer: SecretSealer;
      log: Pick<Logger, 'error' | 'warn' | 'info'>;
      /**
       * Whether the API's writes are queueing (the answer writer is saturated). Deliveries then give
       * way: the worker claims once per poll interval instead of as soon as slots free up, so that
       * during a burst of answers deliveries go on at a floor — a batch every WEBHOOK_POLL_INTERVAL_MS
       * — without taking the burst's database time and CPU, and catch up at full speed after it.
       */
      busy?: () => boolean;
      /** Told what became of each attempt (metrics). */
      onAttempt?: (result: AttemptResult) => void;
    },
    private readonly options: DeliveryWorkerOptions,
  ) {
    this.#recorder = new GroupCommit((outcomes) => this.#record(outcomes), {
      maxBatch: 500,
      maxConcurrentFlushes: 1,
      gatherBeforeFlush: options.inProcessDatabase ?? false,
      failsWholeBatch: isDependencyUnavailable,
    });
  }

  /**
   * Records a batch of outcomes. While the database is away they are kept and tried again every
   * second, for as long as the attempts' leases last: recorded late, a delivery is not sent twice;
   * past its lease another process may claim it again, and the outcome we hold no longer counts
   * (delivery.repository.ts records an outcome only for the attempt it belongs to). A stop gives up
   * at once: those deliveries go out again after their lease, at least once.
   */
  async #record(outcomes: AttemptOutcome[]): Promise<undefined[]> {
    const giveUpAt = Date.now() + this.options.timeoutMs + LEASE_MARGIN_MS;
    for (;;) {
      try {
        const disabled = await recordOutcomes(this.deps.db, outcomes, () => newId('webhookAttempt'));
        for (const [endpointId, reason] of disabled) {
          this.deps.log.warn({ endpointId, reason }, 'webhook endpoint disabled');
        }
        return outcomes.map(() => undefined);
      } catch (error) {
        if (!isDependencyUnavailable(error) || this.#stopped || Date.now() + RECORD_RETRY_MS > giveUpAt) throw error;
        this.#pausedBy(error);
        await new Promise((resolve) => setTimeout(resolve, RECORD_RETRY_MS));
      }
    }
  }

  /** The database is away: say so once, and keep polling (each poll finds out whether it is back). */
  #pausedBy(error: DependencyUnavailableError): void {
    if (this.#paused) return;
    this.#paused = true;
    this.deps.log.warn(
      { reason: error.reason },
      'webhook deliveries paused: the database is unreachable; deliveries due meanwhile go out when it is back',
    );
  }

  #resumed(): void {
    if (!this.#paused) return;
    this.#paused = false;
    this.deps.log.info('webhook deliveries resumed');
  }

  start(): void {
    if (!this.#stopped) return;
    this.#stopped = false;
    this.#stopping = undefined;
    if (this.#interrupt.signal.aborted) this.#interrupt = new AbortController();
    this.nudge();
  }

  /** Something may be due now (a delivery was queued in this process): look without waiting for the timer. */
  nudge(): void {
    if (this.#stopped) return;
    if (this.#claiming) {
      this.#again = true;
      return;
    }
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.#claimLoop(), 0);
  }

  /**
   * Stops claiming at once, lets the attempts in flight finish for up to `graceMs`, then interrupts
   * the rest — recorded as failed and due again at once, so another process (or this one, restarted)
   * sends them — and records every outcome. Shutdown calls it first, so that no attempt starts while
   * requests drain, and bounds the grace by its own deadline. A process killed outright leaves its
   * attempts due again after their lease: at least once. Calling it again returns the same stop.
   */
  stop(graceMs = Number.POSITIVE_INFINITY): Promise<void> {
    this.#stopping ??= this.#stop(graceMs);
    return this.#stopping;
  }

  async #stop(graceMs: number): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    while (this.#claiming) await new Promise((resolve) => setTimeout(resolve, 5));
    let graceTimer: NodeJS.Timeout | undefined;
    const graceOver = new Promise<void>((resolve) => {
      if (Number.isFinite(graceMs)) graceTimer = setTimeout(resolve, graceMs);
    });
    await Promise.race([Promise.all([...this.#sends]), graceOver]);
    clearTimeout(graceTimer);
    if (this.#sends.size > 0) this.#interrupt.abort();
    await Promise.all([...this.#sends]);
    await this.#recorder.drained();
    this.deps.sender.close();
  }

  async #claimLoop(): Promise<void> {
    if (this.#stopped || this.#claiming) return;
    this.#claiming = true;
    try {
      for (;;) {
        this.#again = false;
        const busy = this.deps.busy?.() ?? false;
        const room = this.options.concurrency - this.#inFlightTotal;
        if (room <= 0) break;
        const perEndpoint = new Map<string, number>();
        for (const [endpointId, count] of this.#inFlight) {
          perEndpoint.set(endpointId, Math.max(0, this.options.endpointConcurrency - count));
        }
        // Answers' events first become deliveries: a batch while the API's writes queue (enough for the
        // claim's floor), else as many as a claim of every slot could take. When there were none,
        // the next look is a poll away, not before each of the claims a backlog takes.
        if (Date.now() >= this.#nextFanOutAt) {
          const written = await fanOutEventBatches(this.deps.db, {
            limit: busy ? 1 : FAN_OUT_BATCHES,
            skipLocked: true,
          });
          this.#nextFanOutAt = written > 0 ? 0 : Date.now() + this.options.pollIntervalMs;
        }
        const claimed = await claimDueDeliveries(this.deps.db, {
          limit: room,
          leaseMs: this.options.timeoutMs + LEASE_MARGIN_MS,
          perEndpointDefault: this.options.endpointConcurrency,
          perEndpoint,
        });
        this.#resumed();
        for (const delivery of claimed) this.#send(delivery);
        if (this.#stopped || busy || (claimed.length < room && !this.#again)) break;
      }
      await this.#pruneNowAndThen();
    } catch (error) {
      if (isDependencyUnavailable(error)) this.#pausedBy(error);
      else this.deps.log.error({ err: error }, 'claiming webhook deliveries failed');
    } finally {
      this.#claiming = false;
      if (!this.#stopped) {
        clearTimeout(this.#timer);
        this.#timer = setTimeout(() => void this.#claimLoop(), this.options.pollIntervalMs);
      }
    }
  }

  #send(delivery: ClaimedDelivery): void {
    this.#inFlightTotal += 1;
    this.#inFlight.set(delivery.endpoint_id, (this.#inFlight.get(delivery.endpoint_id) ?? 0) + 1);
    const send = this.#attempt(delivery)
      .catch((error: unknown) => {
        // An outcome the database was too long away to take: the delivery goes out again after its
        // lease (the pause is logged once, by #pausedBy).
        if (!isDependencyUnavailable(error)) {
          this.deps.log.error({ err: error, deliveryId: delivery.id }, 'webhook attempt failed');
        }
      })
      .finally(() => {
        this.#sends.delete(send);
        this.#inFlightTotal -= 1;
        const left = (this.#inFlight.get(delivery.endpoint_id) ?? 1) - 1;
        if (left === 0) this.#inFlight.delete(delivery.endpoint_id);
        else this.#inFlight.set(delivery.endpoint_id, left);
        // Claim more once half the slots are free: one claim per many sends, not one per send.
        // While the API's writes queue, the poll claims instead (deps.busy).
        if (this.#inFlightTotal <= this.options.concurrency / 2 && !this.deps.busy?.()) this.nudge();
      });
    this.#sends.add(send);
  }

  async #attempt(delivery: ClaimedDelivery): Promise<void> {
    const startedAt = new Date();
    let response: WebhookResponse;
    try {
      const headers = signedHeaders(
        this.#secretsOf(delivery, startedAt),
        delivery.event_id,
        delivery.payload,
        startedAt,
      );
      response = await this.deps.sender.send(
        { url: delivery.url, headers, body: delivery.payload },
        this.#interrupt.signal,
      );
    } catch (error) {
      // A secret that cannot be opened (WEBHOOK_SECRETS_KEY changed): a failed attempt, and why.
      response = { status: null, latencyMs: 0, excerpt: null, error: (error as Error).message };
    }
    const succeeded = response.status !== null && response.status >= 200 && response.status < 300;
    // Cut short by a shutdown: due again at once, not after the next wait of the schedule.
    const interrupted = response.status === null && this.#interrupt.signal.aborted;
    this.deps.onAttempt?.(
      succeeded ? 'succeeded' : response.status === 410 ? 'gone' : interrupted ? 'interrupted' : 'failed',
    );
    const logged = deliveryLogText(delivery);
    await this.#recorder.submit({
      deliveryId: delivery.id,
      endpointId: delivery.endpoint_id,
      attempt: delivery.attempt,
      startedAt,
      succeeded,
      responseStatus: response.status,
      latencyMs: response.latencyMs,
      responseExcerpt: response.excerpt === null ? null : logged(response.excerpt),
      error: response.error === null ? null : logged(response.error),
      nextAttemptAt:
        succeeded || response.status === 410
          ? null
          : interrupted
            ? new Date()
            : this.#retryAt(delivery.schedule_attempt),
      gone: response.status === 410,
      deliveryCreatedAt: delivery.created_at,
    });
  }

  /** The current secret, and the one a rotation replaced while its 24 hours last. */
  #secretsOf(delivery: ClaimedDelivery, now: Date): string[] {
    const secrets = [this.deps.secretSealer.open(delivery.secret_sealed)];
    if (
      delivery.previous_secret_sealed &&
      delivery.previous_secret_expires_at &&
      delivery.previous_secret_expires_at > now
    ) {
      secrets.push(this.deps.secretSealer.open(delivery.previous_secret_sealed));
    }
    return secrets;
  }

  /** After failed attempt n (1-based) of the schedule: the n-th wait, ±25%; null once the schedule is spent. */
  #retryAt(scheduleAttempt: number): Date | null {
    const wait = this.options.retryScheduleMs[scheduleAttempt - 1];
    if (wait === undefined) return null;
    return new Date(Date.now() + wait * (0.75 + Math.random() * 0.5));
  }

  async #pruneNowAndThen(): Promise<void> {
    if (Date.now() - this.#lastPrune < PRUNE_EVERY_MS) return;
    this.#lastPrune = Date.now();
    const pruned = await pruneFinishedDeliveries(
      this.deps.db,
      new Date(Date.now() - this.options.retentionMs),
      PRUNE_BATCH,
    );
    if (pruned > 0) this.deps.log.info({ pruned }, 'old webhook deliveries deleted');
  }
}

/**
 * How a receiver's answer to this delivery is kept in the delivery log. A `respondent.erased` event
 * carries the id erased until it is delivered (then its stored copy is purged: delivery.repository.ts);
 * a receiver that echoes it must not keep it in the log for the retention period, so the id is
 * erased from the excerpt and the error of each of its attempts, as erasure rewrites their records.
 */
function deliveryLogText(delivery: ClaimedDelivery): (text: string) => string {
  if (delivery.event_type !== 'respondent.erased') return (text) => text;
  let id: unknown;
  try {
    id = (JSON.parse(delivery.payload) as { data?: { id?: unknown } }).data?.id;
  } catch {
    id = undefined;
  }
  return typeof id === 'string' && id !== ERASED ? eraserOfText([id], [id]) : (text) => text;
}
