import http from 'node:http';

/**
 * Requests sent from a chosen local address: every 127.x.y.z is this machine, so a test can play
 * several clients, each with an address of its own, and no other test's counts (on a shared Redis)
 * touch it. fetch cannot choose its local address; node:http can.
 */

/** A loopback address no other test is likely to use. */
export function randomLoopback(): string {
  const byte = () => 1 + Math.floor(Math.random() * 254);
  return `127.${byte()}.${byte()}.${byte()}`;
}

/**
 * A JSON request from `localAddress`; answers the status and the parsed body. The body is `any`: the
 * tests that play several addresses (live-abuse.*, live-sessions.*, being split) read it untyped; once
 * they move to typed reads it becomes `unknown` with a type argument.
 */
export function requestFrom(
  localAddress: string,
  port: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path,
        method,
        localAddress,
        agent: false,
        headers: {
          ...headers,
          ...(payload === undefined
            ? {}
            : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** A JSON POST from `localAddress`. */
export function postFrom(localAddress: string, port: string, path: string, body: unknown) {
  return requestFrom(localAddress, port, 'POST', path, body);
}

/** Opens an event stream from `localAddress`: answers its status once the head arrives, then hangs up. */
export function streamStatusFrom(
  localAddress: string,
  port: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.get(
      {
        host: '127.0.0.1',
        port,
        path,
        localAddress,
        agent: false,
        headers: { accept: 'text/event-stream', ...headers },
      },
      (res) => {
        resolve(res.statusCode ?? 0);
        req.destroy();
      },
    );
    req.on('error', reject);
  });
}
