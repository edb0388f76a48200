/**
 * The pages' `fetch`, handed to the SDK: it reads the server's clock off every response's `Date`
 * header (a quiz countdown must run on the server's clock, not the phone's) and tells the page when
 * its event stream is connected, which the SDK's iterator does not say.
 */

/**
 * The server's clock, estimated from `Date` headers. A header says the server's clock read between
 * `date` and `date + 999` ms at some instant between sending the request and receiving the answer;
 * each response narrows the interval the offset between the two clocks lies in. The estimate is the
 * smallest correction in that interval: none when the clocks agree as far as the headers can tell
 * (devices set by NTP, the usual case), else the nearest bound, within a second of the truth, as a
 * countdown of whole seconds needs.
 */
export class ServerClock {
  #low = Number.NEGATIVE_INFINITY;
  #high = Number.POSITIVE_INFINITY;

  observe(dateHeader: string | null, sentAt: number, receivedAt: number): void {
    const date = dateHeader === null ? Number.NaN : Date.parse(dateHeader);
    if (Number.isNaN(date)) return;
    const low = date - receivedAt;
    const high = date + 999 - sentAt;
    if (low > this.#high || high < this.#low) {
      // One of the clocks was set since the last response: start again from this one.
      this.#low = low;
      this.#high = high;
      return;
    }
    this.#low = Math.max(this.#low, low);
    this.#high = Math.min(this.#high, high);
  }

  /** The server's time now, in ms since the epoch. */
  now(): number {
    // Zero, clamped into the interval the offset is known to lie in.
    const offset = Math.max(this.#low, Math.min(this.#high, 0));
    return Date.now() + offset;
  }
}

/** What the page hears of its event stream's connection. */
export interface StreamWatch {
  /** The stream's response arrived (true), or its body ended or failed (false). */
  onConnected(connected: boolean): void;
}

/** When the open event stream last delivered a byte (an event or a heartbeat); 0 when none is open. */
let lastByteAt = 0;
export function streamLastHeardAt(): number {
  return lastByteAt;
}

/** A `fetch` for the SDK that feeds `clock` and `watch`. */
export function pageFetch(clock: ServerClock, watch: StreamWatch): typeof fetch {
  return async (input, init) => {
    const sentAt = Date.now();
    const response = await fetch(input, init);
    clock.observe(response.headers.get('date'), sentAt, Date.now());
    const isStream = response.headers.get('content-type')?.startsWith('text/event-stream') ?? false;
    if (!response.ok || !isStream || response.body === null) return response;
    return new Response(watched(response.body, watch), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

function watched(body: ReadableStream<Uint8Array>, watch: StreamWatch): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let open = true;
  const closed = () => {
    if (!open) return;
    open = false;
    lastByteAt = 0;
    watch.onConnected(false);
  };
  lastByteAt = Date.now();
  watch.onConnected(true);
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          closed();
          controller.close();
          return;
        }
        lastByteAt = Date.now();
        controller.enqueue(value);
      } catch (error) {
        closed();
        controller.error(error);
      }
    },
    cancel(reason) {
      closed();
      return reader.cancel(reason);
    },
  });
}
