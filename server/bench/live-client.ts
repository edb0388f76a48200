/**
 * One load-generator process of the live-sessions scenario (bench/live-sessions.ts starts a few,
 * with `ulimit -n` raised, and drives them over IPC). It plays `count` participants of one session:
 * joins them, holds one SSE stream each, records when each stream receives the next `slide` event,
 * and answers. Plain `node:http` with pooled keep-alive sockets for requests and one socket per
 * stream; SSE is parsed just enough to find `event:` and `id:` lines. Times are
 * `process.hrtime` (CLOCK_MONOTONIC), comparable between the processes of one machine.
 */
import http from 'node:http';
import { jsonRequest } from './json-request.js';

export type Command =
  | { type: 'init'; url: string; pin: string; first: number; count: number; concurrency: number }
  | { type: 'join' }
  | { type: 'connect' }
  | { type: 'arm' }
  | { type: 'collect'; timeoutMs: number }
  | { type: 'answer'; slideId: string; options: string[] }
  | { type: 'drop' }
  | { type: 'resume' }
  | { type: 'close' };

export interface Timed {
  ok: number;
  failed: number;
  /** Status (or error code) × count of the failures. */
  failures: Record<string, number>;
  startMs: number;
  endMs: number;
  /** Per request, ms (successful ones). */
  latenciesMs: number[];
}

export type Reply =
  | { type: 'ready' }
  | ({ type: 'joined' } & Timed)
  | ({ type: 'connected' } & Timed)
  | { type: 'armed' }
  | { type: 'collected'; arrivalsMs: number[]; streamsOpen: number; cpuSec: number }
  | ({ type: 'answered' } & Timed)
  | { type: 'dropped' }
  | ({ type: 'resumed'; missedNothing: number; retried: number } & Timed)
  | { type: 'error'; message: string };

const nowMs = () => Number(process.hrtime.bigint()) / 1e6;

interface Participant {
  index: number;
  token: string;
  stream?: http.ClientRequest;
  response?: http.IncomingMessage;
  /** Unparsed end of the stream (an event split between chunks). */
  pending: string;
  /** `id:` of the last `slide` event. */
  slideId?: string;
  /** `id:` of the last event of any kind: the `Last-Event-ID` a reconnecting stream sends. */
  lastEventId?: string;
  /** Set on `drop`: the `slide` event id the stream had when it was cut. */
  slideIdAtDrop?: string;
  /** Set on `arm`: the next `slide` event is the one measured. */
  armed: boolean;
  arrivalMs?: number;
  open: boolean;
}

let target: { hostname: string; port: number; pin: string };
let concurrency = 100;
let first = 0;
let count = 0;
const participants: Participant[] = [];
let requestAgent: http.Agent;
const streamAgent = new http.Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });
/** Armed streams still open that have not received the measured `slide` event yet. */
let waiting = 0;
let onAllArrived: (() => void) | undefined;
/** This process's CPU time when armed, and when the last measured event arrived. */
let armedCpu: NodeJS.CpuUsage | undefined;
let cpuSec = 0;

function arrived(): void {
  waiting -= 1;
  if (waiting === 0 && armedCpu) {
    const used = process.cpuUsage(armedCpu);
    cpuSec = (used.user + used.system) / 1e6;
  }
  if (waiting === 0) onAllArrived?.();
}

function send(reply: Reply): void {
  process.send?.(reply);
}

/** One JSON request on the keep-alive pool: resolves with the status and the body text. */
function request(
  method: string,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; text: string }> {
  return jsonRequest(`http://${target.hostname}:${target.port}${path}`, method, requestAgent, body, headers);
}

/** Runs `task` for every participant, `limit` at a time. */
async function bounded(limit: number, task: (p: Participant) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < participants.length) {
      const participant = participants[next++] as Participant;
      await task(participant);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, participants.length) }, lane));
}

function timed(): Timed & { fail(what: string): void } {
  const result: Timed & { fail(what: string): void } = {
    ok: 0,
    failed: 0,
    failures: {},
    startMs: nowMs(),
    endMs: 0,
    latenciesMs: [],
    fail(what: string) {
      result.failed += 1;
      result.failures[what] = (result.failures[what] ?? 0) + 1;
    },
  };
  return result;
}

function finish(result: Timed & { fail?: unknown }): Timed {
  const { fail: _, ...rest } = result;
  return { ...rest, endMs: nowMs() };
}

async function join(): Promise<Timed> {
  const result = timed();
  for (let i = 0; i < count; i++)
    participants.push({ index: first + i, token: '', pending: '', armed: false, open: false });
  await bounded(concurrency, async (participant) => {
    const started = nowMs();
    try {
      const { status, text } = await request('POST', `/api/v1/live/${target.pin}/join`, {
        name: `p${participant.index}`,
      });
      if (status !== 200) return result.fail(String(status));
      participant.token = (JSON.parse(text) as { participantToken: string }).participantToken;
      result.ok += 1;
      result.latenciesMs.push(nowMs() - started);
    } catch (error) {
      result.fail((error as NodeJS.ErrnoException).code ?? 'error');
    }
  });
  // Those who could not join take no further part.
  participants.splice(0, participants.length, ...participants.filter((p) => p.token !== ''));
  return finish(result);
}

/** Reads the SSE frames in a chunk: only `event:slide` frames and their `id:` matter here. */
function parse(participant: Participant, chunk: string, at: number): void {
  let text = participant.pending + chunk;
  let end = text.indexOf('\n\n');
  while (end !== -1) {
    const frame = text.slice(0, end);
    text = text.slice(end + 2);
    const lineAt = frame.startsWith('id:') ? 0 : frame.indexOf('\nid:') + 1;
    if (lineAt > 0 || frame.startsWith('id:')) {
      const lineEnd = frame.indexOf('\n', lineAt);
      participant.lastEventId = frame.slice(lineAt + 3, lineEnd === -1 ? undefined : lineEnd).trim();
    }
    if (frame.startsWith('event:slide\n') || frame.includes('\nevent:slide\n')) {
      const idAt = frame.indexOf('id:');
      const id = idAt === -1 ? '' : frame.slice(idAt + 3, frame.indexOf('\n', idAt)).trim();
      participant.slideId = id;
      if (participant.armed && participant.arrivalMs === undefined) {
        participant.arrivalMs = at;
        arrived();
      }
    }
    end = text.indexOf('\n\n');
  }
  participant.pending = text;
}

/**
 * Opens a participant's stream; resolves when its first `slide` event has arrived — the snapshot,
 * or with `lastEventId` (a reconnect) the first `slide` event other than the one it had when cut.
 */
function openStream(participant: Participant, lastEventId?: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    let settled = false;
    const settle = (failure?: string) => {
      if (settled) return;
      settled = true;
      resolve(failure);
    };
    const req = http.request(
      {
        hostname: target.hostname,
        port: target.port,
        path: `/api/v1/live/${target.pin}/events`,
        agent: streamAgent,
        headers: {
          accept: 'text/event-stream',
          'x-participant-token': participant.token,
          ...(lastEventId ? { 'last-event-id': lastEventId } : {}),
        },
      },
      (res) => {
        if (res.statusCode !== 200) {
          res.resume();
          settle(String(res.statusCode));
          return;
        }
        participant.response = res;
        participant.open = true;
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          parse(participant, chunk, nowMs());
          if (participant.slideId !== undefined && participant.slideId !== participant.slideIdAtDrop) settle();
        });
        const closed = () => {
          if (participant.open && participant.armed && participant.arrivalMs === undefined) arrived();
          participant.open = false;
          settle('closed');
        };
        res.on('end', closed);
        res.on('error', closed);
        res.on('close', closed);
      },
    );
    req.on('error', (error: NodeJS.ErrnoException) => {
      participant.open = false;
      settle(error.code ?? 'error');
    });
    participant.stream = req;
    req.end();
  });
}

async function connect(): Promise<Timed> {
  const result = timed();
  await bounded(concurrency, async (participant) => {
    const started = nowMs();
    const failure = await openStream(participant);
    if (failure) return result.fail(failure);
    result.ok += 1;
    result.latenciesMs.push(nowMs() - started);
  });
  return finish(result);
}

function collect(timeoutMs: number): Promise<number[]> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      onAllArrived = undefined;
      resolve(participants.flatMap((p) => (p.arrivalMs === undefined ? [] : [p.arrivalMs])));
    };
    const timer = setTimeout(done, timeoutMs);
    onAllArrived = done;
    if (waiting <= 0) done();
  });
}

async function answer(slideId: string, options: string[]): Promise<Timed> {
  const result = timed();
  await bounded(concurrency, async (participant) => {
    const started = nowMs();
    try {
      const { status, text } = await request(
        'POST',
        `/api/v1/live/${target.pin}/answers`,
        { slideId, optionIds: [options[participant.index % options.length]] },
        { 'x-participant-token': participant.token },
      );
      if (status !== 201) {
        const code = status === 409 ? (JSON.parse(text) as { error?: { code?: string } }).error?.code : undefined;
        return result.fail(code ? `${status} ${code}` : String(status));
      }
      result.ok += 1;
      result.latenciesMs.push(nowMs() - started);
    } catch (error) {
      result.fail((error as NodeJS.ErrnoException).code ?? 'error');
    }
  });
  return finish(result);
}

/**
 * A reconnect storm, as a process restart behind a load balancer makes one: every stream cut at
 * once (`drop`), then (`resume`) each reconnects with the `Last-Event-ID` it had and counts as
 * resumed when the `slide` event it missed while cut (the scenario moves the session on meanwhile)
 * has arrived, replayed from the history.
 */
function drop(): void {
  for (const participant of participants) {
    participant.slideIdAtDrop = participant.slideId;
    participant.armed = false;
    participant.open = false;
    participant.stream?.destroy();
  }
}

/** Attempts a reconnect gets when the server resets or refuses it (EventSource and the audience page retry too). */
const RESUME_ATTEMPTS = 5;

async function resume(): Promise<Timed & { missedNothing: number; retried: number }> {
  const result = timed();
  let missedNothing = 0;
  let retried = 0;
  await bounded(concurrency, async (participant) => {
    const started = nowMs();
    let failure: string | undefined;
    for (let attempt = 1; attempt <= RESUME_ATTEMPTS; attempt++) {
      participant.pending = '';
      failure = await openStream(participant, participant.lastEventId);
      // A reset connection (the server out of descriptors) or a 429 (past its stream cap) is retried,
      // as a browser's EventSource retries a dropped connection; anything else is a failure.
      if (failure === undefined || !['ECONNRESET', 'EPIPE', 'closed', '429'].includes(failure)) break;
      retried += 1;
      await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
    }
    if (failure) return result.fail(failure);
    result.ok += 1;
    result.latenciesMs.push(nowMs() - started);
    if (participant.slideId !== participant.slideIdAtDrop) missedNothing += 1;
  });
  return { ...finish(result), missedNothing, retried };
}

async function handle(command: Command): Promise<void> {
  switch (command.type) {
    case 'init': {
      const url = new URL(command.url);
      target = { hostname: url.hostname, port: Number(url.port), pin: command.pin };
      concurrency = command.concurrency;
      first = command.first;
      count = command.count;
      requestAgent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
      return send({ type: 'ready' });
    }
    case 'join':
      return send({ type: 'joined', ...(await join()) });
    case 'connect':
      return send({ type: 'connected', ...(await connect()) });
    case 'arm':
      waiting = 0;
      armedCpu = process.cpuUsage();
      for (const participant of participants) {
        participant.armed = true;
        participant.arrivalMs = undefined;
        if (participant.open) waiting += 1;
      }
      return send({ type: 'armed' });
    case 'collect':
      return send({
        type: 'collected',
        arrivalsMs: await collect(command.timeoutMs),
        streamsOpen: participants.filter((p) => p.open).length,
        cpuSec,
      });
    case 'answer':
      return send({ type: 'answered', ...(await answer(command.slideId, command.options)) });
    case 'drop':
      drop();
      return send({ type: 'dropped' });
    case 'resume':
      return send({ type: 'resumed', ...(await resume()) });
    case 'close':
      for (const participant of participants) participant.stream?.destroy();
      requestAgent?.destroy();
      process.disconnect?.();
      setTimeout(() => process.exit(0), 100).unref();
      return;
  }
}

process.on('uncaughtException', (error) => {
  send({ type: 'error', message: `uncaught: ${error.stack ?? error}` });
});
process.on('message', (command: Command) => {
  handle(command).catch((error: unknown) => send({ type: 'error', message: String(error) }));
});
send({ type: 'ready' });
