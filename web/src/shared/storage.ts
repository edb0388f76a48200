/**
 * Browser storage that never throws: storage can be disabled, full, or (some private modes) refuse
 * every write. The pages then work as before, minus surviving a reload.
 */
type Area = 'local' | 'session';

function area(name: Area): Storage | undefined {
  try {
    return name === 'local' ? window.localStorage : window.sessionStorage;
  } catch {
    return undefined;
  }
}

export function readStored<T>(name: Area, key: string): T | undefined {
  try {
    const text = area(name)?.getItem(key);
    return text ? (JSON.parse(text) as T) : undefined;
  } catch {
    return undefined;
  }
}

export function writeStored(name: Area, key: string, value: unknown): void {
  try {
    area(name)?.setItem(key, JSON.stringify(value));
  } catch {
    // Nothing to do: the page goes on without it.
  }
}

export function removeStored(name: Area, key: string): void {
  try {
    area(name)?.removeItem(key);
  } catch {
    // As above.
  }
}
