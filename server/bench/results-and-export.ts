/**
 * Scenarios on seeded polls (PostgreSQL): `GET /polls/{id}/results` latency with 1,000 and with
 * 1,000,000 stored answers, and `GET /polls/{id}/export` of the 1,000,000-answer poll (200,000
 * distinct open-ended texts): time and the server's peak RSS (VmHWM from /proc).
 * Targets: results p50 at 1M < 10 ms and ≤ 2 × the 1k figure; export peak RSS < 200 MB.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { type LoadResult, load, resultLine, startTarget } from './support.js';

const run = promisify(execFile);
const serverDir = fileURLToPath(new URL('..', import.meta.url));
const tsx = fileURLToPath(new URL('../node_modules/.bin/tsx', import.meta.url));

async function seed(
  answers: number,
  distinctTexts: number,
): Promise<{ apiKey: string; pollId: string; seconds: number }> {
  const started = Date.now();
  const { stdout } = await run(
    tsx,
    ['--conditions=@pollkit/source', 'bench/seed.ts', String(answers), String(distinctTexts)],
    {
      cwd: serverDir,
      env: process.env,
      maxBuffer: 1 << 20,
    },
  );
  const line = resultLine(stdout);
  if (!line) throw new Error(`seed printed no result: ${stdout}`);
  return { ...JSON.parse(line), seconds: (Date.now() - started) / 1000 };
}

async function memoryOf(pid: number): Promise<{ rssMb: number; peakMb: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? Number.NaN);
  return { rssMb: kb('VmRSS') / 1024, peakMb: kb('VmHWM') / 1024 };
}

export interface ResultsAndExport {
  database: string;
  seeding: { answers: number; seconds: number }[];
  results: { answers: number; latency: LoadResult; throughput: LoadResult }[];
  export: {
    answers: number;
    distinctTexts: number;
    seconds: number;
    bytes: number;
    rows: number;
    rssBeforeMb: number;
    peakMb: number;
  };
}

export async function resultsAndExportScenario(options: {
  durationSec: number;
  connections: number;
}): Promise<ResultsAndExport> {
  if (!process.env.BENCH_DATABASE_URL)
    throw new Error('results/export benchmarks need BENCH_DATABASE_URL (PostgreSQL)');
  const small = await seed(1_000, 200);
  const large = await seed(1_000_000, 200_000);
  const results: ResultsAndExport['results'] = [];
  let target = await startTarget(fileURLToPath(new URL('./targets/plain.ts', import.meta.url)));
  const database = String(target.info.database);
  try {
    const { url } = target.info;
    for (const [answers, seeded] of [
      [1_000, small],
      [1_000_000, large],
    ] as const) {
      const endpoint = `${url}/api/v1/polls/${seeded.pollId}/results`;
      const headers = { authorization: `Bearer ${seeded.apiKey}` };
      await load({ url: endpoint, headers, connections: 1, durationSec: 2 });
      const latency = await load({ url: endpoint, headers, connections: 1, durationSec: options.durationSec });
      const throughput = await load({
        url: endpoint,
        headers,
        connections: options.connections,
        durationSec: options.durationSec,
      });
      const refused = latency.non2xx + throughput.non2xx;
      if (refused > 0) throw new Error(`results of the ${answers}-answer poll: ${refused} responses were not 2xx`);
      results.push({ answers, latency, throughput });
    }
  } finally {
    await target.stop();
  }

  // The export runs in a fresh server process, so its peak RSS is the export's, not the heap the
  // results load above grew.
  target = await startTarget(fileURLToPath(new URL('./targets/plain.ts', import.meta.url)));
  try {
    const { url, pid } = target.info as { url: string; pid: number };
    const before = await memoryOf(pid);
    const started = Date.now();
    const response = await fetch(`${url}/api/v1/polls/${large.pollId}/export`, {
      headers: { authorization: `Bearer ${large.apiKey}` },
    });
    if (response.status !== 200 || !response.body) {
      throw new Error(`export answered ${response.status}: ${(await response.text()).slice(0, 300)}`);
    }
    let bytes = 0;
    let rows = 0;
    for await (const chunk of response.body) {
      bytes += chunk.byteLength;
      for (const byte of chunk) if (byte === 10) rows += 1;
    }
    const seconds = (Date.now() - started) / 1000;
    const after = await memoryOf(pid);
    return {
      database,
      seeding: [
        { answers: 1_000, seconds: small.seconds },
        { answers: 1_000_000, seconds: large.seconds },
      ],
      results,
      export: {
        answers: 1_000_000,
        distinctTexts: 200_000,
        seconds,
        bytes,
        rows,
        rssBeforeMb: before.rssMb,
        peakMb: after.peakMb,
      },
    };
  } finally {
    await target.stop();
  }
}
