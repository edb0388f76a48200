import type { Logger } from 'pino';
import type { InvalidationBus } from '../../infra/invalidation.js';

/**
 * The bus topic of live-session messages: `e <sessionId> <seq>` (history), `d <sessionId>` (answers,
 * joins, upvotes, a question moderated, the room's answers deleted), `m <sessionId> <participantId>` (a self-paced participant moved on) and
 * `x <sessionId> <participantId> <tokenHash>` (the host removed a participant).
 */
const TOPIC = 'live';

/** A live-session message, as every process hears it. */
export type LiveMessage =
  | { kind: 'history'; sessionId: string; seq: number }
  | { kind: 'activity'; sessionId: string }
  | { kind: 'moved'; sessionId: string; participantId: string }
  | { kind: 'removed'; sessionId: string; participantId: string | undefined; tokenHash: string | undefined };

/**
 * Live-session messages between processes (Redis pub/sub, or in process): what each process's hub
 * must hear of the others. Activity (answers, joins, upvotes) is announced at most once per refresh
 * interval per session and process — never once per answer.
 */
export class LiveBus {
  readonly #announced = new Map<string, { at: number; timer: NodeJS.Timeout | undefined }>();

  constructor(
    private readonly bus: InvalidationBus,
    private readonly log: Pick<Logger, 'error'>,
    private readonly refreshIntervalMs: number,
    onMessage: (message: LiveMessage) => void,
  ) {
    bus.subscribe(TOPIC, (text) => {
      const message = parseMessage(text);
      if (message) onMessage(message);
    });
  }

  /** History event `seq` of the session was written. */
  historyWritten(sessionId: string, seq: number): void {
    this.#publish(`e ${sessionId} ${seq}`);
  }

  /** A self-paced participant moved on: the processes holding its streams send its new place. */
  participantMoved(sessionId: string, participantId: string): void {
    this.#publish(`m ${sessionId} ${participantId}`);
  }

  /** The host removed a participant: resolves once the message is published. */
  participantRemoved(sessionId: string, participantId: string, tokenHash: string): Promise<void> {
    return this.bus.publish(TOPIC, `x ${sessionId} ${participantId} ${tokenHash}`);
  }

  /** Answers or joins happened: tell every process, at most once per refresh interval per session. */
  activity(sessionId: string): void {
    const now = Date.now();
    const state = this.#announced.get(sessionId);
    if (state?.timer) return;
    const wait = state ? state.at + this.refreshIntervalMs - now : 0;
    if (wait <= 0) {
      this.#announced.set(sessionId, { at: now, timer: undefined });
      this.#publish(`d ${sessionId}`);
      return;
    }
    const timer = setTimeout(() => {
      this.#announced.set(sessionId, { at: Date.now(), timer: undefined });
      this.#publish(`d ${sessionId}`);
    }, wait);
    timer.unref();
    this.#announced.set(sessionId, { at: state?.at ?? now, timer });
  }

  #publish(message: string): void {
    this.bus.publish(TOPIC, message).catch((error: unknown) => {
      this.log.error({ err: error }, 'could not publish a live-session message');
    });
  }

  /** Forgets the announcements long past (without it the map grew with every session ever seen). */
  sweep(now: number): void {
    for (const [id, state] of this.#announced) {
      if (!state.timer && now - state.at > this.refreshIntervalMs) this.#announced.delete(id);
    }
  }

  /** Sessions with an announcement remembered (tests, and the sweep's own test). */
  get size(): number {
    return this.#announced.size;
  }

  /** Stops the announcements waiting for their turn (shutdown). */
  close(): void {
    for (const state of this.#announced.values()) if (state.timer) clearTimeout(state.timer);
  }
}

/** A message as published; undefined for one this version does not know. */
function parseMessage(text: string): LiveMessage | undefined {
  const [kind, id, third, fourth] = text.split(' ');
  if (id === undefined) return undefined;
  switch (kind) {
    case 'e':
      return { kind: 'history', sessionId: id, seq: Number(third) };
    case 'd':
      return { kind: 'activity', sessionId: id };
    case 'm':
      return third === undefined ? undefined : { kind: 'moved', sessionId: id, participantId: third };
    case 'x':
      return { kind: 'removed', sessionId: id, participantId: third, tokenHash: fourth };
    default:
      return undefined;
  }
}
