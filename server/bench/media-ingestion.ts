/**
 * Scenario: `POST /api/v1/media` ingesting a 12-megapixel JPEG (download, decode, re-encode to WebP,
 * store) from an image host on loopback in this process. Measures one ingestion at a time (median of
 * several) and throughput with several requests in flight.
 *
 * Every request names a distinct URL and gets distinct bytes (a JPEG comment segment carrying a
 * counter, which decoders ignore), so neither URL nor content de-duplication skips any work.
 *
 * `POST /media` has its own limit of 30 requests a minute per credential, fixed in the contract
 * (not configurable), on top of the workspace's raised general limit. The bench therefore creates
 * API keys through `POST /keys` as it goes and uses each for at most 30 ingestions.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MEDIA_INGEST_REQUESTS_PER_MINUTE } from '@pollkit/contracts';
import sharp from 'sharp';
import { startTarget } from './support.js';

const WIDTH = 4000;
const HEIGHT = 3000;

/**
 * A 4000×3000 JPEG that compresses like a photo rather than like a flat colour: smooth gradients
 * with a little per-pixel noise, quality 85 (a few MB, as cameras and phones produce).
 */
export async function twelveMegapixelJpeg(): Promise<Buffer> {
  const raw = Buffer.alloc(WIDTH * HEIGHT * 3);
  let seed = 42;
  const noise = () => {
    seed = (seed * 1_103_515_245 + 12_345) & 0x7fffffff;
    return (seed % 61) - 30;
  };
  const clamp = (v: number) => Math.max(0, Math.min(255, v));
  for (let y = 0; y < HEIGHT; y++) {
    for (let x = 0; x < WIDTH; x++) {
      const i = (y * WIDTH + x) * 3;
      raw[i] = clamp((x / WIDTH) * 255 + 40 * Math.sin(y / 90) + noise());
      raw[i + 1] = clamp((y / HEIGHT) * 255 + 40 * Math.cos(x / 130) + noise());
      raw[i + 2] = clamp(128 + 60 * Math.sin((x + y) / 200) + noise());
    }
  }
  return sharp(raw, { raw: { width: WIDTH, height: HEIGHT, channels: 3 } })
    .jpeg({ quality: 85 })
    .toBuffer();
}

/** The JPEG with a COM segment right after SOI carrying `tag`: same image, different bytes. */
function tagged(jpeg: Buffer, tag: string): Buffer {
  const comment = Buffer.from(tag);
  const header = Buffer.alloc(4);
  header.writeUInt16BE(0xfffe, 0);
  header.writeUInt16BE(comment.length + 2, 2);
  return Buffer.concat([jpeg.subarray(0, 2), header, comment, jpeg.subarray(2)]);
}

async function startImageHost(jpeg: Buffer) {
  let served = 0;
  const server = createServer((req, res) => {
    served++;
    const body = tagged(jpeg, req.url ?? '/');
    res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': body.length }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    served: () => served,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * Hands out API keys, each at most `uses` times (so no key reaches the route's own per-minute
 * limit), creating the next one with `POST /keys` when the current one is used up. Key creation is
 * outside the timed part of an ingestion.
 */
function keyPool(baseUrl: string, adminKey: string, uses: number): () => Promise<string> {
  let current: Promise<{ secret: string; left: number }> | undefined;
  let created = 0;
  const create = async () => {
    const res = await fetch(`${baseUrl}/api/v1/keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: `bench media ${++created}` }),
    });
    const text = await res.text();
    if (res.status !== 201) throw new Error(`POST /keys answered ${res.status}: ${text}`);
    return { secret: (JSON.parse(text) as { secret: string }).secret, left: uses };
  };
  return async () => {
    for (;;) {
      current ??= create();
      const pending = current;
      const key = await pending;
      if (key.left > 0) {
        key.left--;
        return key.secret;
      }
      // Used up: the first caller to notice starts the next key; the others then wait for that one.
      if (current === pending) current = create();
    }
  };
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;

export interface ConcurrentResult {
  concurrency: number;
  ingestions: number;
  perSec: number;
  p50Ms: number;
  p99Ms: number;
  failures: number;
}

export async function mediaIngestionScenario(options: { durationSec: number; singles: number; concurrency: number[] }) {
  const started = performance.now();
  const jpeg = await twelveMegapixelJpeg();
  const generateMs = performance.now() - started;
  const host = await startImageHost(jpeg);
  const dataDir = await mkdtemp(join(tmpdir(), 'pollkit-bench-media-'));
  const pollkit = await startTarget(fileURLToPath(new URL('./targets/pollkit.ts', import.meta.url)), {
    MEDIA_ALLOW_LOOPBACK: 'true',
    DATA_DIR: dataDir,
  });
  const { url, apiKey, database } = pollkit.info as { url: string; apiKey: string; database: string };
  const nextKey = keyPool(url, apiKey, MEDIA_INGEST_REQUESTS_PER_MINUTE);
  let counter = 0;
  const ingest = async (): Promise<number> => {
    const source = `${host.url}/photo-${++counter}.jpg`;
    const key = await nextKey();
    const t0 = performance.now();
    const res = await fetch(`${url}/api/v1/media`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: source }),
    });
    const text = await res.text();
    const ms = performance.now() - t0;
    if (res.status !== 201) throw new Error(`POST /media answered ${res.status}: ${text}`);
    const { data } = JSON.parse(text) as { data: { type: string; width?: number; height?: number } };
    if (data.type !== 'image' || data.width !== WIDTH || data.height !== HEIGHT) {
      throw new Error(`unexpected media: ${text}`);
    }
    return ms;
  };

  try {
    // Warm-up: JIT, sharp's thread pool, the storage directory.
    await ingest();
    await ingest();

    const singles: number[] = [];
    for (let i = 0; i < options.singles; i++) singles.push(await ingest());
    const singleSorted = [...singles].sort((a, b) => a - b);

    const concurrent: ConcurrentResult[] = [];
    for (const concurrency of options.concurrency) {
      const latencies: number[] = [];
      let failures = 0;
      const deadline = performance.now() + options.durationSec * 1000;
      const t0 = performance.now();
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (performance.now() < deadline) {
            try {
              latencies.push(await ingest());
            } catch (error) {
              failures++;
              if (failures === 1) process.stderr.write(`${(error as Error).message}\n`);
            }
          }
        }),
      );
      const elapsedSec = (performance.now() - t0) / 1000;
      const sorted = latencies.sort((a, b) => a - b);
      concurrent.push({
        concurrency,
        ingestions: sorted.length,
        perSec: sorted.length / elapsedSec,
        p50Ms: percentile(sorted, 50),
        p99Ms: percentile(sorted, 99),
        failures,
      });
    }

    return {
      database,
      sourceBytes: jpeg.length,
      generateMs,
      single: { medianMs: percentile(singleSorted, 50), allMs: singles },
      concurrent,
      downloads: host.served(),
    };
  } finally {
    await pollkit.stop();
    await host.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}
