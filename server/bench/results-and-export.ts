/**
 * Scenarios on seeded polls (PostgreSQL): `GET /polls/{id}/results` latency with 1,000 and with
 * 1,000,000 stored answers, and `GET /polls/{id}/export` of the 1,000,000-answer poll (200,000
 * distinct open-ended texts), as CSV and as XLSX (`?format=xlsx`): time and the server's peak RSS
 * (VmHWM from /proc), each format in a fresh server process of its own.
 * Targets: results p50 at 1M < 10 ms and ≤ 2 × the 1k figure; export peak RSS < 200 MB, either format.
 *
 * bench/run.ts runs it (`BENCH_SCENARIOS=results-export`); run alone, it prints its result as JSON:
 *   BENCH_DATABASE_URL=postgres://… npx tsx --conditions=@pollkit/source bench/results-and-export.ts
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

/** One download of the 1,000,000-answer poll's export, in a server process started for it. */
export interface ExportMeasure {
  seconds: number;
  bytes: number;
  rssBeforeMb: number;
  peakMb: number;
}

export interface ResultsAndExport {
  database: string;
  seeding: { answers: number; seconds: number }[];
  results: { answers: number; latency: LoadResult; throughput: LoadResult }[];
  export: ExportMeasure & {
    answers: number;
    distinctTexts: number;
    rows: number;
  };
  /** The same poll's `?format=xlsx`: a summary sheet and one sheet per slide. */
  xlsxExport: ExportMeasure;
}

/**
 * Downloads the export in a fresh server process, so its peak RSS is the export's, not the heap a
 * results load (or the other format's export) grew. `onChunk` sees the bytes as they arrive.
 */
async function measureExport(
  seeded: { apiKey: string; pollId: string },
  format: 'csv' | 'xlsx',
  onChunk: (chunk: Uint8Array) => void = () => {},
): Promise<ExportMeasure> {
  const target = await startTarget(fileURLToPath(new URL('./targets/plain.ts', import.meta.url)));
  try {
    const { url, pid } = target.info as { url: string; pid: number };
    const before = await memoryOf(pid);
    const started = Date.now();
    const response = await fetch(`${url}/api/v1/polls/${seeded.pollId}/export?format=${format}`, {
      headers: { authorization: `Bearer ${seeded.apiKey}` },
    });
    if (response.status !== 200 || !response.body) {
      throw new Error(`${format} export answered ${response.status}: ${(await response.text()).slice(0, 300)}`);
    }
    let bytes = 0;
    for await (const chunk of response.body) {
      bytes += chunk.byteLength;
      onChunk(chunk);
    }
    const seconds = (Date.now() - started) / 1000;
    const after = await memoryOf(pid);
    return { seconds, bytes, rssBeforeMb: before.rssMb, peakMb: after.peakMb };
  } finally {
    await target.stop();
  }
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
  const target = await startTarget(fileURLToPath(new URL('./targets/plain.ts', import.meta.url)));
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

  let rows = 0;
  const csv = await measureExport(large, 'csv', (chunk) => {
    for (const byte of chunk) if (byte === 10) rows += 1;
  });
  // A zip starts with a local file header and ends with the end-of-central-directory record: a
  // download cut short would not.
  let head: Uint8Array | undefined;
  let tail = new Uint8Array(0);
  const xlsx = await measureExport(large, 'xlsx', (chunk) => {
    head ??= chunk.slice(0, 4);
    tail = chunk.byteLength >= 22 ? chunk.slice(-22) : Uint8Array.from([...tail, ...chunk].slice(-22));
  });
  const signature = (bytes: Uint8Array | undefined) => Buffer.from(bytes?.subarray(0, 4) ?? []).toString('hex');
  if (signature(head) !== '504b0304' || signature(tail) !== '504b0506') {
    throw new Error(`the xlsx export is not a whole zip (starts ${signature(head)}, ends ${signature(tail)})`);
  }
  return {
    database,
    seeding: [
      { answers: 1_000, seconds: small.seconds },
      { answers: 1_000_000, seconds: large.seconds },
    ],
    results,
    export: { answers: 1_000_000, distinctTexts: 200_000, rows, ...csv },
    xlsxExport: xlsx,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const result = await resultsAndExportScenario({
    durationSec: Number(process.env.BENCH_DURATION ?? 10),
    connections: Number(process.env.BENCH_CONNECTIONS ?? 50),
  });
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
}
