/**
 * The join challenge from the SDK's side: `joinSession` of `@pollkit/sdk/live` (and of the main
 * entry) joins a session with `joinChallenge: "pow"` by itself — the join's 422 `challenge_failed`
 * carries a challenge, the SDK solves it with Web Crypto and joins again — and asks nothing of a
 * participant resuming with its token or of a session without it. `solveJoinChallenge` solves what
 * `GET /live/{pin}/challenge` hands out; a page may bring a solver of its own (a Web Worker).
 */
import { gzipSync } from 'node:zlib';
import * as live from '@pollkit/sdk/live';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleContent } from '../../../server/test/support/polls.js';
import { startTestServer, type TestServer } from '../../../server/test/support/server.js';
import * as sdk from '../../src/index.js';
import { rejectionOf } from '../support/rejection.js';

let t: TestServer;
let client: sdk.PollkitClient;

beforeAll(async () => {
  // Per-address limits count every test file's requests from 127.0.0.1 when Redis is shared.
  t = await startTestServer({
    LIVE_RATE_LIMIT_PER_IP_PER_MINUTE: '1000000',
    LIVE_PIN_MISSES_PER_IP_PER_MINUTE: '1000000',
    LIVE_JOINS_PER_IP_PER_MINUTE: '1000000',
  });
  const { apiKey } = await t.workspace('pro');
  client = sdk.createClient({ apiKey, baseUrl: t.url });
});
afterAll(() => t?.close());

async function newSession(joinChallenge: 'pow' | null): Promise<sdk.CreatedSession> {
  const poll = await client.polls.create({ title: 'Posted in public', content: sampleContent() });
  await client.polls.update({ id: poll.id, publish: true });
  return client.sessions.create({ pollId: poll.id, joinChallenge });
}

/** A fetch that records each request's method, path and status. */
function recordingFetch(): { fetch: typeof fetch; calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    fetch: async (input, init) => {
      const response = await fetch(input, init);
      const url = new URL(input instanceof Request ? input.url : String(input));
      calls.push(`${init?.method ?? 'GET'} ${url.pathname.replace(/^\/api\/v1/, '')} ${response.status}`);
      return response;
    },
  };
}

describe('joinSession of @pollkit/sdk/live on a session with the join challenge', () => {
  it('solves the challenge the refused join carries and joins, in two requests', async () => {
    const session = await newSession('pow');
    const pin = session.pin as string;
    const { fetch, calls } = recordingFetch();
    const started = performance.now();
    const me = await live.joinSession({ baseUrl: t.url, pin, name: 'Ada', fetch });
    const took = performance.now() - started;
    expect(me.resumed).toBe(false);
    expect(me.participant.name).toBe('Ada');
    expect(calls).toEqual([`POST /live/${pin}/join 422`, `POST /live/${pin}/join 200`]);
    expect((await client.sessions.get({ id: session.id })).participantCount).toBe(1);
    // Web Crypto in Node: well under the phone's second (server/bench/RESULTS.md for a phone's figures).
    expect(took).toBeLessThan(10_000);

    // Resuming with the token asks for nothing: one request, the same participant.
    const solver = { calls: 0 };
    const again = await live.joinSession({
      baseUrl: t.url,
      pin,
      participantToken: me.participantToken,
      fetch: recordingFetch().fetch,
      solveChallenge: async () => {
        solver.calls += 1;
        return 'unused';
      },
    });
    expect(again.resumed).toBe(true);
    expect(again.participant.id).toBe(me.participant.id);
    expect(solver.calls).toBe(0);
  });

  it('hands the challenge to a solver of the caller’s own (a page’s Web Worker) and sends its answer', async () => {
    const session = await newSession('pow');
    const seen: live.JoinChallenge[] = [];
    const me = await live.joinSession({
      baseUrl: t.url,
      pin: session.pin as string,
      solveChallenge: async (challenge, signal) => {
        seen.push(challenge);
        return live.solveJoinChallenge(challenge, signal);
      },
    });
    expect(me.resumed).toBe(false);
    expect(seen).toHaveLength(1);
    expect(seen[0]?.salt).toContain(`session=${session.id}`);

    // A solver that answers nonsense: refused twice (a second challenge, then the error is the caller's).
    let tries = 0;
    const refused = await rejectionOf(
      live.joinSession({
        baseUrl: t.url,
        pin: session.pin as string,
        solveChallenge: async () => {
          tries += 1;
          return btoa('{}');
        },
      }),
    );
    expect(refused).toBeInstanceOf(live.ValidationError);
    expect((refused as live.PollkitError).code).toBe('challenge_failed');
    expect((refused as live.PollkitError).details?.reason).toBe('invalid');
    expect(tries).toBe(2);
  });

  it('joins a session without the challenge in one request, solving nothing', async () => {
    const session = await newSession(null);
    const { fetch, calls } = recordingFetch();
    let solved = 0;
    const me = await live.joinSession({
      baseUrl: t.url,
      pin: session.pin as string,
      fetch,
      solveChallenge: async () => {
        solved += 1;
        return 'unused';
      },
    });
    expect(me.resumed).toBe(false);
    expect(calls).toHaveLength(1);
    expect(solved).toBe(0);
  });

  it('does the same through the main entry, whose client also reads the challenge route', async () => {
    const session = await newSession('pow');
    const me = await sdk.joinSession({ baseUrl: t.url, pin: session.pin as string, name: 'Grace' });
    expect(me.resumed).toBe(false);
    // The route, through the client, solved by hand and sent with a join.
    const challenge = await client.live.challenge({ pin: session.pin as string });
    expect(challenge.algorithm).toBe('SHA-256');
    const solution = await sdk.solveJoinChallenge(challenge);
    const joined = await client.live.join({ pin: session.pin as string, name: 'Linus', challenge: solution });
    expect(joined.resumed).toBe(false);
    // A solution joins once.
    const replay = await rejectionOf(client.live.join({ pin: session.pin as string, challenge: solution }));
    expect((replay as sdk.PollkitError).code).toBe('challenge_failed');
    expect((replay as sdk.PollkitError).details?.reason).toBe('used');
  });
});

describe('solveJoinChallenge', () => {
  it('stops when its signal aborts', async () => {
    const controller = new AbortController();
    controller.abort(new Error('left the page'));
    const challenge: live.JoinChallenge = {
      algorithm: 'SHA-256',
      challenge: '0'.repeat(64),
      maxnumber: 1_000_000,
      salt: 'abc?expires=1&',
      signature: '0'.repeat(64),
      expiresAt: new Date().toISOString(),
    };
    await expect(live.solveJoinChallenge(challenge, controller.signal)).rejects.toThrow('left the page');
  });

  it('adds little to a browser bundle of @pollkit/sdk/live', async () => {
    const bundle = async (contents: string) => {
      const result = await build({
        stdin: { contents, resolveDir: new URL('../..', import.meta.url).pathname, loader: 'ts' },
        bundle: true,
        platform: 'browser',
        format: 'esm',
        minify: true,
        write: false,
        logLevel: 'silent',
        conditions: ['@pollkit/source'],
      });
      return gzipSync(result.outputFiles[0]?.contents ?? new Uint8Array()).length;
    };
    const solver = await bundle("export { solveJoinChallenge } from '@pollkit/sdk/live';");
    const helpers = await bundle("export { joinSession } from '@pollkit/sdk/live';");
    // The solver alone, gzipped: well under a kilobyte; the join helper with it, the size the docs say.
    expect(solver).toBeLessThan(1_000);
    expect(helpers).toBeLessThan(12_000);
  });
});
