import { useEffect, useState } from 'preact/hooks';

/**
 * A page's state outside its components: a controller extends it, changes `view` with `set`, and
 * the components re-render through {@link useView}.
 */
export class ViewStore<V extends object> {
  view: V;
  readonly #listeners = new Set<() => void>();

  constructor(initial: V) {
    this.view = initial;
  }

  subscribe(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  protected set(patch: Partial<V>): void {
    this.view = { ...this.view, ...patch };
    for (const listener of this.#listeners) listener();
  }
}

/** The store's view, re-rendered on every change. */
export function useView<V extends object>(store: ViewStore<V>): V {
  const [view, setView] = useState(store.view);
  useEffect(() => store.subscribe(() => setView(store.view)), [store]);
  return view;
}

/**
 * Calls `wake` when the page comes back: the network returns, or the tab is shown again (a phone
 * unlocked, a laptop opened), when a stream may have died without a word and a send may be waiting.
 */
export function onWake(wake: () => void): void {
  addEventListener('online', wake);
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible') wake();
  });
}
