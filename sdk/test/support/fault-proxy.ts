import { once } from 'node:events';
import {
  type ClientRequest,
  createServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as it reached the proxy, before any fault. */
export interface RecordedRequest {
  method: string;
  /** Path and query, e.g. `/api/v1/polls?limit=10`. */
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * What the proxy does to the next matching requests instead of (or on top of) forwarding them:
 * - `status`: answers with the API's error envelope and this status, without forwarding;
 * - `delay`: waits `ms` before forwarding (the client may give up first);
 * - `drop`: forwards, lets the server answer, then closes the connection without a byte of the answer;
 * - `rewrite`: forwards, then replaces the 2xx body with `rewrite(body)`.
 */
type Fault =
  | { kind: 'status'; status: number; code: string; message?: string }
  | { kind: 'delay'; ms: number }
  | { kind: 'drop' }
  | { kind: 'rewrite'; rewrite: (body: string) => string };

interface QueuedFault {
  fault: Fault;
  remaining: number;
  matches: (request: RecordedRequest) => boolean;
}

export interface FaultProxy {
  /** The proxy's origin, to pass as a client's `baseUrl`. */
  readonly url: string;
  /** Every request received, in order. */
  readonly requests: RecordedRequest[];
  /**
   * Server-Sent Events streams being relayed now. An event stream (`text/event-stream`) is relayed as
   * it arrives rather than read to its end; `rewrite` does not apply to it.
   */
  readonly openStreams: number;
  /**
   * Breaks every event stream being relayed, as a lost network does: the client's connection is
   * destroyed mid-stream, and so is the proxy's connection to the server. Answers how many it broke.
   */
  dropStreams(): number;
  /** Applies `fault` to the next `times` requests that `matches` accepts (every request by default). */
  inject(fault: Fault, times?: number, matches?: (request: RecordedRequest) => boolean): void;
  /** Forgets recorded requests and pending faults. */
  reset(): void;
  close(): Promise<void>;
}

function readBody(stream: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', reject);
  });
}

type UpstreamAnswer =
  | { status: number; headers: IncomingHttpHeaders; body: Buffer; stream?: undefined }
  | { status: number; headers: IncomingHttpHeaders; stream: IncomingMessage; request: ClientRequest };

const isEventStream = (headers: IncomingHttpHeaders) => /^text\/event-stream\b/.test(headers['content-type'] ?? '');

function forward(upstream: URL, recorded: RecordedRequest, body: Buffer): Promise<UpstreamAnswer> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: recorded.method,
        path: recorded.url,
        headers: { ...recorded.headers, host: upstream.host },
      },
      (answer) => {
        if (isEventStream(answer.headers)) {
          resolve({ status: answer.statusCode ?? 502, headers: answer.headers, stream: answer, request: outgoing });
          return;
        }
        readBody(answer).then(
          (answerBody) => resolve({ status: answer.statusCode ?? 502, headers: answer.headers, body: answerBody }),
          reject,
        );
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/**
 * A loopback HTTP proxy in front of the real server, for the failures a network and a load balancer
 * cause: error statuses, slow answers, answers lost on the way back, altered bodies. Requests with
 * no pending fault are forwarded untouched.
 */
export async function startFaultProxy(upstreamUrl: string): Promise<FaultProxy> {
  const upstream = new URL(upstreamUrl);
  const requests: RecordedRequest[] = [];
  let faults: QueuedFault[] = [];
  const streams = new Set<{ client: ServerResponse; upstream: ClientRequest }>();

  function takeFault(recorded: RecordedRequest): Fault | undefined {
    const queued = faults.find((entry) => entry.remaining > 0 && entry.matches(recorded));
    if (!queued) return undefined;
    queued.remaining -= 1;
    return queued.fault;
  }

  const server = createServer(async (incoming, outgoing) => {
    try {
      const body = await readBody(incoming);
      const recorded: RecordedRequest = {
        method: incoming.method ?? 'GET',
        url: incoming.url ?? '/',
        headers: incoming.headers,
        body: body.toString('utf8'),
      };
      requests.push(recorded);
      const fault = takeFault(recorded);

      if (fault?.kind === 'status') {
        const envelope = { error: { code: fault.code, message: fault.message ?? `Injected ${fault.status}` } };
        outgoing.writeHead(fault.status, { 'content-type': 'application/json' }).end(JSON.stringify(envelope));
        return;
      }
      if (fault?.kind === 'delay') {
        await new Promise((resolve) => setTimeout(resolve, fault.ms));
        // The client gave up while we waited: nothing to forward to.
        if (outgoing.destroyed || incoming.socket.destroyed) return;
      }

      const answer = await forward(upstream, recorded, body);
      if (fault?.kind === 'drop') {
        // The server did the work; the client never learns the outcome.
        outgoing.socket?.destroy();
        answer.stream?.destroy();
        return;
      }
      if (answer.stream) {
        const relay = { client: outgoing, upstream: answer.request };
        streams.add(relay);
        outgoing.on('close', () => {
          streams.delete(relay);
          answer.request.destroy();
        });
        answer.stream.on('error', () => outgoing.destroy());
        outgoing.writeHead(answer.status, answer.headers);
        outgoing.flushHeaders();
        answer.stream.pipe(outgoing);
        return;
      }
      let answerBody = answer.body;
      if (fault?.kind === 'rewrite' && answer.status < 300) {
        answerBody = Buffer.from(fault.rewrite(answer.body.toString('utf8')));
      }
      const headers = { ...answer.headers, 'content-length': String(answerBody.length) };
      delete headers['transfer-encoding'];
      outgoing.writeHead(answer.status, headers).end(answerBody);
    } catch {
      if (!outgoing.headersSent) outgoing.writeHead(502).end();
      else outgoing.destroy();
    }
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    get openStreams() {
      return streams.size;
    },
    dropStreams() {
      const dropped = streams.size;
      for (const relay of streams) {
        relay.client.socket?.destroy();
        relay.upstream.destroy();
      }
      streams.clear();
      return dropped;
    },
    inject(fault, times = 1, matches = () => true) {
      faults.push({ fault, remaining: times, matches });
    },
    reset() {
      requests.length = 0;
      faults = [];
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
