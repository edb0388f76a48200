import { type JoinChallenge, solveJoinChallenge } from '@pollkit/sdk/live';

/** The worker's script, beside the page's own: `/assets/join.js` → `/assets/join-challenge.js` (web/tsup.config.ts). */
const WORKER_URL = new URL('join-challenge.js', import.meta.url);

/**
 * Solves a session's join challenge in a Web Worker (challenge-worker.ts), off the thread that draws
 * the page; on the page itself, with the SDK's solver, where a worker cannot be made or loaded.
 * Answers what the join sends as `challenge`.
 */
export function solveInWorker(challenge: JoinChallenge, signal?: AbortSignal): Promise<string> {
  let worker: Worker;
  try {
    worker = new Worker(WORKER_URL);
  } catch {
    return solveJoinChallenge(challenge, signal);
  }
  return new Promise<string>((resolve, reject) => {
    const finish = () => {
      worker.terminate();
      signal?.removeEventListener('abort', abort);
    };
    const abort = () => {
      finish();
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', abort, { once: true });
    worker.onmessage = (message: MessageEvent<{ solution?: string; error?: string }>) => {
      finish();
      if (typeof message.data.solution === 'string') resolve(message.data.solution);
      else reject(new Error(message.data.error ?? 'The join challenge could not be solved'));
    };
    worker.onerror = (event) => {
      // The script did not load or run: the page solves it itself.
      event.preventDefault();
      finish();
      solveJoinChallenge(challenge, signal).then(resolve, reject);
    };
    worker.postMessage(challenge);
  });
}

/**
 * Whether the server rendered this page for a session with the join challenge (`joinChallenge` in
 * the page's JSON block, http/web-pages.ts): the page then gets and solves one before its first join,
 * instead of learning it from a refused join. `null` when the page names no session (`/join`).
 */
export function pageJoinChallenge(doc: Document = document): 'pow' | null {
  try {
    const data = JSON.parse(doc.getElementById('pollkit-page')?.textContent ?? '') as { joinChallenge?: unknown };
    return data.joinChallenge === 'pow' ? 'pow' : null;
  } catch {
    return null;
  }
}
