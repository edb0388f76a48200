import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { AddressRefusedError, forbiddenAddressReason, publicAddresses } from './safe-fetch.js';

/** One webhook attempt's request: the endpoint's URL, the signed headers, the body. */
export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** What came of it. Never thrown: a failure is an outcome like any other (`status: null`, `error`). */
export interface WebhookResponse {
  /** The HTTP status, or null when no answer came. */
  status: number | null;
  latencyMs: number;
  /** The first `excerptBytes` of the answer's body, as text. */
  excerpt: string | null;
  error: string | null;
}

export interface WebhookSenderOptions {
  timeoutMs: number;
  allowHttp: boolean;
  allowLoopback: boolean;
  excerptBytes: number;
  /** Connections kept per endpoint host (keep-alive): a busy endpoint reuses them. */
  maxSocketsPerHost: number;
}

/** An answer's body past this is not read: the receiver was asked for a status, not a document. */
const MAX_BODY_READ = 64 * 1024;

/**
 * Sends webhook attempts: one POST each, no redirects followed (a 3xx is a failure: the endpoint's
 * URL is what the workspace registered), one deadline for the whole exchange. Every new connection
 * resolves the host again and refuses private, loopback and link-local addresses (the same guard as
 * media ingestion, infra/safe-fetch.ts): a host whose DNS changed since the endpoint was registered
 * cannot turn deliveries inward. Connections are kept alive per host, so a busy endpoint costs one
 * TLS handshake per socket, not per event; a kept socket stays on the address checked when it opened.
 */
export class WebhookSender {
  readonly #http: http.Agent;
  readonly #https: https.Agent;

  constructor(private readonly options: WebhookSenderOptions) {
    const lookup = checkedLookup(options.allowLoopback);
    const agentOptions = { keepAlive: true, maxSockets: options.maxSocketsPerHost, lookup, timeout: options.timeoutMs };
    this.#http = new http.Agent(agentOptions);
    this.#https = new https.Agent(agentOptions);
  }

  /** `interrupt`: aborts the attempt before its deadline (the server is shutting down). */
  async send(request: WebhookRequest, interrupt?: AbortSignal): Promise<WebhookResponse> {
    const started = performance.now();
    const failed = (error: string): WebhookResponse => ({
      status: null,
      latencyMs: Math.round(performance.now() - started),
      excerpt: null,
      error,
    });
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      return failed('The endpoint URL is not valid');
    }
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && this.options.allowHttp)) {
      return failed(`Deliveries go to https URLs only, not ${url.protocol}`);
    }
    // An IP literal is connected to without a lookup, so it is checked here.
    const literal = url.hostname.replace(/^\[(.*)\]$/, '$1');
    if (isIP(literal)) {
      const reason = forbiddenAddressReason(literal, this.options.allowLoopback);
      if (reason) return failed(`The endpoint's address is ${reason}`);
    }
    try {
      return await this.#post(url, request, started, interrupt);
    } catch (error) {
      if (interrupt?.aborted) return failed('Interrupted: the server shut down before an answer came');
      return failed(describe(error, this.options.timeoutMs));
    }
  }

  #post(url: URL, request: WebhookRequest, started: number, interrupt?: AbortSignal): Promise<WebhookResponse> {
    const client = url.protocol === 'https:' ? https : http;
    const agent = url.protocol === 'https:' ? this.#https : this.#http;
    const body = Buffer.from(request.body, 'utf8');
    return new Promise<WebhookResponse>((resolve, reject) => {
      const req = client.request(url, {
        method: 'POST',
        agent,
        signal: interrupt
          ? AbortSignal.any([AbortSignal.timeout(this.options.timeoutMs), interrupt])
          : AbortSignal.timeout(this.options.timeoutMs),
        headers: {
          ...request.headers,
          'content-type': 'application/json',
          'content-length': String(body.length),
          'user-agent': 'Pollkit-Webhooks/1.0',
        },
      });
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          if (read < MAX_BODY_READ) chunks.push(chunk);
          read += chunk.length;
          if (read >= MAX_BODY_READ) res.destroy();
        });
        const finish = () => {
          const excerpt = Buffer.concat(chunks).subarray(0, this.options.excerptBytes);
          resolve({
            status: res.statusCode ?? null,
            latencyMs: Math.round(performance.now() - started),
            // A cut multi-byte character becomes U+FFFD; a NUL would not fit a text column.
            excerpt: excerpt.length === 0 ? null : excerpt.toString('utf8').replaceAll('\u0000', '\uFFFD'),
            error: null,
          });
        };
        res.on('end', finish);
        res.on('close', finish);
        res.on('error', () => undefined);
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  close(): void {
    this.#http.destroy();
    this.#https.destroy();
  }
}

/** The agents' DNS lookup: every address of the host must be public (see publicAddresses). */
function checkedLookup(allowLoopback: boolean): LookupFunction {
  return (hostname, options, callback) => {
    publicAddresses(hostname, allowLoopback).then(
      (addresses) => {
        if (options.all) callback(null, addresses);
        else callback(null, addresses[0]?.address ?? '', addresses[0]?.family ?? 4);
      },
      (error: unknown) => callback(error as NodeJS.ErrnoException, '', 4),
    );
  };
}

function describe(error: unknown, timeoutMs: number): string {
  if (error instanceof AddressRefusedError) return error.message;
  const named = error as { name?: string; code?: string; message?: string; cause?: unknown };
  if (named.name === 'AbortError' || named.name === 'TimeoutError' || named.code === 'ABORT_ERR') {
    return `No answer within ${timeoutMs} ms`;
  }
  if (named.cause instanceof AddressRefusedError) return named.cause.message;
  return `The connection failed (${named.code ?? named.message ?? 'unknown error'})`;
}
