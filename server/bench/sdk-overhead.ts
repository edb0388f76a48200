/**
 * Scenario: what `@pollkit/sdk` costs on top of a hand-written `fetch` for the same calls —
 * `GET /polls/{id}` and `POST /polls/{id}/votes` — against the same running server (the real
 * Pollkit target in its own process). Each measurement makes N calls, one at a time and then with
 * a fixed number in flight; SDK and raw `fetch` alternate over several rounds and the median round
 * is reported. Overhead = SDK − raw per call, in µs of wall time and of this process's CPU time (the
 * CPU figure is the SDK's own work: building the request, reading and parsing the answer).
 *
 * The raw calls send exactly what the SDK sends that changes the server's work: the Bearer key,
 * a JSON body and, when the SDK sends one, an `Idempotency-Key` on POST (the server stores the
 * response under it), so the difference is the client's alone.
 */
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { createClient } from '@pollkit/sdk';
import { startTarget } from './support.js';

type Call = (i: number) => Promise<unknown>;

export interface OverheadRow {
  operation: string;
  concurrency: number;
  calls: number;
  /** Median round, µs per call. */
  raw: { wallUs: number; cpuUs: number };
  sdk: { wallUs: number; cpuUs: number };
  /** Median over rounds of (SDK − raw) in the same round, µs per call. */
  overhead: { wallUs: number; cpuUs: number };
}

/** Runs `calls` calls with `concurrency` in flight; µs of wall and CPU time per call. */
async function measure(call: Call, calls: number, concurrency: number): Promise<{ wallUs: number; cpuUs: number }> {
  let next = 0;
  const worker = async () => {
    while (next < calls) {
      const i = next++;
      await call(i);
    }
  };
  const cpuBefore = process.cpuUsage();
  const started = process.hrtime.bigint();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const wallNs = Number(process.hrtime.bigint() - started);
  const cpu = process.cpuUsage(cpuBefore);
  return { wallUs: wallNs / 1000 / calls, cpuUs: (cpu.user + cpu.system) / calls };
}

const medianOf = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

export async function sdkOverheadScenario(options: { rounds: number; calls: number; concurrency: number }) {
  const target = await startTarget(fileURLToPath(new URL('./targets/pollkit.ts', import.meta.url)));
  const { url, apiKey, pollId, database } = target.info as {
    url: string;
    apiKey: string;
    pollId: string;
    database: string;
  };
  try {
    // Which headers does the SDK send on a POST? Copied onto the raw calls so the server does the same work.
    let sdkSendsIdempotencyKey = false;
    const probe = createClient({
      apiKey,
      baseUrl: url,
      fetch: (input, init) => {
        sdkSendsIdempotencyKey ||= new Headers(init.headers).has('idempotency-key');
        return fetch(input, init);
      },
    });
    await probe.votes.cast({ id: pollId, slideId: 'lunch', voterId: 'probe', optionIds: ['o0'] });

    const client = createClient({ apiKey, baseUrl: url });
    const pollUrl = `${url}/api/v1/polls/${pollId}`;
    const votesUrl = `${pollUrl}/votes`;
    const authorization = `Bearer ${apiKey}`;
    // Every vote needs a voter of its own (one vote per voter per slide); the prefix keeps runs apart.
    let batch = 0;
    const voteBody = (prefix: string, i: number) => ({
      slideId: 'lunch',
      voterId: `${prefix}-${i}`,
      optionIds: [`o${i % 4}`],
    });

    const operations: { name: string; raw: () => Call; sdk: () => Call }[] = [
      {
        name: 'GET /polls/{id}',
        raw: () => async () => {
          const response = await fetch(pollUrl, { headers: { authorization, accept: 'application/json' } });
          if (response.status !== 200) throw new Error(`raw GET answered ${response.status}`);
          return response.json();
        },
        sdk: () => () => client.polls.get({ id: pollId }),
      },
      {
        name: 'POST /polls/{id}/votes',
        raw: () => {
          const prefix = `raw${batch++}`;
          return async (i) => {
            const headers: Record<string, string> = {
              authorization,
              accept: 'application/json',
              'content-type': 'application/json',
            };
            if (sdkSendsIdempotencyKey) headers['idempotency-key'] = randomUUID();
            const response = await fetch(votesUrl, {
              method: 'POST',
              headers,
              body: JSON.stringify(voteBody(prefix, i)),
            });
            if (response.status !== 201) throw new Error(`raw POST answered ${response.status}`);
            return response.json();
          };
        },
        sdk: () => {
          const prefix = `sdk${batch++}`;
          return (i) => client.votes.cast({ id: pollId, ...voteBody(prefix, i) });
        },
      },
    ];

    const rows: OverheadRow[] = [];
    for (const operation of operations) {
      for (const concurrency of [1, options.concurrency]) {
        // Warm-up (JIT, connection pool, server caches) for both before measuring.
        const warmUpCalls = Math.min(200, options.calls);
        await measure(operation.raw(), warmUpCalls, concurrency);
        await measure(operation.sdk(), warmUpCalls, concurrency);
        const raw: { wallUs: number; cpuUs: number }[] = [];
        const sdk: { wallUs: number; cpuUs: number }[] = [];
        for (let round = 0; round < options.rounds; round++) {
          raw.push(await measure(operation.raw(), options.calls, concurrency));
          sdk.push(await measure(operation.sdk(), options.calls, concurrency));
        }
        const pick = (list: { wallUs: number; cpuUs: number }[]) => ({
          wallUs: medianOf(list.map((r) => r.wallUs)),
          cpuUs: medianOf(list.map((r) => r.cpuUs)),
        });
        rows.push({
          operation: operation.name,
          concurrency,
          calls: options.calls,
          raw: pick(raw),
          sdk: pick(sdk),
          overhead: {
            wallUs: medianOf(sdk.map((s, i) => s.wallUs - (raw[i]?.wallUs ?? Number.NaN))),
            cpuUs: medianOf(sdk.map((s, i) => s.cpuUs - (raw[i]?.cpuUs ?? Number.NaN))),
          },
        });
      }
    }
    return { database, sdkSendsIdempotencyKey, rows };
  } finally {
    await target.stop();
  }
}
