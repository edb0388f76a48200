/**
 * Where a server's CPU went, from a V8 CPU profile (`node --cpu-prof`, as the benchmarks' *_CPU_PROF
 * settings write): the share of samples by where the code lives (self time: which package, or which
 * folder of server/src), and the functions of server/src with the largest inclusive share (the
 * steps a request takes, with everything they call).
 *
 *   npx tsx server/bench/profile-summary.ts <file.cpuprofile> [top] [from–to]
 *
 * `from–to` (monotonic ms, as the live-sessions scenario prints each phase's window) keeps only the
 * samples taken in that window: V8 stamps samples with the clock `process.hrtime` reads.
 */
import { existsSync, readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { fileURLToPath } from 'node:url';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

const [file, topArg, windowArg] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: profile-summary.ts <file.cpuprofile> [top]\n');
  process.exit(2);
}
const top = Number(topArg ?? 25);
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;

// The benchmarks run bundled code (support.ts, bundle): frames are put back in their source files
// through the bundles' source maps, so `server/src/...` and each package show as themselves.
const maps = new Map<string, SourceMap | undefined>();
function sourceMapOf(url: string): SourceMap | undefined {
  if (!maps.has(url)) {
    const path = url.startsWith('file://') ? fileURLToPath(url) : url;
    const mapFile = `${path}.map`;
    maps.set(url, existsSync(mapFile) ? new SourceMap(JSON.parse(readFileSync(mapFile, 'utf8'))) : undefined);
  }
  return maps.get(url);
}
for (const node of profile.nodes) {
  const frame = node.callFrame;
  if (!frame.url.includes('/bench/.tmp/')) continue;
  const entry = sourceMapOf(frame.url)?.findEntry(frame.lineNumber, frame.columnNumber) as
    | { originalSource?: string; originalLine?: number }
    | undefined;
  if (entry?.originalSource) {
    frame.url = new URL(entry.originalSource, frame.url).href;
    frame.lineNumber = entry.originalLine ?? frame.lineNumber;
  }
}

const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const parent = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

/** Where a frame's code lives: a package, a folder of server/src, node's own, or V8's markers. */
function place(node: ProfileNode): string {
  const { url, functionName } = node.callFrame;
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  const pkg = url.match(/node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)/);
  if (pkg?.[1]) return pkg[1];
  if (url.startsWith('node:')) return 'node: (core)';
  const src = url.match(/server\/src\/(.*)\/[^/]+$/) ?? url.match(/server\/src\/([^/]+)$/);
  if (src?.[1]) return `server/src/${src[1]}`;
  const contracts = url.match(/contracts\/src/);
  if (contracts) return 'contracts/src';
  return url.replace(/^file:\/\//, '');
}

function label(node: ProfileNode): string {
  const { url, functionName, lineNumber } = node.callFrame;
  const file = url.replace(/^.*\/(server|contracts)\/src\//, '$1/').replace(/^file:\/\//, '');
  return `${functionName || '(anonymous)'} ${file}:${lineNumber + 1}`;
}

const selfByPlace = new Map<string, number>();
const inclusiveByFunction = new Map<string, number>();
const [fromMs, toMs] = windowArg ? windowArg.split(/[–-]/).map(Number) : [];
let total = 0;
let idle = 0;
let at = profile.startTime;
for (const [i, id] of profile.samples.entries()) {
  at += profile.timeDeltas[i] ?? 0;
  if (fromMs !== undefined && toMs !== undefined && (at / 1000 < fromMs || at / 1000 > toMs)) continue;
  const node = byId.get(id);
  if (!node) continue;
  total++;
  if (node.callFrame.functionName === '(idle)') {
    idle++;
    continue;
  }
  const where = place(node);
  selfByPlace.set(where, (selfByPlace.get(where) ?? 0) + 1);
  // Each function of server/src on the stack counts once per sample, however deep it recurses.
  const seen = new Set<string>();
  for (let up: number | undefined = id; up !== undefined; up = parent.get(up)) {
    const frame = byId.get(up);
    if (!frame || !/(server|contracts)\/src\//.test(frame.callFrame.url)) continue;
    const name = label(frame);
    if (seen.has(name)) continue;
    seen.add(name);
    inclusiveByFunction.set(name, (inclusiveByFunction.get(name) ?? 0) + 1);
  }
}

const busy = total - idle;
const seconds =
  fromMs !== undefined && toMs !== undefined ? (toMs - fromMs) / 1000 : (profile.endTime - profile.startTime) / 1e6;
const pct = (n: number) => `${((100 * n) / busy).toFixed(1)} %`;
const rows = (entries: Map<string, number>) =>
  [...entries]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([name, n]) => `| ${name} | ${pct(n)} |`)
    .join('\n');

process.stdout.write(
  [
    `${file}: ${seconds.toFixed(1)} s profiled, ${total} samples, ${((100 * idle) / total).toFixed(1)} % idle; shares below are of the busy samples`,
    '',
    '| self time by place | share |',
    '|---|---:|',
    rows(selfByPlace),
    '',
    '| inclusive time, functions of server/src and contracts/src | share |',
    '|---|---:|',
    rows(inclusiveByFunction),
    '',
  ].join('\n'),
);
