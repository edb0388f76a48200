import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import { ApiError } from '../core/api-error.js';
import { WINDOW_HEADER_VALUE } from './rate-limit-headers.js';

/** How long a socket answered here may stay open for the client to read the answer and close. */
const LINGER_MS = 2_000;

/**
 * What Node's HTTP parser (llhttp) refuses before any request exists, keyed by its error code; the
 * status comes with the code, from the registry.
 */
function answerFor(code: string | undefined): ApiError {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return new ApiError(
        'request_header_fields_too_large',
        'The request line and headers are larger than the server accepts (16 KiB)',
      );
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new ApiError('request_timeout', 'The request was not received in time');
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return new ApiError('payload_too_large', 'The chunk extensions are too large');
    case 'HPE_INVALID_METHOD':
      return new ApiError('bad_request', 'The request method is not an HTTP method this server knows');
    case 'HPE_INVALID_CONTENT_LENGTH':
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
      return new ApiError(
        'bad_request',
        'Content-Length is not a single decimal number, or comes with Transfer-Encoding',
      );
    case 'HPE_INVALID_HEADER_TOKEN':
      return new ApiError('bad_request', 'A header contains characters HTTP does not allow');
    case 'HPE_INVALID_URL':
      return new ApiError('bad_request', 'The request target is not a valid URL path');
    case 'HPE_INVALID_TRANSFER_ENCODING':
    case 'HPE_INVALID_CHUNK_SIZE':
      return new ApiError('bad_request', 'The chunked request body is malformed');
    default:
      return new ApiError('bad_request', 'The request is not valid HTTP/1.1');
  }
}

/** Sockets already answered: the parser reports each further byte of a broken request again. */
const answered = new WeakSet<Socket>();

/**
 * Node answers requests its parser refuses (oversized headers, a bad Content-Length, control
 * characters, an unknown method token) itself, on the socket, before Fastify sees a request — with
 * Fastify's or Node's own bodies. This handler (Fastify's `clientErrorHandler`) answers them in the
 * envelope instead, with the headers every response carries, and closes the connection: after a
 * parse error the rest of the byte stream cannot be trusted.
 */
export function clientErrorHandler(rateLimitPerMinute: number, log: { debug(obj: object, msg: string): void }) {
  return (error: Error & { code?: string; rawPacket?: unknown }, socket: Socket): void => {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    if (answered.has(socket)) return;
    log.debug({ code: error.code }, 'unparsable request');
    const forApi = isApiRequest(error.rawPacket) || isApiPath(requestInFlight(socket)?.req?.url);
    writeRawError(socket, answerFor(error.code), forApi ? rateLimitPerMinute : undefined);
  };
}

type InFlight = { headersSent?: boolean; req?: { url?: string } };

/**
 * The response Node has made for the request being received on this socket, if its headers were
 * read: a request that timed out while sending its body has one (and no `rawPacket`).
 */
function requestInFlight(socket: Socket): InFlight | undefined {
  return (socket as Socket & { _httpMessage?: InFlight })._httpMessage ?? undefined;
}

/**
 * `CONNECT` is not routed to Fastify: Node hands the socket to 'connect' listeners and, without one,
 * closes it without a word. This server is no proxy; it says so in the envelope.
 */
export function refuseConnect(_request: unknown, socket: Socket): void {
  writeRawError(socket, new ApiError('bad_request', 'CONNECT is not supported: this is not a proxy'));
}

/**
 * Writes a whole response straight to the socket (no request object exists) and closes the
 * connection; `rateLimitPerMinute` when the request was for /api.
 */
function writeRawError(socket: Socket, answer: ApiError, rateLimitPerMinute?: number): void {
  answered.add(socket);
  // A response already under way on this connection (the previous request's) cannot be followed
  // by one of ours without corrupting it.
  if (!socket.writable || requestInFlight(socket)?.headersSent) {
    socket.destroy();
    return;
  }
  const body = JSON.stringify(answer.toEnvelope());
  const headers = [
    `HTTP/1.1 ${answer.status} ${STATUS_TEXT[answer.status] ?? 'Bad Request'}`,
    `Date: ${new Date().toUTCString()}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    `X-Request-Id: ${randomUUID()}`,
  ];
  if (rateLimitPerMinute !== undefined) {
    headers.push(`X-RateLimit-Limit: ${rateLimitPerMinute}`, `X-RateLimit-Window: ${WINDOW_HEADER_VALUE}`);
  }
  // end(), not destroy(): the answer leaves before the FIN, and the client may keep sending what
  // remains of its request (read and ignored meanwhile) without the close becoming a reset.
  socket.resume();
  socket.end(`${headers.join('\r\n')}\r\n\r\n${body}`);
  setTimeout(() => socket.destroy(), LINGER_MS).unref();
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  413: 'Payload Too Large',
  431: 'Request Header Fields Too Large',
};

/**
 * Whether the bytes the parser stopped at begin with a request line for a path under /api/ — when
 * the URL is known, the answer announces the rate limit like every other /api response.
 */
function isApiRequest(rawPacket: unknown): boolean {
  // Node sets a Buffer (Fastify's types say otherwise).
  if (!Buffer.isBuffer(rawPacket)) return false;
  const start = rawPacket.subarray(0, 64).toString('latin1');
  return /^[!-~]+ \/api\//.test(start);
}

function isApiPath(url: string | undefined): boolean {
  return url?.startsWith('/api/') ?? false;
}
