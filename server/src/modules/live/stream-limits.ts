import { ApiError } from '../../core/api-error.js';

/** Who holds a stream: a participant (its few tabs) or an address's anonymous viewers, and its cap. */
export interface StreamHolder {
  key: string;
  limit: number;
  /** How the refusal names the holder. */
  what: string;
}

/**
 * The event streams this process holds, counted against its cap (every stream holds a socket) and
 * its holder's. Past either, 429 in the envelope, before the stream opens.
 */
export class StreamLimits {
  /** Open streams per holder: the caps count them. */
  readonly #streamsOf = new Map<string, number>();
  #streams = 0;
  /** Said once when the streams pass 90 % of the cap, again only after they fell below 80 %. */
  #warned = false;
  /** Streams refused because the process held its most (not a holder's cap), since start. */
  #refusedAtCap = 0;

  constructor(
    private readonly perProcess: number,
    /** Told when the process's streams approach its cap (the server logs a warning). */
    private readonly onApproach: (streams: number, cap: number) => void = () => {},
  ) {}

  /** Streams held now. */
  get streams(): number {
    return this.#streams;
  }

  /** The most this process holds (presenters' streams included). */
  get cap(): number {
    return this.perProcess;
  }

  /** Streams refused at the process's cap since start. */
  get refusedAtCap(): number {
    return this.#refusedAtCap;
  }

  /**
   * The places kept for presenters' streams: a room that fills the process must not lock its host
   * out of the presenter screen. Participants' and anonymous streams stop that many short of the cap.
   */
  get presenterPlaces(): number {
    return Math.min(100, Math.max(1, Math.floor(this.perProcess / 100)));
  }

  /**
   * Counts a stream from now; returns what stops counting it (idempotent). Throws 429 past a cap.
   * `holder`: a participant's or an address's streams (undefined: a presenter's, which may use the
   * places kept for presenters).
   */
  take(holder: StreamHolder | undefined): () => void {
    const perProcess = this.perProcess;
    const most = holder ? perProcess - this.presenterPlaces : perProcess;
    if (this.#streams >= most) {
      this.#refusedAtCap += 1;
      throw streamsExceeded(`This server holds ${most} event streams, its most; retry shortly`, most);
    }
    const held = holder ? (this.#streamsOf.get(holder.key) ?? 0) : 0;
    if (holder && held >= holder.limit) {
      throw streamsExceeded(`At most ${holder.limit} event streams at once for ${holder.what}`, holder.limit);
    }
    this.#streams += 1;
    if (holder) this.#streamsOf.set(holder.key, held + 1);
    if (!this.#warned && this.#streams >= perProcess * 0.9) {
      this.#warned = true;
      this.onApproach(this.#streams, perProcess);
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#streams -= 1;
      if (this.#warned && this.#streams < perProcess * 0.8) this.#warned = false;
      if (!holder) return;
      const left = (this.#streamsOf.get(holder.key) ?? 1) - 1;
      if (left > 0) this.#streamsOf.set(holder.key, left);
      else this.#streamsOf.delete(holder.key);
    };
  }
}

function streamsExceeded(message: string, limit: number): ApiError {
  return new ApiError('rate_limited', message, { limit });
}
