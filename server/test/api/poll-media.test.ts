import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Media, Poll } from '@pollkit/contracts';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_INLINE_INGESTIONS } from '../../src/modules/polls/poll-media.js';
import type { ContentInput, SlideInput } from '../support/decks.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { errorDetails, expectOk, expectStatus, slideOf, testClient } from '../support/test-client.js';

/**
 * Inline media on slides and options (spec Media rule 3): resolved when the poll is saved, as
 * `POST /media` would. Images come from a small HTTP server on loopback serving real PNGs.
 */

interface ImageHost {
  url: string;
  /** Requests seen per path. */
  hits: Map<string, number>;
  close(): Promise<void>;
}

/** Serves `/<name>-<w>x<h>.png` as a real PNG of that size; counts every request. */
async function startImageHost(): Promise<ImageHost> {
  const hits = new Map<string, number>();
  const server: Server = createServer(async (req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const size = /-(\d+)x(\d+)\.png$/.exec(path);
    if (!size) {
      res.writeHead(404).end();
      return;
    }
    const png = await sharp({
      create: { width: Number(size[1]), height: Number(size[2]), channels: 3, background: { r: 200, g: 80, b: 20 } },
    })
      .png()
      .toBuffer();
    res.writeHead(200, { 'content-type': 'image/png', 'content-length': png.length }).end(png);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

let t: TestServer;
const api = testClient(() => t.api);
let host: ImageHost;
let apiKey: string;
/** Stored files go here (on PostgreSQL the server would otherwise use DATA_DIR/media). */
let dataDir: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'pollkit-poll-media-'));
  [t, host] = await Promise.all([
    startTestServer({ MEDIA_ALLOW_LOOPBACK: 'true', DATA_DIR: dataDir }),
    startImageHost(),
  ]);
  ({ apiKey } = await t.workspace('pro'));
});
afterAll(async () => {
  await Promise.all([t?.close(), host?.close()]);
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

const YOUTUBE = 'https://www.youtube.com/watch?v=dQw4w9WgXcQ';

/** One multiple-choice slide (with `slideMedia`) whose two options carry `optionMedia[i]`. */
function deck(
  slideMedia: Media | undefined,
  optionMedia: (Media | undefined)[] = [],
  extraSlides: SlideInput[] = [],
): ContentInput {
  return {
    questions: [
      ...extraSlides,
      {
        id: 'pick',
        kind: 'multiple_choice',
        text: 'Which one?',
        ...(slideMedia ? { media: slideMedia } : {}),
        options: [0, 1].map((i) => ({
          id: `o${i}`,
          label: `Option ${i}`,
          ...(optionMedia[i] ? { media: optionMedia[i] } : {}),
        })),
      },
    ],
  };
}

const plainSlide = (id: string): SlideInput => ({ id, kind: 'open_ended', text: 'Say something' });

/** The multiple-choice slide of `deck()` in a poll as the API answers it. */
const pick = (poll: Poll) => slideOf(poll.content.questions, 'pick', 'multiple_choice');

const createPoll = (content: ContentInput, key = apiKey, apiUrl = t.api) =>
  testClient(apiUrl).request('POST /polls', { apiKey: key, body: { title: 'Media poll', content } });

async function pollCount(key = apiKey, apiUrl = t.api): Promise<number> {
  const res = await testClient(apiUrl).request('GET /polls', { query: { limit: 100 }, apiKey: key });
  expectStatus(res, 200);
  return res.body.data.length;
}

async function expectStoredWebp(media: Media | undefined, w: number, h: number) {
  expect(media).toMatchObject({ width: w, height: h });
  const res = await fetch(media!.storedUrl!);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('image/webp');
  const meta = await sharp(Buffer.from(await res.arrayBuffer())).metadata();
  expect(meta).toMatchObject({ format: 'webp', width: w, height: h });
}

describe('inline media on slides and options', () => {
  it('ingests images when a poll is created: storedUrl, width and height on the response and on GET', async () => {
    const slideUrl = `${host.url}/slide-64x48.png`;
    const optionUrl = `${host.url}/option-30x20.png`;
    const res = await createPoll(deck({ type: 'image', url: slideUrl }, [{ type: 'image', url: optionUrl }]));
    expectStatus(res, 201);

    const slide = pick(res.body);
    expect(slide.media).toMatchObject({ type: 'image', url: slideUrl, width: 64, height: 48 });
    expect(slide.options[0]!.media).toMatchObject({ type: 'image', url: optionUrl, width: 30, height: 20 });
    expect(slide.options[1]!.media).toBeUndefined();
    await expectStoredWebp(slide.media, 64, 48);
    await expectStoredWebp(slide.options[0]!.media, 30, 20);

    const got = await api.request('GET /polls/{id}', { params: { id: res.body.id }, apiKey });
    expectStatus(got, 200);
    expect(got.body.content).toEqual(res.body.content);
  });

  it('keeps YouTube media as youtube without fetching anything', async () => {
    const before = [...host.hits.values()].reduce((a, b) => a + b, 0);
    const res = await createPoll(deck({ type: 'youtube', url: YOUTUBE }));
    expectStatus(res, 201);
    const media = pick(res.body).media!;
    expect(media.type).toBe('youtube');
    expect(media.url).toBe(YOUTUBE);
    expect(media.storedUrl).toBeUndefined();
    expect([...host.hits.values()].reduce((a, b) => a + b, 0)).toBe(before);
  });

  it('downloads an image URL used on several options once', async () => {
    const url = `${host.url}/shared-40x40.png`;
    const res = await createPoll(
      deck({ type: 'image', url }, [
        { type: 'image', url },
        { type: 'image', url },
      ]),
    );
    expectStatus(res, 201);
    expect(host.hits.get('/shared-40x40.png')).toBe(1);
    const slide = pick(res.body);
    expect(slide.options[0]!.media).toEqual(slide.media);
    expect(slide.options[1]!.media).toEqual(slide.media);
    expect(slide.media).toMatchObject({ width: 40, height: 40 });
  });

  it('refuses a private address with a 4xx naming the option, and creates nothing', async () => {
    const before = await pollCount();
    const res = await createPoll(
      deck(undefined, [undefined, { type: 'image', url: 'http://10.0.0.1/x.png' }], [plainSlide('a'), plainSlide('b')]),
    );
    expectStatus(res, 422);
    expect(res.body.error.code).toBe('media_not_allowed');
    expect(errorDetails(res).path).toBe('content.questions.2.options.1.media.url');
    expect(res.body.error.message).toContain('content.questions.2.options.1.media.url');
    expect(await pollCount()).toBe(before);
  });

  it('resolves media on PATCH content, and a refused URL leaves the poll unchanged', async () => {
    const created = await createPoll(deck(undefined));
    expectStatus(created, 201);
    const id = created.body.id;

    const url = `${host.url}/patched-16x32.png`;
    const patched = await api.request('PATCH /polls/{id}', {
      params: { id },
      apiKey,
      body: { content: deck(undefined, [{ type: 'image', url }]) },
    });
    expectStatus(patched, 200);
    await expectStoredWebp(pick(patched.body).options[0]!.media, 16, 32);

    const refused = await api.request('PATCH /polls/{id}', {
      params: { id },
      apiKey,
      body: { title: 'Renamed', content: deck({ type: 'image', url: 'http://169.254.169.254/latest/meta-data' }) },
    });
    expectStatus(refused, 422);
    expect(refused.body.error.code).toBe('media_not_allowed');
    expect(errorDetails(refused).path).toBe('content.questions.0.media.url');

    const got = expectOk(await api.request('GET /polls/{id}', { params: { id }, apiKey }));
    expect(got.title).toBe('Media poll');
    expect(got.content).toEqual(patched.body.content);
  });

  it('does not re-ingest media this server already stored when a fetched poll is saved again', async () => {
    const url = `${host.url}/resave-24x24.png`;
    const created = await createPoll(deck({ type: 'image', url }));
    expectStatus(created, 201);
    expect(host.hits.get('/resave-24x24.png')).toBe(1);

    const got = expectOk(await api.request('GET /polls/{id}', { params: { id: created.body.id }, apiKey }));
    const resaved = await api.request('PATCH /polls/{id}', {
      params: { id: created.body.id },
      apiKey,
      body: { content: got.content },
    });
    expectStatus(resaved, 200);
    expect(resaved.body.content).toEqual(got.content);
    expect(host.hits.get('/resave-24x24.png')).toBe(1);

    // Dimensions of a kept file come from the file, not from the client.
    const media = pick(got).media;
    const lied = await api.request('PATCH /polls/{id}', {
      params: { id: created.body.id },
      apiKey,
      body: { content: deck({ ...media!, width: 999, height: 1 }) },
    });
    expectStatus(lied, 200);
    expect(pick(lied.body).media).toEqual(media);
    expect(host.hits.get('/resave-24x24.png')).toBe(1);
  });

  it('keeps media ingested ahead with POST /media without fetching again', async () => {
    const url = `${host.url}/ahead-20x14.png`;
    const ingested = await api.request('POST /media', { apiKey, body: { url } });
    expectStatus(ingested, 201);
    expect(host.hits.get('/ahead-20x14.png')).toBe(1);
    const res = await createPoll(deck(ingested.body.data, [ingested.body.data]));
    expectStatus(res, 201);
    expect(pick(res.body).media).toEqual(ingested.body.data);
    expect(pick(res.body).options[0]!.media).toEqual(ingested.body.data);
    expect(host.hits.get('/ahead-20x14.png')).toBe(1);
  });

  it('ingests the url again when a storedUrl on this server names no stored file', async () => {
    const url = `${host.url}/missing-10x12.png`;
    const missing = `${t.url}/media/files/${'0'.repeat(64)}.webp`;
    const res = await createPoll(deck({ type: 'image', url, storedUrl: missing, width: 5, height: 5 }));
    expectStatus(res, 201);
    const media = pick(res.body).media!;
    expect(media.storedUrl).not.toBe(missing);
    expect(host.hits.get('/missing-10x12.png')).toBe(1);
    await expectStoredWebp(media, 10, 12);
  });

  it('ignores a client-supplied storedUrl that is not this server’s file, and ingests the url', async () => {
    const url = `${host.url}/forged-12x10.png`;
    const res = await createPoll(
      deck({ type: 'image', url, storedUrl: 'https://cdn.example.com/x.webp', width: 999, height: 999 }),
    );
    expectStatus(res, 201);
    const media = pick(res.body).media!;
    expect(media.storedUrl).not.toBe('https://cdn.example.com/x.webp');
    await expectStoredWebp(media, 12, 10);
  });
});

describe('inline media on a server without MEDIA_ALLOW_LOOPBACK', () => {
  let strict: TestServer;
  let strictKey: string;
  beforeAll(async () => {
    strict = await startTestServer({ DATA_DIR: dataDir });
    ({ apiKey: strictKey } = await strict.workspace('pro'));
  });
  afterAll(() => strict?.close());

  it('refuses a loopback image URL and creates nothing', async () => {
    const before = await pollCount(strictKey, strict.api);
    const res = await createPoll(deck({ type: 'image', url: `${host.url}/strict-8x8.png` }), strictKey, strict.api);
    expectStatus(res, 422);
    expect(res.body.error.code).toBe('media_not_allowed');
    expect(errorDetails(res).path).toBe('content.questions.0.media.url');
    expect(host.hits.get('/strict-8x8.png')).toBeUndefined();
    expect(await pollCount(strictKey, strict.api)).toBe(before);
  });
});

describe('inline media limits', () => {
  it('refuses a save that would ingest more new images than MAX_INLINE_INGESTIONS, fetching nothing', async () => {
    const t = await startTestServer({ MEDIA_ALLOW_LOOPBACK: 'true' });
    try {
      const { apiKey } = await t.workspace('pro');
      const before = await t.server.deps.db.selectFrom('polls').select('id').execute();
      const images = Array.from({ length: MAX_INLINE_INGESTIONS + 1 }, (_, i) => ({
        id: `o${i}`,
        label: `Option ${i}`,
        // A port nothing listens on: the refusal must come before any fetch is attempted.
        media: { type: 'image' as const, url: `http://127.0.0.1:9/image-${i}.png` },
      }));
      const res = await testClient(t.api).request('POST /polls', {
        apiKey,
        body: {
          title: 'Too many',
          content: { questions: [{ id: 'q', kind: 'ranking', text: 'Rank', options: images }] },
        },
      });
      expectStatus(res, 422);
      expect(res.body.error.code).toBe('validation_failed');
      expect(errorDetails(res).formErrors[0]).toContain(`at most ${MAX_INLINE_INGESTIONS}`);
      expect(await t.server.deps.db.selectFrom('polls').select('id').execute()).toEqual(before);
    } finally {
      await t.close();
    }
  });
});
