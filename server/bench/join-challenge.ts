/**
 * What the join challenge costs (docs/moderation.md, "The join challenge"):
 *
 * - **the audience's device**: the solve time in Chromium at phone size with the CPU slowed down
 *   four times (DevTools' `Emulation.setCPUThrottlingRate`, standing in for a mid-range phone), over
 *   `challenges` challenges from the real server (built code, in its own process): the SDK's Web
 *   Crypto solver on the page's thread, and the audience page's own path, its Web Worker
 *   (`/assets/join-challenge.js`); each solution is then sent with a join, which must take it;
 * - **the audience page's join**: from Join to the participant shown waiting, with the challenge
 *   (Join clicked as soon as the page is there, or after two seconds of typing a name, while the
 *   page solves) and without, at the same throttling;
 * - **the server**: issuing a challenge and checking a solution, in process (µs each), and recording
 *   a used one in the embedded database.
 *
 *   BENCH_SCENARIOS=join-challenge BENCH_CHALLENGES=30 npx -y pnpm@10 bench
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { JoinChallenge } from '@pollkit/contracts';
import { type Browser, chromium, type Page } from 'playwright-core';
import { build } from 'tsup';
import { systemClock } from '../src/core/clock.js';
import { migrateToLatest, openDatabase } from '../src/db/database.js';
import {
  DatabaseSpentChallenges,
  JOIN_CHALLENGE_MAX_NUMBER,
  JoinChallenges,
} from '../src/modules/live/join-challenge.js';
import { CHROMIUM_PATH } from '../test/support/browser.js';
import { startTarget } from './support.js';

/** The slow-down DevTools applies to the page's CPU: a mid-range phone, against this machine. */
export const CPU_THROTTLING = 4;

export interface Spread {
  medianMs: number;
  p90Ms: number;
  maxMs: number;
  meanMs: number;
}

export interface JoinChallengeResult {
  challenges: number;
  maxnumber: number;
  /** The SDK's solver on the page's main thread. */
  mainThread: Spread;
  /** The audience page's worker. */
  worker: Spread;
  /** Solutions the server took, of those sent (each with its own join). */
  accepted: number;
  /** The audience page: Join to "waiting", with the challenge (Join at once, or after 2 s of typing) and without. */
  pageJoin: { withChallenge: Spread; afterTyping: Spread; without: Spread; loads: number };
  server: { issue: Cost; verify: Cost; spendInDatabase: Cost };
}

function spread(values: number[]): Spread {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
  return {
    medianMs: at(0.5),
    p90Ms: at(0.9),
    maxMs: sorted[sorted.length - 1] as number,
    meanMs: values.reduce((sum, value) => sum + value, 0) / values.length,
  };
}

/** The SDK's solver as a script for the page: `globalThis.pollkitBench.solveJoinChallenge`. */
async function solverScript(): Promise<string> {
  const sources = fileURLToPath(new URL('./.tmp/join-challenge-entry/', import.meta.url));
  const dir = fileURLToPath(new URL('./.tmp/join-challenge/', import.meta.url));
  await mkdir(sources, { recursive: true });
  const entry = `${sources}entry.ts`;
  await writeFile(entry, "export { solveJoinChallenge } from '@pollkit/sdk/live';\n");
  await build({
    // Not server/tsup.config.ts (it would empty the folder and bundle the server's entries).
    config: false,
    entry: { solver: entry },
    format: ['iife'],
    globalName: 'pollkitBench',
    platform: 'browser',
    target: 'es2022',
    outDir: dir,
    minify: true,
    silent: true,
    noExternal: [/.*/],
    esbuildOptions(options) {
      options.conditions = ['@pollkit/source'];
    },
  });
  // Evaluated as a script's text, its `var` may stay local: it is made global by name.
  return `${await readFile(`${dir}solver.global.js`, 'utf8')};globalThis.pollkitBench = pollkitBench;`;
}

async function phonePage(browser: Browser): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: CPU_THROTTLING });
  return page;
}

/** A Web Worker, as far as the page's code below uses one. */
interface PageWorker {
  onmessage: ((message: { data: { solution?: string; error?: string } }) => void) | null;
  onerror: (() => void) | null;
  postMessage(message: unknown): void;
  terminate(): void;
}

/** Each challenge fetched, solved in the page by `how`, timed there, and sent with a join. */
async function solveIn(page: Page, pin: string, challenges: number, how: 'main' | 'worker') {
  const times: number[] = [];
  let accepted = 0;
  for (let i = 0; i < challenges; i++) {
    const outcome = await page.evaluate(
      async ({ pin, how, name }) => {
        const challenge = (await (await fetch(`/api/v1/live/${pin}/challenge`)).json()) as JoinChallenge;
        const started = performance.now();
        let solution: string;
        if (how === 'main') {
          const bench = (
            globalThis as unknown as { pollkitBench: { solveJoinChallenge(c: JoinChallenge): Promise<string> } }
          ).pollkitBench;
          solution = await bench.solveJoinChallenge(challenge);
        } else {
          // The page's Worker (this file is compiled without the DOM's types).
          const PageWorker = (globalThis as unknown as { Worker: new (url: string) => PageWorker }).Worker;
          const worker = new PageWorker('/assets/join-challenge.js');
          solution = await new Promise<string>((resolve, reject) => {
            worker.onmessage = (message) =>
              message.data.solution ? resolve(message.data.solution) : reject(new Error(message.data.error));
            worker.onerror = () => reject(new Error('the worker failed'));
            worker.postMessage(challenge);
          });
          worker.terminate();
        }
        const took = performance.now() - started;
        const joined = await fetch(`/api/v1/live/${pin}/join`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ name, challenge: solution }),
        });
        return { took, status: joined.status };
      },
      { pin, how, name: `${how}-${i}` },
    );
    times.push(outcome.took);
    if (outcome.status === 200) accepted += 1;
  }
  return { times, accepted };
}

/**
 * The audience page's join, Join to "waiting", each in a new phone context: Join clicked as soon as
 * the page is there, or after `typingMs` (a visitor typing a name, while the page solves).
 */
async function pageJoins(browser: Browser, joinUrl: string, loads: number, typingMs = 0): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < loads; i++) {
    const page = await phonePage(browser);
    await page.goto(joinUrl);
    await page.locator('form input').last().fill(`p${i}`);
    if (typingMs > 0) await page.waitForTimeout(typingMs);
    const started = performance.now();
    await page.locator('form button[type=submit]').click();
    await page.getByTestId('waiting').waitFor({ timeout: 60_000 });
    times.push(performance.now() - started);
    await page.context().close();
  }
  return times;
}

/** A cost per call: its time, and the CPU time of this process (Web Crypto's thread pool included). */
export interface Cost {
  wallUs: number;
  cpuUs: number;
}

/** The cost per call of `run`, over `n` calls one after another. */
async function perCall(n: number, run: (i: number) => Promise<unknown>): Promise<Cost> {
  const started = performance.now();
  const cpu = process.cpuUsage();
  for (let i = 0; i < n; i++) await run(i);
  const used = process.cpuUsage(cpu);
  return { wallUs: ((performance.now() - started) * 1000) / n, cpuUs: (used.user + used.system) / n };
}

async function serverCosts(): Promise<JoinChallengeResult['server']> {
  const spent = new Set<string>();
  const challenges = new JoinChallenges(
    randomBytes(32),
    { spend: async (challenge) => !spent.has(challenge) && Boolean(spent.add(challenge)) },
    systemClock,
  );
  const sessionId = 'ses_01JF3Z8Q6M4W9Y2K7T5R0B1C3D';
  const n = 2_000;
  for (let i = 0; i < 200; i++) await challenges.issue(sessionId); // warm-up
  const issued: JoinChallenge[] = [];
  const issue = await perCall(n, async () => issued.push(await challenges.issue(sessionId)));
  const solutions = issued.map((challenge) => {
    for (let number = 0; number <= challenge.maxnumber; number++) {
      if (createHash('sha256').update(`${challenge.salt}${number}`).digest('hex') === challenge.challenge) {
        const { algorithm, salt, signature } = challenge;
        return Buffer.from(
          JSON.stringify({ algorithm, challenge: challenge.challenge, number, salt, signature }),
        ).toString('base64');
      }
    }
    throw new Error('unsolved');
  });
  const verify = await perCall(n, (i) => challenges.redeem(sessionId, solutions[i]));

  const database = await openDatabase({ databaseUrl: 'memory://', dataDir: '.' });
  try {
    await migrateToLatest(database.db);
    const inDatabase = new DatabaseSpentChallenges(database.db, systemClock);
    const expires = new Date(Date.now() + 300_000);
    for (let i = 0; i < 100; i++) await inDatabase.spend(`warm-${i}`, expires);
    const spendInDatabase = await perCall(n, (i) => inDatabase.spend(`c-${i}`, expires));
    return { issue, verify, spendInDatabase };
  } finally {
    await database.close();
  }
}

export async function joinChallengeScenario(options: {
  challenges: number;
  pageLoads: number;
}): Promise<JoinChallengeResult> {
  const server = await serverCosts();
  const target = await startTarget(fileURLToPath(new URL('./targets/live.ts', import.meta.url)), {
    RATE_LIMIT_PER_MINUTE: '100000000',
    LIVE_RATE_LIMIT_PER_IP_PER_MINUTE: '100000000',
    LIVE_PIN_MISSES_PER_IP_PER_MINUTE: '100000000',
    LIVE_JOINS_PER_IP_PER_MINUTE: '100000000',
  });
  const info = target.info as { url: string; apiKey: string; pollId: string };
  let browser: Browser | undefined;
  try {
    const session = async (joinChallenge: 'pow' | null) => {
      const created = await fetch(`${info.url}/api/v1/sessions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${info.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ pollId: info.pollId, joinChallenge, maxParticipants: 20_000 }),
      });
      return (await created.json()) as { pin: string; joinUrl: string };
    };
    const pow = await session('pow');
    browser = await chromium.launch({
      executablePath: CHROMIUM_PATH,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
    });
    const page = await phonePage(browser);
    await page.goto(pow.joinUrl);
    // Through DevTools, which the page's Content-Security-Policy does not apply to.
    await page.evaluate(await solverScript());
    const main = await solveIn(page, pow.pin, options.challenges, 'main');
    const worker = await solveIn(page, pow.pin, options.challenges, 'worker');
    await page.context().close();

    const withChallenge = await pageJoins(browser, pow.joinUrl, options.pageLoads);
    const afterTyping = await pageJoins(browser, pow.joinUrl, options.pageLoads, 2_000);
    const without = await pageJoins(browser, (await session(null)).joinUrl, options.pageLoads);
    return {
      challenges: options.challenges,
      maxnumber: JOIN_CHALLENGE_MAX_NUMBER,
      mainThread: spread(main.times),
      worker: spread(worker.times),
      accepted: main.accepted + worker.accepted,
      pageJoin: {
        withChallenge: spread(withChallenge),
        afterTyping: spread(afterTyping),
        without: spread(without),
        loads: options.pageLoads,
      },
      server,
    };
  } finally {
    await browser?.close();
    await target.stop();
  }
}
