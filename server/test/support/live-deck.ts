import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { expect } from 'vitest';
import { call } from './http.js';
import type { ContentInput } from './polls.js';
import type { TestServer } from './server.js';

/**
 * A live session over a deck with a slide of every kind, as the browser tests drive it: one image
 * (served by a stand-in image host on loopback and re-hosted by the server as WebP, as in
 * production) on the content slide. The server must run with MEDIA_ALLOW_LOOPBACK=true.
 */
export function everyKindDeck(imageUrl: string): ContentInput {
  return {
    questions: [
      {
        id: 'welcome',
        kind: 'content',
        text: 'Welcome to the quarterly all-hands',
        media: { type: 'image', url: imageUrl },
      },
      {
        id: 'lunch',
        kind: 'multiple_choice',
        text: 'Where shall we eat after the meeting?',
        type: 'single',
        options: [
          { id: 'pizza', label: 'Pizza' },
          { id: 'sushi', label: 'Sushi' },
          { id: 'tacos', label: 'Tacos' },
        ],
      },
      {
        id: 'toppings',
        kind: 'multiple_choice',
        text: 'Which toppings?',
        type: 'multiple',
        options: [
          { id: 'olives', label: 'Olives' },
          { id: 'basil', label: 'Basil' },
          { id: 'chili', label: 'Chili' },
        ],
      },
      {
        id: 'capital',
        kind: 'quiz',
        text: 'What is the capital of Australia?',
        options: [
          { id: 'sydney', label: 'Sydney' },
          { id: 'canberra', label: 'Canberra' },
          { id: 'melbourne', label: 'Melbourne' },
        ],
        correctOptionIds: ['canberra'],
        timeLimitSec: 60,
        points: 1000,
        speedBonus: false,
      },
      {
        id: 'mood',
        kind: 'scale',
        text: 'How are things going?',
        min: 1,
        max: 5,
        minLabel: 'Badly',
        maxLabel: 'Great',
        statements: [
          { id: 'work', text: 'At work' },
          { id: 'team', text: 'In the team' },
        ],
      },
      {
        id: 'priorities',
        kind: 'ranking',
        text: 'Rank next quarter’s priorities',
        options: [
          { id: 'speed', label: 'Speed' },
          { id: 'quality', label: 'Quality' },
          { id: 'price', label: 'Price' },
        ],
      },
      { id: 'word', kind: 'open_ended', text: 'One word for this quarter?', maxLength: 40, render: 'cloud' },
      { id: 'ask', kind: 'qa', text: 'Questions for the leadership team?', moderated: true, allowUpvotes: true },
    ],
  };
}

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
  const created = await call('POST', `${t.api}/polls`, { apiKey, body: { title: 'Quarterly all-hands', content } });
  if (created.status !== 201) throw new Error(`poll: ${created.status} ${created.text}`);
  const published = await call('PATCH', `${t.api}/polls/${created.body.id}`, { apiKey, body: { publish: true } });
  if (published.status !== 200) throw new Error(`publish: ${published.status} ${published.text}`);
  const session = await call('POST', `${t.api}/sessions`, { apiKey, body: { pollId: created.body.id } });
  if (session.status !== 201) throw new Error(`session: ${session.status} ${session.text}`);
  const { id, pin, hostToken, joinUrl } = session.body;
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

/** A session as `POST /sessions` answers it: the fields the tests use, and the rest. */
export interface CreatedSession extends Record<string, any> {
  id: string;
  pin: string;
  hostToken: string;
}

/** A session of the poll, created with `apiKey` (whose scopes its host token carries), asserting the 201. */
export async function createdSession(server: { api: string }, apiKey: string, pollId: string): Promise<CreatedSession> {
  const res = await call('POST', `${server.api}/sessions`, { apiKey, body: { pollId } });
  expect(res.status, res.text).toBe(201);
  return res.body;
}
