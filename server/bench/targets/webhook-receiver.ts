/**
 * A fast webhook receiver for the webhooks bench: a plain node:http server on loopback answering
 * every POST with 200 and an empty body, counting what it received. It runs in a process of its
 * own, so the CPU a receiver spends is not charged to the server under test (and can be read from
 * /proc on its own). Prints `{ url, controlUrl, pid }` when ready.
 *
 * - `POST /hook`: a delivery; counted by its `webhook-id` (distinct ids and all requests, so a
 *   delivery sent twice shows), with the time of the first and the last arrival.
 * - `GET /count`: `{ requests, distinct, unsigned, firstAt, lastAt }` (times in ms since the epoch).
 * - `POST /reset`: zeroes the counts.
 */
import http from 'node:http';

let ids = new Set<string>();
let requests = 0;
let unsigned = 0;
let firstAt: number | null = null;
let lastAt: number | null = null;

const server = http.createServer((req, res) => {
  if (req.method === 'POST' && req.url === '/hook') {
    // The body is read (a receiver must take it) but not parsed: the bench measures the sender.
    req.on('data', () => undefined);
    req.on('end', () => {
      const now = Date.now();
      requests += 1;
      firstAt ??= now;
      lastAt = now;
      const id = req.headers['webhook-id'];
      if (typeof id === 'string' && typeof req.headers['webhook-signature'] === 'string') ids.add(id);
      else unsigned += 1;
      res.writeHead(200, { 'content-length': '0' });
      res.end();
    });
    return;
  }
  if (req.method === 'GET' && req.url === '/count') {
    const body = JSON.stringify({ requests, distinct: ids.size, unsigned, firstAt, lastAt });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) });
    res.end(body);
    return;
  }
  if (req.method === 'POST' && req.url === '/reset') {
    ids = new Set();
    requests = 0;
    unsigned = 0;
    firstAt = null;
    lastAt = null;
    res.writeHead(204);
    res.end();
    return;
  }
  res.writeHead(404, { 'content-length': '0' });
  res.end();
});
// Longer than the sender's idle-socket timeout (WEBHOOK_TIMEOUT_MS, 10 s by default), so a kept
// connection is always closed by the sender first and never reset under a new delivery.
server.keepAliveTimeout = 120_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  process.stdout.write(
    `${JSON.stringify({ url: `http://127.0.0.1:${port}/hook`, controlUrl: `http://127.0.0.1:${port}`, pid: process.pid })}\n`,
  );
});
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
