import net from 'node:net';
import type { HttpResponse } from './http.js';

/** A response read off a raw socket, plus whether the server closed the connection after it. */
export interface RawResponse extends HttpResponse<unknown> {
  /** The server ended the connection after the response (its `Connection: close` kept). */
  closedByServer: boolean;
}

/**
 * Sends `bytes` as they are on a new TCP connection — what fetch refuses to send (oversized or
 * malformed headers, unknown methods, TRACE, CONNECT) — and reads one HTTP/1.1 response. Waits
 * for the server to close the connection when the response says `Connection: close`; otherwise
 * closes it itself once the body (sized by Content-Length) is in.
 */
export function rawRequest(url: string, bytes: string | Buffer): Promise<RawResponse> {
  const { hostname, port } = new URL(url);
  return new Promise((resolveResponse, reject) => {
    const socket = net.connect(Number(port), hostname);
    let received = Buffer.alloc(0);
    let parsed: Omit<RawResponse, 'closedByServer'> | undefined;
    let done = false;
    const finish = (closedByServer: boolean) => {
      if (done) return;
      done = true;
      socket.destroy();
      if (parsed) resolveResponse({ ...parsed, closedByServer });
      else
        reject(new Error(`connection closed before a whole response: ${JSON.stringify(received.toString('latin1'))}`));
    };
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      parsed ??= parseResponse(received);
      if (parsed && parsed.headers.get('connection') !== 'close') finish(false);
    });
    socket.on('end', () => finish(true));
    socket.on('close', () => finish(true));
    // The server may answer and close before it has read everything: that is not this helper's error.
    socket.on('error', () => finish(true));
    socket.write(bytes);
  });
}

function parseResponse(received: Buffer): Omit<RawResponse, 'closedByServer'> | undefined {
  const headEnd = received.indexOf('\r\n\r\n');
  if (headEnd < 0) return undefined;
  const [statusLine = '', ...headerLines] = received.subarray(0, headEnd).toString('latin1').split('\r\n');
  const headers = new Headers();
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
  }
  const length = Number(headers.get('content-length') ?? 0);
  const bodyBytes = received.subarray(headEnd + 4);
  if (bodyBytes.length < length) return undefined;
  const text = bodyBytes.subarray(0, length).toString('utf8');
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  return { status: Number(statusLine.split(' ')[1]), headers, body, text };
}
