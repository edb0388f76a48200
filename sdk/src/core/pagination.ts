import type { RouteDefinition } from '@pollkit/contracts';

/** The body of a list route: `{ data, nextCursor }`. */
export interface PageData<Item> {
  data: Item[];
  nextCursor: string | null;
}

/** Fetches the page that starts at `cursor`. */
export type FetchPage<Item> = (cursor: string) => PagePromise<Item>;

/**
 * One page of a list: `data` and `nextCursor` as the API answered them, plus the way to the next page.
 * Async-iterable over every item from this page to the last one.
 */
export class Page<Item> implements PageData<Item>, AsyncIterable<Item> {
  readonly data: Item[];
  readonly nextCursor: string | null;
  readonly #fetchPage: FetchPage<Item>;

  constructor(body: PageData<Item>, fetchPage: FetchPage<Item>) {
    this.data = body.data;
    this.nextCursor = body.nextCursor;
    this.#fetchPage = fetchPage;
  }

  hasNextPage(): boolean {
    return this.nextCursor !== null;
  }

  /** The next page; rejects when there is none (check {@link hasNextPage} first). */
  getNextPage(): PagePromise<Item> {
    if (this.nextCursor === null) {
      return new PagePromise(Promise.reject(new Error('This is the last page: nextCursor is null')));
    }
    return this.#fetchPage(this.nextCursor);
  }

  /** Every page from this one on, fetching each only when the previous one is used up. */
  async *pages(): AsyncGenerator<Page<Item>, void, undefined> {
    let page: Page<Item> = this;
    yield page;
    while (page.hasNextPage()) {
      page = await page.getNextPage();
      yield page;
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Item, void, undefined> {
    for await (const page of this.pages()) yield* page.data;
  }

  /** Serialises as the API's `{ data, nextCursor }`. */
  toJSON(): PageData<Item> {
    return { data: this.data, nextCursor: this.nextCursor };
  }
}

/**
 * What a list method returns: a promise of its first page (`await client.polls.list()`) that is
 * also async-iterable over every item across pages (`for await (const poll of client.polls.list())`).
 */
export class PagePromise<Item> implements Promise<Page<Item>>, AsyncIterable<Item> {
  readonly #page: Promise<Page<Item>>;

  constructor(page: Promise<Page<Item>>) {
    this.#page = page;
  }

  get [Symbol.toStringTag](): string {
    return 'PagePromise';
  }

  // biome-ignore lint/suspicious/noThenProperty: this object is a promise, so it has the promise protocol.
  then<TResult1 = Page<Item>, TResult2 = never>(
    onfulfilled?: ((value: Page<Item>) => TResult1 | PromiseLike<TResult1>) | null,
    onrejected?: ((reason: unknown) => TResult2 | PromiseLike<TResult2>) | null,
  ): Promise<TResult1 | TResult2> {
    return this.#page.then(onfulfilled, onrejected);
  }

  catch<TResult = never>(
    onrejected?: ((reason: unknown) => TResult | PromiseLike<TResult>) | null,
  ): Promise<Page<Item> | TResult> {
    return this.#page.catch(onrejected);
  }

  finally(onfinally?: (() => void) | null): Promise<Page<Item>> {
    return this.#page.finally(onfinally);
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Item, void, undefined> {
    yield* await this.#page;
  }
}

function schemaType(schema: unknown): string | undefined {
  const def = (schema as { def?: { type?: unknown } } | undefined)?.def;
  return typeof def?.type === 'string' ? def.type : undefined;
}

/**
 * Whether a route answers pages: its output schema is an object of exactly `data` (an array) and
 * `nextCursor`. Read from the schema, not the route's name, so a new list route pages by itself.
 */
export function isPageRoute(route: RouteDefinition): boolean {
  if (route.format === 'file' || schemaType(route.output) !== 'object') return false;
  const shape = (route.output as unknown as { shape: Record<string, unknown> }).shape;
  const keys = Object.keys(shape).sort();
  return keys.length === 2 && keys[0] === 'data' && keys[1] === 'nextCursor' && schemaType(shape.data) === 'array';
}
