/**
 * A value and its JSON text, serialised at most once. A cached read (a poll served from memory on
 * every GET) is sent as this text instead of being serialised again per request: serialising the
 * poll was the largest single cost of `GET /polls/{id}` (server/bench/RESULTS.md). The value must not
 * change once the text exists; cached values are never mutated.
 */
export class JsonText<T> {
  #text: string | undefined;

  constructor(readonly value: T) {}

  get text(): string {
    this.#text ??= JSON.stringify(this.value);
    return this.#text;
  }
}
