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

  constructor(
    private readonly perProcess: number,
    /** Told when the process's streams approach its cap (the server logs a warning). */
    private readonly onApproach: (streams: number, cap: number) => void = () => {},
  ) {}

  /** Streams held now. */
  get streams(): number {
    return this.#streams;
  }

  /** Counts a stream from now; returns what stops counting it (idempotent). Throws 429 past a cap. */
  take(holder: StreamHolder | undefined): () => void {
    const perProcess = this.perProcess;
    if (this.#streams >= perProcess) {
      throw streamsExceeded(`This server holds ${perProcess} event streams, its most; retry shortly`, perProcess);
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
