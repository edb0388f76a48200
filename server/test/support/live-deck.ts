import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import type { ContentInput } from './decks.js';
import type { TestServer } from './server.js';
import { type BodyOf, expectStatus, type OutputOf, testClient } from './test-client.js';

// everyKindDeck moved to decks.ts; re-exported for the browser tests being split (live-pages.*, pages-i18n.*).
export { everyKindDeck } from './decks.js';

/** A stand-in image host on loopback serving one PNG (made by sharp): what a poll's media URL points at. */
export async function startImageHost(): Promise<{ url: string; close(): Promise<void> }> {
  const png = await sharp({
    create: { width: 640, height: 240, channels: 3, background: { r: 55, g: 48, b: 163 } },
  })
    .composite([
      {
        input: Buffer.from(
          '<svg width="640" height="240"><circle cx="120" cy="120" r="80" fill="#fbbf24"/>' +
            '<rect x="260" y="70" width="300" height="30" rx="15" fill="#e0e7ff"/>' +
            '<rect x="260" y="130" width="220" height="30" rx="15" fill="#c7d2fe"/></svg>',
        ),
      },
    ])
    .png()
    .toBuffer();
  const server: Server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'image/png', 'content-length': png.length });
    response.end(png);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/all-hands.png`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

export interface LiveSessionFixture {
  apiKey: string;
  pollId: string;
  sessionId: string;
  pin: string;
  hostToken: string;
  /** The presenter screen's address, with the host token in its fragment. */
  presenterUrl: string;
  joinUrl: string;
}

/** A published poll over `content` and a pending session of it. */
export async function createLiveSession(t: TestServer, content: ContentInput): Promise<LiveSessionFixture> {
  const { apiKey } = await t.workspace('pro');
  const api = testClient(t.api, { apiKey });
  const created = await api.request('POST /polls', { body: { title: 'Quarterly all-hands', content } });
  if (created.status !== 201) throw new Error(`poll: ${created.status} ${created.text}`);
  const published = await api.request('PATCH /polls/{id}', {
    params: { id: created.body.id },
    body: { publish: true },
  });
  if (published.status !== 200) throw new Error(`publish: ${published.status} ${published.text}`);
  const session = await api.request('POST /sessions', { body: { pollId: created.body.id } });
  if (session.status !== 201) throw new Error(`session: ${session.status} ${session.text}`);
  const { id, hostToken, joinUrl } = session.body;
  // A presenter-paced session has a PIN.
  const pin = session.body.pin as string;
  return {
    apiKey,
    pollId: created.body.id,
    sessionId: id,
    pin,
    hostToken,
    presenterUrl: `${t.url}/present/${id}#hostToken=${hostToken}`,
    joinUrl,
  };
}

/** What `POST /sessions/{id}/control` can do (`start`, `next`, `goto`, …). */
export type ControlAction = BodyOf<'POST /sessions/{id}/control'>['action'];

/** A presenter-paced session as `POST /sessions` answers it, which always has a PIN. */
export type CreatedSession = OutputOf<'POST /sessions'> & { pin: string };

/**
 * A session of the poll, created with `apiKey` (whose scopes its host token carries) and the rest of
 * the body (`options`), asserting the 201.
 */
export async function createdSession(
  server: { api: string },
  apiKey: string,
  pollId: string,
  options: Omit<BodyOf<'POST /sessions'>, 'pollId'> = {},
): Promise<CreatedSession> {
  const res = await testClient(server.api).request('POST /sessions', { apiKey, body: { pollId, ...options } });
  expectStatus(res, 201);
  return res.body as CreatedSession;
}
