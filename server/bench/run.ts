/**
 * Runs the benchmarks and prints a Markdown section for RESULTS.md.
 *   npx -y pnpm@10 bench                                   # every scenario, embedded PGlite
 *   BENCH_DATABASE_URL=postgres://… npx -y pnpm@10 bench   # on PostgreSQL
 *   BENCH_SCENARIOS=get-poll,vote-ingestion BENCH_DURATION=20 BENCH_CONNECTIONS=100 BENCH_ROUNDS=5 npx -y pnpm@10 bench
 *   BENCH_SCENARIOS=sdk-overhead BENCH_SDK_CALLS=1000 BENCH_SDK_CONCURRENCY=16 BENCH_ROUNDS=5 npx -y pnpm@10 bench
 *   BENCH_SCENARIOS=mcp-overhead BENCH_SDK_CALLS=1000 BENCH_SDK_CONCURRENCY=16 BENCH_ROUNDS=5 npx -y pnpm@10 bench   # /mcp beside REST
 *   BENCH_SCENARIOS=pipeline-steps BENCH_STEP_CALLS=200000 npx -y pnpm@10 bench   # µs per pipeline step
 *   BENCH_SCENARIOS=metrics BENCH_ROUNDS=5 npx -y pnpm@10 bench   # GET /polls/{id} with METRICS_TOKEN set and unset
 *   BENCH_SCENARIOS=media BENCH_DURATION=10 BENCH_MEDIA_SINGLES=5 BENCH_MEDIA_CONCURRENCY=4,8 npx -y pnpm@10 bench
 *   BENCH_SCENARIOS=poisoned-votes BENCH_POISON_RATE=200 BENCH_POISON_SHARE=0.05 BENCH_POISON_CONNECTIONS=10 \
 *     BENCH_POISON_CONFIGS=alone,clean,nul,check,invalid npx -y pnpm@10 bench   # workspace A's votes/s beside B's poison
 *   BENCH_SCENARIOS=live-sessions BENCH_LIVE_SIZES=1000,5000,10000 BENCH_LIVE_CLIENTS=2 BENCH_LIVE_CONCURRENCY=256 \
 *     npx -y pnpm@10 bench   # N participants on one session: join, SSE fan-out of `next`, answers, memory
 *   (BENCH_LIVE_CPU_PROF=<dir> writes the server's V8 CPU profile per N there; BENCH_LIVE_SERVERS=2 with
 *   BENCH_DATABASE_URL and BENCH_REDIS_URL: two server processes share the session, scale-out;
 *   BENCH_LIVE_BROADCASTS=6 more slide moves after the timed `next`: server CPU µs per stream per broadcast)
 *   BENCH_SCENARIOS=page-load BENCH_PAGE_LOADS=20 [BENCH_PAGE_LANGUAGE=ar] npx -y pnpm@10 bench   # the audience page in Chromium
 *   BENCH_SCENARIOS=join-challenge BENCH_CHALLENGES=30 BENCH_PAGE_LOADS=10 npx -y pnpm@10 bench   # the join challenge: phone, server
 *   BENCH_SCENARIOS=session-outcome BENCH_OUTCOME_PARTICIPANTS=10000 npx -y pnpm@10 bench   # participants list, results
 *   BENCH_SCENARIOS=webhooks BENCH_WEBHOOK_CONFIGS=off,outbox,none,endpoint BENCH_WEBHOOK_EVENTS=20000 \
 *     BENCH_WEBHOOK_DRAINS=1 npx -y pnpm@10 bench   # votes/s with and without an endpoint; events/s delivered
 *   (WEBHOOK_CONCURRENCY, WEBHOOK_POLL_INTERVAL_MS, … set on the command reach the servers;
 *   BENCH_WEBHOOK_EXPERIMENT, see bench/targets/webhooks.ts; BENCH_WEBHOOK_CPU_PROF=<dir> profiles the drain's server)
 */
import { writeFile } from 'node:fs/promises';
import { getPollScenario } from './get-poll.js';
import { joinChallengeScenario } from './join-challenge.js';
import { liveSessionsScenario } from './live-sessions.js';
import { mcpOverheadScenario } from './mcp-overhead.js';
import { mediaIngestionScenario } from './media-ingestion.js';
import { metricsOverheadScenario } from './metrics-overhead.js';
import { pageLoadScenario } from './page-load.js';
import { pipelineStepsScenario } from './pipeline-steps.js';
import { type PoisonConfig, poisonConfigs, poisonedVotesScenario } from './poisoned-votes.js';
import { resultsAndExportScenario } from './results-and-export.js';
import { sdkOverheadScenario } from './sdk-overhead.js';
import { sessionOutcomeScenario } from './session-outcome.js';
import { machine } from './support.js';
import { voteIngestionScenario } from './vote-ingestion.js';
import { type WebhookConfig, webhookConfigs, webhooksScenario } from './webhooks.js';

const durationSec = Number(process.env.BENCH_DURATION ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const sdkCalls = Number(process.env.BENCH_SDK_CALLS ?? 1000);
const sdkConcurrency = Number(process.env.BENCH_SDK_CONCURRENCY ?? 16);
const mediaSingles = Number(process.env.BENCH_MEDIA_SINGLES ?? 5);
const mediaConcurrency = (process.env.BENCH_MEDIA_CONCURRENCY ?? '4,8').split(',').map(Number);
const poisonRate = Number(process.env.BENCH_POISON_RATE ?? 200);
const poisonShare = Number(process.env.BENCH_POISON_SHARE ?? 0.05);
const poisonConnections = Number(process.env.BENCH_POISON_CONNECTIONS ?? 10);
const poisonSelected = (process.env.BENCH_POISON_CONFIGS ?? poisonConfigs.join(',')).split(',') as PoisonConfig[];
const liveSizes = (process.env.BENCH_LIVE_SIZES ?? '1000,5000,10000').split(',').map(Number);
const liveClients = Number(process.env.BENCH_LIVE_CLIENTS ?? 2);
const liveConcurrency = Number(process.env.BENCH_LIVE_CONCURRENCY ?? 256);
const liveCpuProf = process.env.BENCH_LIVE_CPU_PROF;
/** Server processes sharing one session (scale-out): needs BENCH_DATABASE_URL and BENCH_REDIS_URL. */
const liveServers = Number(process.env.BENCH_LIVE_SERVERS ?? 1);
if (liveServers > 1 && !(process.env.BENCH_DATABASE_URL && process.env.BENCH_REDIS_URL)) {
  throw new Error('BENCH_LIVE_SERVERS > 1 needs BENCH_DATABASE_URL and BENCH_REDIS_URL');
}
const pageLoads = Number(process.env.BENCH_PAGE_LOADS ?? 20);
const joinChallenges = Number(process.env.BENCH_CHALLENGES ?? 30);
const outcomeParticipants = Number(process.env.BENCH_OUTCOME_PARTICIPANTS ?? 10_000);
const webhookSelected = (process.env.BENCH_WEBHOOK_CONFIGS ?? webhookConfigs.join(','))
  .split(',')
  .filter(Boolean) as WebhookConfig[];
const webhookEvents = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 20_000);
const webhookDrains = Number(process.env.BENCH_WEBHOOK_DRAINS ?? 1);
const selected = new Set(
  (
    process.env.BENCH_SCENARIOS ??
    (process.env.BENCH_DATABASE_URL ? 'get-poll,vote-ingestion,results-export' : 'get-poll,vote-ingestion')
  ).split(','),
);
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

const lines: string[] = [];
const print = (...more: string[]) => {
  lines.push(...more);
  process.stdout.write(`${more.join('\n')}\n`);
};

print(`### ${new Date().toISOString().slice(0, 10)} — ${machine()}`, '');

if (selected.has('session-outcome')) {
  const r = await sessionOutcomeScenario({ durationSec, connections, participants: outcomeParticipants });
  print(
    `#### A finished session's outcome: ${fmt(r.participants)} participants, two quiz slides (${r.database}; seeded through the API in ${r.seedSeconds.toFixed(0)} s)`,
    '',
    `| read | 1 connection: p50 ms | p99 ms | ${connections} connections: reads/s | p99 ms | non-2xx |`,
    '| --- | ---: | ---: | ---: | ---: | ---: |',
    ...r.reads.map(
      (read) =>
        `| ${read.name} | ${read.latency.p50Ms} | ${read.latency.p99Ms} | ${fmt(read.throughput.requestsPerSec)} | ${read.throughput.p99Ms} | ${read.latency.non2xx + read.throughput.non2xx} |`,
    ),
    '',
  );
}

if (selected.has('get-poll')) {
  const r = await getPollScenario({ durationSec, connections, rounds });
  print(
    `#### GET /api/v1/polls/{id} (${r.database}, ${r.bodyBytes}-byte body)`,
    '',
    `autocannon, ${connections} connections, ${durationSec} s per measurement after a 2 s warm-up; targets alternate over ${rounds} rounds and the median round is shown.`,
    '',
    '| target | req/s | p50 ms | p99 ms | non-2xx | errors |',
    '|---|---:|---:|---:|---:|---:|',
    `| bare Fastify route, same JSON | ${fmt(r.bare.requestsPerSec)} | ${r.bare.p50Ms} | ${r.bare.p99Ms} | ${r.bare.non2xx} | ${r.bare.errors} |`,
    `| Pollkit (auth, rate limit, validation, cache) | ${fmt(r.pollkit.requestsPerSec)} | ${r.pollkit.p50Ms} | ${r.pollkit.p99Ms} | ${r.pollkit.non2xx} | ${r.pollkit.errors} |`,
    '',
    `Ratio Pollkit / bare: **${r.ratio.toFixed(2)}** (target ≥ 0.50).`,
    `Rounds (req/s): bare ${r.rounds.bare.map(fmt).join(' / ')}; Pollkit ${r.rounds.pollkit.map(fmt).join(' / ')}.`,
    '',
  );
}

if (selected.has('metrics')) {
  const r = await metricsOverheadScenario({ durationSec, connections, rounds });
  print(
    '#### GET /api/v1/polls/{id} with metrics on (METRICS_TOKEN set) and off',
    '',
    `autocannon, ${connections} connections, ${durationSec} s per measurement after a 2 s warm-up each; the two servers alternate (which goes first alternates too) over ${rounds} rounds and the median round is shown.`,
    '',
    '| target | req/s | p50 ms | p99 ms | non-2xx | errors |',
    '|---|---:|---:|---:|---:|---:|',
    `| metrics off | ${fmt(r.off.requestsPerSec)} | ${r.off.p50Ms} | ${r.off.p99Ms} | ${r.off.non2xx} | ${r.off.errors} |`,
    `| metrics on | ${fmt(r.on.requestsPerSec)} | ${r.on.p50Ms} | ${r.on.p99Ms} | ${r.on.non2xx} | ${r.on.errors} |`,
    '',
    `Throughput on / off: **${r.ratio.toFixed(3)}** (target ≥ 0.95). Rounds (req/s): off ${r.rounds.off.map(fmt).join(' / ')}; on ${r.rounds.on.map(fmt).join(' / ')}.`,
    `The server's CPU time per request (/proc, median round): off **${r.cpuUsPerRequest.off.toFixed(1)} µs**, on **${r.cpuUsPerRequest.on.toFixed(1)} µs**: metrics add **${r.cpuUsPerRequest.added.toFixed(2)} µs (${(r.cpuUsPerRequest.share * 100).toFixed(1)} %)**. ` +
      `Rounds (µs): off ${r.cpuUsPerRequest.rounds.off.map((x) => x.toFixed(1)).join(' / ')}; on ${r.cpuUsPerRequest.rounds.on.map((x) => x.toFixed(1)).join(' / ')}.`,
    `Recording one request (a route's counter and histogram), in process: **${r.observeUs.toFixed(3)} µs**. ` +
      `A scrape of /metrics after the runs: ${r.scrape.status}, ${r.scrape.series} samples, ${fmt(r.scrape.bytes)} bytes, ${r.scrape.ms.toFixed(1)} ms.`,
    '',
  );
}

if (selected.has('pipeline-steps')) {
  const r = await pipelineStepsScenario({ rounds });
  const us = (ns: number) => (ns / 1000).toFixed(2);
  print(
    '#### The pipeline of GET /api/v1/polls/{id}, step by step (in process, no HTTP)',
    '',
    `${fmt(r.calls)} sequential calls per chain, median of ${r.rounds} rounds; each step's cost is the chain with it minus the chain without it.`,
    '',
    '| step | µs per call |',
    '|---|---:|',
    ...r.steps.map((step) => `| ${step.name} | ${us(step.ns)} |`),
    `| handler (cached poll, JSON text kept) | ${us(r.handlerNs)} |`,
    `| **whole pipeline** | **${us(r.wholeNs)}** |`,
    '',
  );
}

if (selected.has('vote-ingestion')) {
  const r = await voteIngestionScenario({ durationSec, connections, rounds });
  print(
    `#### POST /api/v1/polls/{id}/votes, a new voter per request (${r.database})`,
    '',
    `autocannon, ${connections} connections, ${durationSec} s per measurement after a 2 s warm-up; targets alternate over ${rounds} rounds and the median round is shown.`,
    '',
    '| target | accepted votes/s | p50 ms | p99 ms | non-2xx | errors |',
    '|---|---:|---:|---:|---:|---:|',
    `| naive baseline: one INSERT per request, same pool | ${fmt(r.baseline.acceptedPerSec)} | ${r.baseline.p50Ms} | ${r.baseline.p99Ms} | ${r.baseline.non2xx} | ${r.baseline.errors} |`,
    `| Pollkit (auth, validation, answer + aggregates, group commit) | ${fmt(r.pollkit.acceptedPerSec)} | ${r.pollkit.p50Ms} | ${r.pollkit.p99Ms} | ${r.pollkit.non2xx} | ${r.pollkit.errors} |`,
    '',
    `Pollkit / baseline: **${(r.pollkit.acceptedPerSec / r.baseline.acceptedPerSec).toFixed(2)}** (target ≥ 1.50 with p99 < 50 ms, issue 29).`,
    `Rounds (accepted votes/s): baseline ${r.rounds.baseline.map(fmt).join(' / ')}; Pollkit ${r.rounds.pollkit.map(fmt).join(' / ')}.`,
    '',
  );
}

if (selected.has('results-export')) {
  const r = await resultsAndExportScenario({ durationSec, connections });
  print(
    `#### GET /api/v1/polls/{id}/results and /export on seeded polls (${r.database})`,
    '',
    `Seeding (bench/seed.ts, the writer's batch statement without HTTP): ${r.seeding.map((s) => `${fmt(s.answers)} answers in ${s.seconds.toFixed(0)} s`).join('; ')}.`,
    '',
    '| stored answers | p50 ms (1 connection) | p99 ms (1 connection) | req/s (' +
      connections +
      ' connections) | p99 ms (' +
      connections +
      ' connections) |',
    '|---:|---:|---:|---:|---:|',
    ...r.results.map(
      (x) =>
        `| ${fmt(x.answers)} | ${x.latency.p50Ms} | ${x.latency.p99Ms} | ${fmt(x.throughput.requestsPerSec)} | ${x.throughput.p99Ms} |`,
    ),
    '',
    `Export of ${fmt(r.export.answers)} answers (${fmt(r.export.distinctTexts)} distinct open-ended texts): ${fmt(r.export.rows)} CSV lines, ${(r.export.bytes / 2 ** 20).toFixed(1)} MiB in ${r.export.seconds.toFixed(1)} s; server RSS ${r.export.rssBeforeMb.toFixed(0)} MB before, peak (VmHWM) ${r.export.peakMb.toFixed(0)} MB (target < 200 MB).`,
    `The same as XLSX: ${(r.xlsxExport.bytes / 2 ** 20).toFixed(1)} MiB in ${r.xlsxExport.seconds.toFixed(1)} s; server RSS ${r.xlsxExport.rssBeforeMb.toFixed(0)} MB before, peak (VmHWM) ${r.xlsxExport.peakMb.toFixed(0)} MB (target < 200 MB).`,
    '',
  );
}

if (selected.has('sdk-overhead')) {
  const r = await sdkOverheadScenario({ rounds, calls: sdkCalls, concurrency: sdkConcurrency });
  const us = (n: number) => n.toFixed(0);
  print(
    `#### @pollkit/sdk against a raw fetch, same calls, same server (${r.database})`,
    '',
    `${sdkCalls} calls per measurement after a 200-call warm-up, 1 and ${sdkConcurrency} in flight; SDK and raw fetch alternate over ${rounds} rounds and the median is shown. ` +
      `µs per call; CPU is this (client) process's user + system time. The raw POST ${r.sdkSendsIdempotencyKey ? 'sends an Idempotency-Key as the SDK does' : 'sends no Idempotency-Key (nor does the SDK)'}.`,
    '',
    '| call | in flight | raw wall µs | SDK wall µs | overhead wall µs | raw CPU µs | SDK CPU µs | overhead CPU µs |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...r.rows.map(
      (row) =>
        `| ${row.operation} | ${row.concurrency} | ${us(row.raw.wallUs)} | ${us(row.sdk.wallUs)} | ${us(row.overhead.wallUs)} | ${us(row.raw.cpuUs)} | ${us(row.sdk.cpuUs)} | ${us(row.overhead.cpuUs)} |`,
    ),
    '',
  );
}

if (selected.has('mcp-overhead')) {
  const r = await mcpOverheadScenario({ rounds, calls: sdkCalls, concurrency: sdkConcurrency });
  const us = (n: number) => n.toFixed(0);
  print(
    `#### A tool call on /mcp beside the same REST call (${r.database})`,
    '',
    `${sdkCalls} calls per measurement after a 200-call warm-up, 1 and ${sdkConcurrency} in flight, each sent by a bare fetch; REST and MCP alternate over ${rounds} rounds and the median is shown. ` +
      "µs per call; server CPU is the server process's user + system time (/proc, 10 ms ticks) divided by the calls.",
    '',
    '| call | in flight | REST wall µs | MCP wall µs | REST server CPU µs | MCP server CPU µs | MCP overhead, server CPU µs |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...r.rows.map(
      (row) =>
        `| ${row.operation} | ${row.concurrency} | ${us(row.rest.wallUs)} | ${us(row.mcp.wallUs)} | ${us(row.rest.serverCpuUs)} | ${us(row.mcp.serverCpuUs)} | ${us(row.mcp.serverCpuUs - row.rest.serverCpuUs)} |`,
    ),
    '',
    `tools/list: ${r.list.tools} tools, ${(r.list.bytes / 1024).toFixed(0)} KiB; the first (which builds the schemas) took ${r.list.firstMs.toFixed(0)} ms; then ${us(r.list.wallUs)} µs wall and ${us(r.list.serverCpuUs)} µs of server CPU each (median of ${rounds} rounds of 200).`,
    '',
  );
}

if (selected.has('media')) {
  const r = await mediaIngestionScenario({ durationSec, singles: mediaSingles, concurrency: mediaConcurrency });
  const ms = (n: number) => n.toFixed(0);
  print(
    `#### POST /api/v1/media, a 12-megapixel JPEG from a loopback image host (${r.database})`,
    '',
    `Source: 4000×3000 JPEG (gradients + noise, quality 85), ${(r.sourceBytes / 2 ** 20).toFixed(1)} MiB; every request a distinct URL with distinct bytes (no de-duplication). ` +
      `Each ingestion downloads, decodes, re-encodes to WebP and stores the file. After 2 warm-up ingestions: ${mediaSingles} one at a time, then ${durationSec} s at each concurrency.`,
    '',
    `One at a time: median **${ms(r.single.medianMs)} ms** (${r.single.allMs.map(ms).join(' / ')} ms).`,
    '',
    '| in flight | ingestions | ingestions/s | p50 ms | p99 ms | failures |',
    '|---:|---:|---:|---:|---:|---:|',
    ...r.concurrent.map(
      (c) =>
        `| ${c.concurrency} | ${c.ingestions} | ${c.perSec.toFixed(2)} | ${ms(c.p50Ms)} | ${ms(c.p99Ms)} | ${c.failures} |`,
    ),
    '',
  );
}

if (selected.has('poisoned-votes')) {
  const r = await poisonedVotesScenario({
    durationSec,
    connections,
    rounds,
    poisonConnections,
    poisonRate,
    poisonShare,
    configs: poisonSelected,
  });
  const alone = r.results.find((x) => x.config === 'alone')?.median.a.acceptedPerSec;
  const label: Record<PoisonConfig, string> = {
    alone: 'A alone',
    clean: 'A + B, every vote valid',
    nul: `A + B, 1 in ${r.every} with a NUL byte in voterId`,
    check: `A + B, 1 in ${r.every} refused by a CHECK constraint`,
    invalid: `A + B, 1 in ${r.every} refused by validation (unknown option, 422)`,
  };
  const refused = (codes: Record<string, number> | undefined) =>
    codes && Object.keys(codes).length > 0
      ? Object.entries(codes)
          .map(([code, count]) => `${code}×${fmt(count)}`)
          .join(', ')
      : '—';
  print(
    `#### Workspace A's votes beside workspace B's poisoned votes (${r.database})`,
    '',
    `autocannon: A ${connections} connections, a new voter per request, as fast as it goes; B ${poisonConnections} connections at ${poisonRate} votes/s. ` +
      `${durationSec} s per measurement after a 2 s warm-up; configurations alternate over ${rounds} rounds and the median round (by A's rate) is shown.`,
    '',
    '| configuration | A accepted votes/s | A p50 ms | A p99 ms | A / alone | B accepted/s | B refused (status×count) | writer statements/s |',
    '|---|---:|---:|---:|---:|---:|---|---:|',
    ...r.results.map(({ config, median: m }) => {
      const ratio = alone ? (m.a.acceptedPerSec / alone).toFixed(2) : '—';
      const b = m.b ? fmt(m.b.acceptedPerSec) : '—';
      return `| ${label[config]} | ${fmt(m.a.acceptedPerSec)} | ${m.a.p50Ms} | ${m.a.p99Ms} | ${ratio} | ${b} | ${refused(m.b?.refused)} | ${fmt(m.flushesPerSec)} |`;
    }),
    '',
    `Rounds (A accepted votes/s): ${r.results.map(({ config, rounds: all }) => `${config} ${all.map(fmt).join(' / ')}`).join('; ')}.`,
    'Goal: A keeps ≥ 0.90 of its rate alone while B sends poison.',
    '',
  );
}

if (selected.has('live-sessions')) {
  const r = await liveSessionsScenario({
    sizes: liveSizes,
    servers: liveServers,
    clients: liveClients,
    concurrency: liveConcurrency,
    serverNodeArgs: liveCpuProf ? ['--cpu-prof', `--cpu-prof-dir=${liveCpuProf}`] : [],
    serverFdLimit: process.env.BENCH_LIVE_SERVER_FD_LIMIT ? Number(process.env.BENCH_LIVE_SERVER_FD_LIMIT) : undefined,
    broadcasts: Number(process.env.BENCH_LIVE_BROADCASTS ?? 6),
  });
  // For compare-live.sh: every figure of every size, as JSON.
  if (process.env.BENCH_LIVE_JSON) await writeFile(process.env.BENCH_LIVE_JSON, JSON.stringify(r));
  const ms = (n: number | undefined) => (n === undefined || Number.isNaN(n) ? '—' : n < 10 ? n.toFixed(1) : fmt(n));
  const failures = (x: { failed: number; failures: Record<string, number> } | undefined) =>
    x === undefined
      ? '—'
      : x.failed === 0
        ? '0'
        : Object.entries(x.failures)
            .map(([what, count]) => `${what}×${fmt(count)}`)
            .join(', ');
  const row = (x: (typeof r.sizes)[number]) => {
    const { join, connect, memory, delivery, broadcasts } = x;
    return [
      fmt(x.participants),
      join ? fmt(join.perSec) : '—',
      ms(join?.p99Ms),
      connect ? `${fmt(connect.ok)}${connect.failed ? ` (failed: ${failures(connect)})` : ''}` : '—',
      connect ? `${connect.seconds.toFixed(1)} (${fmt(connect.perSec)})` : '—',
      memory ? `${fmt(memory.rssAfterJoinMb)} → ${fmt(memory.rssAfterConnectMb)}` : '—',
      memory ? memory.perStreamKb.toFixed(1) : '—',
      delivery ? `${fmt(delivery.received)} / ${fmt(delivery.streamsOpen)}` : '—',
      ms(delivery?.p50Ms),
      ms(delivery?.p99Ms),
      ms(delivery?.maxMs),
      delivery ? `${delivery.serverCpuSec.toFixed(2)} / ${delivery.clientCpuSec.toFixed(2)}` : '—',
      broadcasts
        ? `**${broadcasts.serverCpuUsPerStream.toFixed(1)}** (${broadcasts.serverSystemUsPerStream.toFixed(1)} system)`
        : '—',
      ms(broadcasts?.p99Ms),
    ];
  };
  const answerRow = (x: (typeof r.sizes)[number]) => {
    const a = x.answers;
    return [
      fmt(x.participants),
      a ? fmt(a.ok) : '—',
      failures(a),
      a ? fmt(a.perSec) : '—',
      ms(a?.p50Ms),
      ms(a?.p99Ms),
      a ? fmt(a.counted) : '—',
      a ? a.serverCpuSec.toFixed(1) : '—',
    ];
  };
  const stopped = r.sizes.filter((x) => x.error !== undefined);
  print(
    `#### One live session, N participants, ${liveServers === 1 ? 'one server process' : `${liveServers} server processes sharing it through Redis, the participants split between them (CPU and memory: the first process)`} (${r.database})`,
    '',
    `${liveClients} load-generator processes (node:http), ${liveConcurrency} requests in flight in all; a fresh server per N. ` +
      'Delivery: from just before `POST /sessions/{id}/control {action: "next"}` is written until each stream has read the new `slide` event. ' +
      'CPU: user + system seconds over the phase, of the server process (/proc) and of the load generators (process.cpuUsage). ' +
      `µs per stream per broadcast: the server's CPU over ${Number(process.env.BENCH_LIVE_BROADCASTS ?? 6)} more slide moves (prev, next, …; each waited for until every stream had it) over the \`slide\` events received; p99 the median of theirs.`,
    '',
    '| participants | joins/s | join p99 ms | streams connected | connect s (streams/s) | RSS after joins → streams MB | KB per stream | `next` delivered | delivery p50 ms | p99 ms | max ms | CPU s server / clients (delivery) | server CPU µs per stream per broadcast | moves p99 ms |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...r.sizes.map((x) => `| ${row(x).join(' | ')} |`),
    '',
    '| participants | answers accepted | refused | accepted/s | answer p50 ms | p99 ms | counted by /results | server CPU s |',
    '|---:|---:|---|---:|---:|---:|---:|---:|',
    ...r.sizes.map((x) => `| ${answerRow(x).join(' | ')} |`),
    '',
    'Reconnect storm: every stream cut at once, the session moved on (`next`) while they are away, then each reconnects with its `Last-Event-ID`; resumed = the missed `slide` event replayed to it.',
    '',
    '| participants | resumed | failed | retried (reset or 429, then resumed or failed) | s after the cut | reconnect p50 ms | p99 ms | sent the slide they missed |',
    '|---:|---:|---|---:|---:|---:|---:|---:|',
    ...r.sizes.map((x) => {
      const st = x.storm;
      return `| ${fmt(x.participants)} | ${st ? fmt(st.ok) : '—'} | ${failures(st)} | ${st ? fmt(st.retried) : '—'} | ${st ? st.sinceDropSec.toFixed(1) : '—'} | ${ms(st?.p50Ms)} | ${ms(st?.p99Ms)} | ${st ? fmt(st.missedNothing) : '—'} |`;
    }),
    '',
    `Server open-files limit: ${[...new Set(r.sizes.map((x) => fmt(x.serverFdLimit)))].join(', ')}. ` +
      `Control request (\`next\`) answered in: ${r.sizes.map((x) => `${fmt(x.participants)}: ${ms(x.delivery?.controlMs)} ms`).join('; ')}. ` +
      `Joins failed: ${r.sizes.map((x) => `${fmt(x.participants)}: ${failures(x.join)}`).join('; ')}.`,
    ...stopped.map((x) => `Stopped at ${fmt(x.participants)}: ${x.error}`),
    'Targets (issue 42), on one process: ≤ 15 µs of server CPU per stream per broadcast at 10,000 and 18,000; `next` p99 < 150 ms at 10,000 and < 300 ms at 18,000; ≤ 12 KB per stream; joins ≥ 3,000/s with p99 < 1 s at 10,000; 18,000 streams with none reset and the storm resumed within 15 s, missing nothing.',
    '',
  );
}

if (selected.has('page-load')) {
  const r = await pageLoadScenario({ loads: pageLoads, language: process.env.BENCH_PAGE_LANGUAGE ?? 'en' });
  print(
    `#### The audience page in Chromium at phone size, language ${process.env.BENCH_PAGE_LANGUAGE ?? 'en'} (${pageLoads} loads per row)`,
    '',
    'First visit: open the join URL, type a name, Join, until the page shows the participant waiting. Reload: the',
    'same page reloaded, rejoining with the stored token. Bytes: everything the page transferred (headers included).',
    '',
    '| network | visit | transferred | median ms | p90 ms |',
    '|---|---|---:|---:|---:|',
    ...r.rows.map(
      (row) =>
        `| ${row.network} | ${row.visit} | ${(row.transferredBytes / 1024).toFixed(1)} KB | ${fmt(row.medianMs)} | ${fmt(row.p90Ms)} |`,
    ),
    '',
  );
}

if (selected.has('join-challenge')) {
  const r = await joinChallengeScenario({ challenges: joinChallenges, pageLoads: Math.min(pageLoads, 10) });
  const row = (what: string, x: { medianMs: number; p90Ms: number; maxMs: number; meanMs: number }) =>
    `| ${what} | ${fmt(x.medianMs)} | ${fmt(x.p90Ms)} | ${fmt(x.maxMs)} | ${fmt(x.meanMs)} |`;
  print(
    `#### The join challenge (\`maxnumber\` ${fmt(r.maxnumber)}): solving in Chromium at phone size, CPU slowed down 4×`,
    '',
    `${r.challenges} challenges from the server per row, each solved in the page and sent with a join ` +
      `(${r.accepted} of ${2 * r.challenges} taken). Join: Join clicked to the participant shown waiting (the page ` +
      'gets and solves its challenge as it loads), ' +
      `${r.pageJoin.loads} new phone contexts per row.`,
    '',
    '| what | median ms | p90 ms | max ms | mean ms |',
    '|---|---:|---:|---:|---:|',
    row('solve: the SDK’s solver (Web Crypto) on the page’s thread', r.mainThread),
    row('solve: the audience page’s Web Worker', r.worker),
    row('the audience page’s join, with the challenge, Join at once', r.pageJoin.withChallenge),
    row('the audience page’s join, with the challenge, Join after 2 s of typing', r.pageJoin.afterTyping),
    row('the audience page’s join, without', r.pageJoin.without),
    '',
    '| the server, in process, per call (2,000 one after another) | time µs | CPU µs |',
    '|---|---:|---:|',
    ...(
      [
        ['issuing a challenge (altcha-lib)', r.server.issue],
        ['checking a solution (altcha-lib), used ones in memory', r.server.verify],
        ['recording a solution as used, embedded database', r.server.spendInDatabase],
      ] as const
    ).map(([what, cost]) => `| ${what} | ${cost.wallUs.toFixed(0)} | ${cost.cpuUs.toFixed(0)} |`),
    '',
  );
}

if (selected.has('webhooks')) {
  const r = await webhooksScenario({
    durationSec,
    connections,
    rounds,
    configs: webhookSelected,
    events: webhookEvents,
    drainRuns: webhookDrains,
    drainNodeArgs: process.env.BENCH_WEBHOOK_CPU_PROF
      ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_WEBHOOK_CPU_PROF}`]
      : [],
  });
  const settings = Object.entries(r.settings);
  const settingsText =
    settings.length > 0
      ? `${settings.map(([name, value]) => `\`${name}=${value}\``).join(', ')}, the rest as config.ts defaults`
      : 'WEBHOOK_* as config.ts defaults';
  const cpu = (c: { server: number; receiver: number; postgres: number; loadGenerator: number }) =>
    [c.server, c.receiver, c.postgres, c.loadGenerator].map((s) => s.toFixed(1)).join(' / ');
  const loadAvg = (l: [number, number]) => `${l[0].toFixed(1)} → ${l[1].toFixed(1)}`;
  const label: Record<WebhookConfig, string> = {
    off: 'off: `WEBHOOK_DELIVERY=false`, no endpoint',
    outbox: 'outbox only: `WEBHOOK_DELIVERY=false`, an endpoint subscribed (written, not delivered)',
    none: '(i) worker running, no endpoint',
    endpoint: '(ii) worker running, an endpoint subscribed to `vote.created`',
  };
  const m = r.medians;
  const none = m.none?.load.acceptedPerSec;
  if (webhookSelected.length > 0) {
    const perRound = r.rounds
      .filter((x) => x.config === 'endpoint')
      .map((x) => {
        const without = r.rounds.find((y) => y.config === 'none' && y.round === x.round);
        return without ? (x.load.acceptedPerSec / without.load.acceptedPerSec).toFixed(2) : '—';
      });
    const kinds = [...new Set(Object.values(m).flatMap((x) => Object.keys(x?.statements ?? {})))].sort();
    const statementCell = (x: (typeof m)[WebhookConfig], kind: string) => {
      const s = x?.statements[kind];
      if (!x || !s) return '—';
      return `${fmt(s.count / durationSec)} · ${(s.ms / s.count).toFixed(2)} ms`;
    };
    print(
      `#### Webhooks: POST /api/v1/polls/{id}/votes, a new voter per request, with and without an endpoint (${r.database})`,
      '',
      `autocannon, ${connections} connections, ${durationSec} s per measurement after a 2 s warm-up of each configuration; ` +
        `configurations alternate over ${rounds} rounds and the median round of each is shown. The receiver is a node:http ` +
        `server answering 200 in a process of its own. ${settingsText}. CPU: user + system seconds during the load, of the ` +
        'server, the receiver, every `postgres` process, and the load generator (autocannon). Load average: 1-minute, before → after the round.',
      '',
      '| configuration | accepted votes/s | p50 ms | p99 ms | non-2xx | errors | / (i) | writer flushes/s | CPU s server / receiver / postgres / load gen | load avg |',
      '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
      ...webhookSelected.map((config) => {
        const x = m[config];
        if (!x) return `| ${label[config]} | — |`;
        const ratio = none ? (x.load.acceptedPerSec / none).toFixed(2) : '—';
        return `| ${label[config]} | ${fmt(x.load.acceptedPerSec)} | ${x.load.p50Ms} | ${x.load.p99Ms} | ${x.load.non2xx} | ${x.load.errors} | ${ratio} | ${fmt(x.flushes / durationSec)} | ${cpu(x.cpu)} | ${loadAvg(x.loadAverage)} |`;
      }),
      '',
      m.endpoint && none
        ? `With an endpoint / without (ii / i): **${(m.endpoint.load.acceptedPerSec / none).toFixed(2)}** (target ≥ 0.90); round by round: ${perRound.join(' / ')}.`
        : '',
      `Rounds (accepted votes/s): ${webhookSelected
        .map(
          (config) =>
            `${config} ${r.rounds
              .filter((x) => x.config === config)
              .map((x) => fmt(x.load.acceptedPerSec))
              .join(' / ')}`,
        )
        .join('; ')}.`,
      '',
    );
    const delivered = r.rounds.filter((x) => x.delivery);
    if (delivered.length > 0) {
      print(
        'Deliveries in the (ii) rounds: at the end of the load (received by the receiver; recorded as succeeded; still pending), then the time until none was pending, and the totals after it.',
        '',
        '| round | votes accepted | received at end | succeeded at end | pending at end | drain s | after drain: received (requests) / succeeded / failed | drain CPU s server / receiver / postgres |',
        '|---:|---:|---:|---:|---:|---:|---:|---:|',
        ...delivered.map((x) => {
          const d = x.delivery as NonNullable<typeof x.delivery>;
          return `| ${x.round + 1} | ${fmt(x.load.accepted)} | ${fmt(d.receivedAtEnd)} | ${fmt(d.succeededAtEnd)} | ${fmt(d.pendingAtEnd)} | ${d.drainSec.toFixed(1)} | ${fmt(d.received)} (${fmt(d.receivedRequests)}) / ${fmt(d.succeeded)} / ${fmt(d.failed)} | ${[d.drainCpu.server, d.drainCpu.receiver, d.drainCpu.postgres].map((s) => s.toFixed(1)).join(' / ')} |`;
        }),
        '',
      );
    }
    if (kinds.length > 0) {
      print(
        "Statements in the median rounds: per second, and the average wall time inside the driver's call. On PostgreSQL that includes the round trip and any wait for a CPU; on PGlite (in the server's thread) it includes other requests' JavaScript that ran between the statement's steps, so it is an upper bound, and PGlite's BEGIN/COMMIT are not seen.",
        '',
        `| statement | ${webhookSelected.join(' | ')} |`,
        `|---|${webhookSelected.map(() => '---:').join('|')}|`,
        ...kinds.map(
          (kind) => `| ${kind} | ${webhookSelected.map((config) => statementCell(m[config], kind)).join(' | ')} |`,
        ),
        '',
      );
    }
  }
  if (r.drains.length > 0) {
    print(
      `#### Webhooks: draining an outbox of ${fmt(webhookEvents)} events to one endpoint (${r.database})`,
      '',
      `A server whose worker is stopped once it is up gets an endpoint on the receiver and ${fmt(webhookEvents)} votes through the API ` +
        `(autocannon, ${connections} connections); then its worker is started and timed until the receiver has every event and no ` +
        `delivery is pending in the database. ${settingsText}.`,
      '',
      '| events | votes/s while filling | first delivery ms | all received s | all recorded s | **events/s** | received (requests) / succeeded / failed | CPU s server / receiver / postgres | claims (ms each) | outcome records (outcomes, ms each) | load avg |',
      '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
      ...r.drains.map((d) => {
        const claims = d.statements['claim deliveries'] ?? { count: 0, ms: 0 };
        const records = d.statements['record outcomes'] ?? { count: 0, ms: 0 };
        const each = (s: { count: number; ms: number }) => (s.count ? (s.ms / s.count).toFixed(2) : '—');
        return `| ${fmt(d.events)} | ${fmt(d.prefill.acceptedPerSec)} | ${fmt(d.firstDeliveryMs)} | ${d.receivedSec.toFixed(1)} | ${d.recordedSec.toFixed(1)} | **${fmt(d.eventsPerSec)}** | ${fmt(d.received)} (${fmt(d.receivedRequests)}) / ${fmt(d.succeeded)} / ${fmt(d.failed)} | ${[d.cpu.server, d.cpu.receiver, d.cpu.postgres].map((s) => s.toFixed(1)).join(' / ')} | ${fmt(claims.count)} (${each(claims)}) | ${fmt(records.count)} (${records.count ? (d.succeeded / records.count).toFixed(1) : '—'}, ${each(records)}) | ${loadAvg(d.loadAverage)} |`;
      }),
      '',
    );
  }
}
