/**
 * Scenario: what a tool call on `/mcp` costs the server beside the same REST call. `GET
 * /api/v1/polls/{id}` against the `polls_get` tool (a JSON-RPC `tools/call` POSTed to `/mcp`), both
 * sent by a bare `fetch` from this process to the real server (targets/pollkit.ts, its own process),
 * so the client's cost is the same for both and the difference is the server's: the per-request MCP
 * server and transport, the JSON-RPC envelope, the result's text copy. Also `tools/list`, whose
 * answer carries every tool's schemas.
 *
 * Each measurement makes N calls, one at a time and then with a fixed number in flight; REST and MCP
 * alternate over several rounds and the median round is reported. Server CPU is read from
 * /proc/<pid>/stat (user + system, 10 ms ticks) around each measurement.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { startTarget } from './support.js';

type Call = () => Promise<unknown>;

interface Measured {
  wallUs: number;
  serverCpuUs: number;
}

export interface McpOverheadRow {
  operation: string;
  concurrency: number;
  calls: number;
  rest: Measured;
  mcp: Measured;
}

/** The target's user + system CPU time so far, in µs (Linux: clock ticks of 10 ms). */
function serverCpuUs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name, which is in parentheses and may hold spaces.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return ticks * 10_000;
}

async function measure(call: Call, calls: number, concurrency: number, pid: number): Promise<Measured> {
  let next = 0;
  const worker = async () => {
    while (next++ < calls) await call();
  };
  const cpuBefore = serverCpuUs(pid);
  const started = process.hrtime.bigint();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const wallNs = Number(process.hrtime.bigint() - started);
  return { wallUs: wallNs / 1000 / calls, serverCpuUs: (serverCpuUs(pid) - cpuBefore) / calls };
}

const medianOf = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

export async function mcpOverheadScenario(options: { rounds: number; calls: number; concurrency: number }) {
  // BENCH_MCP_CPU_PROF=<dir>: the server's V8 CPU profile, for bench/profile-summary.ts.
  const profileDir = process.env.BENCH_MCP_CPU_PROF;
  const target = await startTarget(
    fileURLToPath(new URL('./targets/pollkit.ts', import.meta.url)),
    {},
    profileDir ? { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] } : {},
  );
  const { url, apiKey, pollId, database } = target.info as {
    url: string;
    apiKey: string;
    pollId: string;
    database: string;
  };
  const pid = target.process.pid as number;
  const authorization = `Bearer ${apiKey}`;
  const rpc = (method: string, params: object) =>
    fetch(`${url}/mcp`, {
      method: 'POST',
      headers: {
        authorization,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    }).then(async (response) => {
      const body = (await response.json()) as { result?: { isError?: boolean }; error?: unknown };
      if (response.status !== 200 || !body.result || body.result.isError) {
        throw new Error(`MCP ${method} answered ${response.status}: ${JSON.stringify(body).slice(0, 200)}`);
      }
      return body;
    });
  try {
    const operations: { name: string; rest: Call; mcp: Call; calls: number }[] = [
      {
        name: 'GET /polls/{id} vs polls_get',
        calls: options.calls,
        rest: async () => {
          const response = await fetch(`${url}/api/v1/polls/${pollId}`, { headers: { authorization } });
          if (response.status !== 200) throw new Error(`REST answered ${response.status}`);
          return response.json();
        },
        mcp: () => rpc('tools/call', { name: 'polls_get', arguments: { id: pollId } }),
      },
      {
        name: 'GET /polls vs polls_list',
        calls: options.calls,
        rest: async () => {
          const response = await fetch(`${url}/api/v1/polls`, { headers: { authorization } });
          if (response.status !== 200) throw new Error(`REST answered ${response.status}`);
          return response.json();
        },
        mcp: () => rpc('tools/call', { name: 'polls_list', arguments: {} }),
      },
    ];
    // tools/list: no REST twin; the first one builds the tools' schemas.
    const firstListStarted = process.hrtime.bigint();
    const listed = (await rpc('tools/list', {})) as { result: { tools: unknown[] } };
    const firstListMs = Number(process.hrtime.bigint() - firstListStarted) / 1e6;
    const listBytes = JSON.stringify(listed).length;
    const listRounds: Measured[] = [];
    for (let round = 0; round < options.rounds; round++) {
      listRounds.push(await measure(() => rpc('tools/list', {}), 200, 1, pid));
    }

    const rows: McpOverheadRow[] = [];
    for (const operation of operations) {
      for (const concurrency of [1, options.concurrency]) {
        await measure(operation.rest, Math.min(200, operation.calls), concurrency, pid);
        await measure(operation.mcp, Math.min(200, operation.calls), concurrency, pid);
        const rest: Measured[] = [];
        const mcp: Measured[] = [];
        for (let round = 0; round < options.rounds; round++) {
          rest.push(await measure(operation.rest, operation.calls, concurrency, pid));
          mcp.push(await measure(operation.mcp, operation.calls, concurrency, pid));
        }
        const pick = (list: Measured[]) => ({
          wallUs: medianOf(list.map((m) => m.wallUs)),
          serverCpuUs: medianOf(list.map((m) => m.serverCpuUs)),
        });
        rows.push({ operation: operation.name, concurrency, calls: operation.calls, rest: pick(rest), mcp: pick(mcp) });
      }
    }
    return {
      database,
      rows,
      list: {
        tools: listed.result.tools.length,
        bytes: listBytes,
        firstMs: firstListMs,
        wallUs: medianOf(listRounds.map((m) => m.wallUs)),
        serverCpuUs: medianOf(listRounds.map((m) => m.serverCpuUs)),
      },
    };
  } finally {
    await target.stop();
  }
}
