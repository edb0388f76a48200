import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type Branching, DECK_IMPORTS_PER_MINUTE, DECK_SOURCE_MAX_BYTES } from '@pollkit/contracts';
import { unzipSync } from 'fflate';
import sharp from 'sharp';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BankReadTimedOut, bankReaders } from '../../src/modules/decks/bank-readers.js';
import { sampleContent } from '../support/decks.js';
import type { LooseJson } from '../support/http.js';
import { UNLIMITED } from '../support/limits.js';
import { startTestServer, type TestServer } from '../support/server.js';
import {
  type ApiResponse,
  errorDetails,
  expectOk,
  expectStatus,
  type OutputOf,
  testClient,
} from '../support/test-client.js';

/**
 * POST /polls/import and GET /polls/{id}/deck over real HTTP: question banks written by others
 * (fixtures/decks/blind, development files only), round trips through the Pollkit deck file and
 * GIFT, the limits, and what a narrower credential or another workspace can do.
 */

const BLIND = join(import.meta.dirname, '../fixtures/decks/blind');

let t: TestServer;
const api = testClient(() => t.api);
let apiKey: string;

beforeAll(async () => {
  t = await startTestServer({ ...UNLIMITED, MEDIA_ALLOW_LOOPBACK: 'true' });
});
// A workspace per test: imports have a per-minute limit of their own, which one test measures.
beforeEach(async () => {
  ({ apiKey } = await t.workspace('pro'));
});
afterAll(() => t?.close());

type Json = LooseJson;

/** Unchecked: some tests send a body the route refuses. */
const importDeck = (body: Json, key = apiKey, headers: Record<string, string> = {}) =>
  api.unchecked('POST /polls/import', { apiKey: key, body, headers });

/** What an import answers: the poll it created (201), or, for a dry run, what it would create (200). */
type Imported = Extract<OutputOf<'POST /polls/import'>, { poll: unknown }>;
type Previewed = Exclude<OutputOf<'POST /polls/import'>, Imported>;
const importedBody = (res: ApiResponse<'POST /polls/import'>) => expectOk(res, 201) as Imported;
const previewBody = (res: ApiResponse<'POST /polls/import'>) => expectOk(res, 200) as Previewed;

async function download(pollId: string, format?: string, key = apiKey) {
  const response = await fetch(`${t.api}/polls/${pollId}/deck${format ? `?format=${format}` : ''}`, {
    headers: { authorization: `Bearer ${key}` },
  });
  return { status: response.status, headers: response.headers, bytes: new Uint8Array(await response.arrayBuffer()) };
}
const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

/** A deck with one slide of every kind, a multiple-answer choice, skip logic and settings of its own. */
async function sevenKindPoll(): Promise<Json> {
  const content = sampleContent({
    id: 'toppings',
    kind: 'multiple_choice',
    text: 'Which toppings? {curly} ~tilde~ = sign # hash: colon \\ backslash',
    type: 'multiple',
    options: [
      { id: 'olives', label: 'Olives' },
      { id: 'basil', label: 'Basil & "herbs"' },
    ],
  });
  const created = await api.request('POST /polls', {
    apiKey,
    body: { title: 'Seven kinds', content, language: 'de', textFilter: 'block', maxRespondents: 50 },
  });
  expectStatus(created, 201);
  const branching: Branching = {
    conditions: [
      {
        id: 'r1',
        if: { slideId: 'lunch', operator: 'equals', value: 'sushi' },
        // biome-ignore lint/suspicious/noThenProperty: a rule's `then` is the API's own field name.
        then: { action: 'skip_to', slideId: 'words' },
      },
    ],
  };
  const patched = await api.request('PATCH /polls/{id}', {
    params: { id: created.body.id },
    apiKey,
    body: { branching },
  });
  expectStatus(patched, 200);
  return patched.body;
}

describe('the Pollkit deck file', () => {
  it('round-trips a seven-kind deck exactly: slides, skip logic and settings', async () => {
    const poll = await sevenKindPoll();
    const file = await download(poll.id);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(file.headers.get('content-disposition')).toBe(`attachment; filename="poll-${poll.id}-deck.json"`);
    expect(file.headers.get('pollkit-deck-skipped')).toBeNull();
    const deck = JSON.parse(text(file.bytes));
    expect(deck).toMatchObject({ format: 'pollkit.deck', version: 1, title: 'Seven kinds', language: 'de' });

    const imported = await importDeck({ format: 'pollkit', source: text(file.bytes) });
    expectStatus(imported, 201);
    const copy = importedBody(imported).poll;
    expect(copy.id).not.toBe(poll.id);
    expect(copy.status).toBe('draft');
    expect(copy.content).toEqual(poll.content);
    expect(copy.branching).toEqual(poll.branching);
    expect({
      title: copy.title,
      language: copy.language,
      textFilter: copy.textFilter,
      max: copy.maxRespondents,
    }).toEqual({ title: 'Seven kinds', language: 'de', textFilter: 'block', max: 50 });
    expect(expectOk(imported).report).toEqual({ imported: 8, skipped: [], changed: [] });
    // And the copy's own file is the original's, but for nothing.
    expect(JSON.parse(text((await download(copy.id)).bytes))).toEqual(deck);
  });

  it('refuses a deck file with its problems named by path, and a later version by number', async () => {
    const bad = await importDeck({
      format: 'pollkit',
      source: JSON.stringify({
        format: 'pollkit.deck',
        version: 1,
        title: 'Bad',
        content: {
          questions: [
            {
              id: 'q',
              kind: 'quiz',
              text: 'Q',
              options: [
                { id: 'a', label: 'A' },
                { id: 'b', label: 'B' },
              ],
              correctOptionIds: ['zz'],
            },
          ],
        },
      }),
    });
    expectStatus(bad, 422);
    expect(bad.body.error.code).toBe('validation_failed');
    expect(errorDetails(bad).fieldErrors.source!.join(' ')).toContain(
      "content.questions.0.correctOptionIds: 'zz' is not an option",
    );
    const later = await importDeck({
      format: 'pollkit',
      source: JSON.stringify({ format: 'pollkit.deck', version: 2 }),
    });
    expectStatus(later, 422);
    expect(later.body.error.message).toContain('version 2');
    const notJson = await importDeck({ format: 'pollkit', source: '{"format": "pollkit.deck",' });
    expectStatus(notJson, 422);
    expect(notJson.body.error.message).toMatch(/^The file is not JSON/);
  });
});

describe('GIFT', () => {
  it('round-trips choice, quiz, open-ended and content slides, and names what it cannot hold', async () => {
    const poll = await sevenKindPoll();
    const file = await download(poll.id, 'gift');
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(file.headers.get('content-disposition')).toBe(`attachment; filename="poll-${poll.id}-gift.txt"`);
    expect(file.headers.get('pollkit-deck-skipped')).toBe('3 mood scale, 4 rank ranking, 6 ask qa');

    const imported = await importDeck({ format: 'gift', source: text(file.bytes), title: 'From GIFT' });
    expectStatus(imported, 201);
    const kept = poll.content.questions.filter((slide: Json) =>
      ['multiple_choice', 'quiz', 'open_ended', 'content'].includes(slide.kind),
    );
    // Walked beside the exported deck, whatever each slide's kind.
    const back: Json[] = importedBody(imported).poll.content.questions;
    expect(back.map((slide: Json) => [slide.id, slide.kind, slide.text])).toEqual(
      kept.map((slide: Json) => [slide.id, slide.kind, slide.text]),
    );
    for (const [index, slide] of kept.entries()) {
      if (!('options' in slide)) continue;
      expect(back[index]!.options.map((o: Json) => o.label)).toEqual(slide.options.map((o: Json) => o.label));
      if (slide.kind === 'quiz') {
        const correct = (s: Json) =>
          s.correctOptionIds.map((id: string) => s.options.find((o: Json) => o.id === id).label);
        expect(correct(back[index]!)).toEqual(correct(slide));
      }
    }
  });
});

/** The files of the blind set, with what each question should become (fixtures/decks/blind/README.md). */
const DEV_FILES = [
  ['gift', 'gift-aiken/gift-careful-teacher.gift'],
  ['gift', 'gift-aiken/gift-word-trainer.gift'],
  ['gift', 'gift-aiken/gift-broken.gift'],
  ['aiken', 'gift-aiken/aiken-careful-teacher.txt'],
  ['aiken', 'gift-aiken/aiken-word-trainer.txt'],
  ['aiken', 'gift-aiken/aiken-broken.txt'],
  ['moodle_xml', 'moodle-xml/fire_safety_refresher.xml'],
  ['moodle_xml', 'moodle-xml/y9_science_cells.xml'],
  ['moodle_xml', 'moodle-xml/linux_basics_broken.xml'],
  // The holdout, scored once unread (fixtures/decks/blind/README.md), read since like the rest.
  ['gift', 'gift-aiken/gift-moodle-export.gift'],
  ['aiken', 'gift-aiken/aiken-lms-export.txt'],
  ['moodle_xml', 'moodle-xml/it_bank_export.xml'],
] as const;

describe('question banks written by others', () => {
  it.each(DEV_FILES)(
    '%s %s: a dry run reports each question where the writer expected it, and creates nothing',
    async (format, file) => {
      const source = await readFile(join(BLIND, file), 'utf8');
      const expected = JSON.parse(await readFile(join(BLIND, file.replace(/\.\w+$/, '.expect.json')), 'utf8'));
      const before = await api.request('GET /polls', { query: { limit: 100 }, apiKey });
      expectStatus(before, 200);
      const preview = await importDeck({ format, source, dryRun: true });
      expectStatus(preview, 200);
      const slides = expected.questions.filter((q: Json) => q.slide);
      expect(previewBody(preview).report.imported).toBe(slides.length);
      expect(previewBody(preview).content.questions.map((s: Json) => s.kind)).toEqual(
        slides.map((q: Json) => q.slide.kind),
      );
      expect(previewBody(preview).report.skipped.map((s: Json) => [s.number, s.reason])).toEqual(
        expected.questions.filter((q: Json) => q.skipped).map((q: Json) => [q.number, q.skipped]),
      );
      for (const skip of previewBody(preview).report.skipped) expect(skip.message.length).toBeGreaterThan(10);
      const after = await api.request('GET /polls', { query: { limit: 100 }, apiKey });
      expectStatus(after, 200);
      expect(after.body.data.length).toBe(before.body.data.length);
    },
  );

  it('re-hosts the images embedded in a Moodle XML bank, on slides and options, as POST /media does', async () => {
    const source = await readFile(join(BLIND, 'moodle-xml/y9_science_cells.xml'), 'utf8');
    const imported = await importDeck({ format: 'moodle_xml', source });
    expectStatus(imported, 201);
    const withMedia = importedBody(imported)
      .poll.content.questions.flatMap((slide: Json) => [
        slide.media,
        ...(slide.options ?? []).map((o: Json) => o.media),
      ])
      .filter(Boolean);
    expect(withMedia.length).toBeGreaterThan(0);
    for (const media of withMedia) {
      expect(media).toMatchObject({
        type: 'image',
        storedUrl: expect.stringMatching(/\/media\/files\/[0-9a-f]{64}\.webp$/),
      });
      const stored = await fetch(media.storedUrl);
      expect(stored.status).toBe(200);
      expect(stored.headers.get('content-type')).toBe('image/webp');
    }
    // Moodle XML links them by their stored address: read back, the same slides keep the same images.
    const xml = text((await download(importedBody(imported).poll.id, 'moodle_xml')).bytes);
    const fromXml = await importDeck({ format: 'moodle_xml', source: xml });
    expectStatus(fromXml, 201);
    const mediaOf = (questions: Json[]) => questions.map((slide) => [slide.id, slide.media?.storedUrl ?? null]);
    expect(mediaOf(importedBody(fromXml).poll.content.questions)).toEqual(
      mediaOf(importedBody(imported).poll.content.questions.filter((slide: Json) => slide.kind !== 'scale')),
    );
    // The deck file of the imported poll carries them, and reading it back keeps them as stored.
    const again = await importDeck({
      format: 'pollkit',
      source: text((await download(importedBody(imported).poll.id)).bytes),
    });
    expectStatus(again, 201);
    expect(importedBody(again).poll.content).toEqual(importedBody(imported).poll.content);
  });

  it.each([
    ['an external entity', 'moodle-xml/hostile_xxe.xml'],
    ['nested entities', 'moodle-xml/hostile_billion_laughs.xml'],
  ])('refuses XML declaring %s whole, and the server stays healthy', async (_what, file) => {
    const source = await readFile(join(BLIND, file), 'utf8');
    const refused = await importDeck({ format: 'moodle_xml', source });
    expectStatus(refused, 422);
    expect(refused.body.error.code).toBe('validation_failed');
    expect(refused.text).not.toContain('root:');
    expect((await api.request('GET /polls', { apiKey })).status).toBe(200);
    expect((await fetch(`${t.url}/readyz`)).status).toBe(200);
  });

  it('skips questions past the 100-slide limit, saying which', async () => {
    const source = Array.from({ length: 105 }, (_, i) => `::Q${i + 1}:: Question ${i + 1}? {=Yes ~No}`).join('\n\n');
    const imported = await importDeck({ format: 'gift', source, dryRun: true });
    expectStatus(imported, 200);
    expect(expectOk(imported).report.imported).toBe(100);
    expect(expectOk(imported).report.skipped.map((s: Json) => [s.number, s.name, s.reason])).toEqual(
      [101, 102, 103, 104, 105].map((n) => [n, `Q${n}`, 'slide_limit']),
    );
  });
});

describe('limits and refusals', () => {
  it('answers 413 for a source over 2 MiB and for a body over 4 MiB, 422 for an unknown format or bad base64', async () => {
    const big = await importDeck({ format: 'gift', source: 'x'.repeat(DECK_SOURCE_MAX_BYTES + 1) });
    expectStatus(big, 413);
    expect(big.body.error.code).toBe('payload_too_large');
    const huge = await importDeck({ format: 'kahoot_xlsx', source: 'A'.repeat(4 * 1024 * 1024 + 16) });
    expectStatus(huge, 413);
    const unknown = await importDeck({ format: 'pdf', source: 'x' });
    expectStatus(unknown, 422);
    expect(errorDetails(unknown).fieldErrors.format).toBeDefined();
    const badBase64 = await importDeck({ format: 'kahoot_xlsx', source: 'not base64!' });
    expectStatus(badBase64, 422);
    expect(errorDetails(badBase64).fieldErrors.source![0]).toContain('base64');
    const notXlsx = await importDeck({ format: 'kahoot_xlsx', source: Buffer.from('plain text').toString('base64') });
    expectStatus(notXlsx, 422);
  });

  it('counts imports against a limit of their own', async () => {
    const key = apiKey;
    const source = 'Question? {=Yes ~No}';
    for (let i = 0; i < DECK_IMPORTS_PER_MINUTE; i++) {
      expect((await importDeck({ format: 'gift', source, dryRun: true }, key)).status).toBe(200);
    }
    const limited = await importDeck({ format: 'gift', source, dryRun: true }, key);
    expectStatus(limited, 429);
    expect(limited.body.error.code).toBe('rate_limited');
    // Other routes keep their own budget.
    expect((await api.request('GET /polls', { apiKey: key })).status).toBe(200);
  });

  it('replays an import sent again with the same Idempotency-Key instead of creating a second poll', async () => {
    const body = { format: 'aiken', source: 'Sky colour?\nA) Blue\nB) Green\nANSWER: A\n' };
    const first = await importDeck(body, apiKey, { 'idempotency-key': 'import-once-1' });
    const second = await importDeck(body, apiKey, { 'idempotency-key': 'import-once-1' });
    expectStatus(first, 201);
    expectStatus(second, 201);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(importedBody(second).poll.id).toBe(importedBody(first).poll.id);
  });
});

describe('who may import and export', () => {
  it('needs polls:write to import and polls:read to export; another workspace sees no deck', async () => {
    const poll = await sevenKindPoll();
    const reader = await api.request('POST /keys', { apiKey, body: { name: 'reader', scopes: ['polls:read'] } });
    expectStatus(reader, 201);
    const readerKey = reader.body.secret;
    const refused = await importDeck({ format: 'gift', source: 'Q? {=A ~B}' }, readerKey);
    expectStatus(refused, 403);
    expect(refused.body.error.code).toBe('insufficient_scope');
    expect((await download(poll.id, 'gift', readerKey)).status).toBe(200);

    const results = await api.request('POST /keys', { apiKey, body: { name: 'results', scopes: ['responses:read'] } });
    expectStatus(results, 201);
    expect((await download(poll.id, 'pollkit', results.body.secret)).status).toBe(403);

    const { apiKey: strangerKey } = await t.workspace('pro');
    const stranger = await download(poll.id, 'pollkit', strangerKey);
    expect(stranger.status).toBe(404);
    expect(text(stranger.bytes)).not.toContain('Seven kinds');
  });
});

describe('other formats out', () => {
  it('downloads Aiken, Moodle XML and a QTI package, each naming the slides it left out', async () => {
    const poll = await sevenKindPoll();
    const aiken = await download(poll.id, 'aiken');
    expect(aiken.status).toBe(200);
    expect(text(aiken.bytes)).toContain('ANSWER: A');
    expect(aiken.headers.get('pollkit-deck-skipped')).toContain('1 lunch multiple_choice');

    const xml = await download(poll.id, 'moodle_xml');
    expect(xml.headers.get('content-type')).toBe('application/xml; charset=utf-8');
    const reimported = await importDeck({ format: 'moodle_xml', source: text(xml.bytes), dryRun: true });
    expectStatus(reimported, 200);
    expect(previewBody(reimported).content.questions.map((s: Json) => s.kind)).toEqual([
      'multiple_choice',
      'quiz',
      'open_ended',
      'content',
      'multiple_choice',
    ]);

    const qti = await download(poll.id, 'qti');
    expect(qti.status).toBe(200);
    expect(qti.headers.get('content-type')).toBe('application/zip');
    const files = unzipSync(qti.bytes);
    expect(Object.keys(files)).toContain('imsmanifest.xml');
    expect(JSON.parse(text(files['report.json'] as Uint8Array)).map((s: Json) => s.slideId)).toEqual(
      (qti.headers.get('pollkit-deck-skipped') ?? '')
        .split(', ')
        .filter(Boolean)
        .map((s) => s.split(' ')[1]),
    );
  });

  it('answers 404 for a poll that does not exist and 422 for an unknown format', async () => {
    expect((await download('poll_01AAAAAAAAAAAAAAAAAAAAAAAA', 'gift')).status).toBe(404);
    const poll = await sevenKindPoll();
    expect((await download(poll.id, 'docx')).status).toBe(422);
  });
});

/** A Moodle XML bank of choice questions, each with an embedded PNG (base64) on its question text. */
function bankWithImages(images: Buffer[]): string {
  const questions = images.map(
    (png, i) => `<question type="multichoice"><name><text>Q${i + 1}</text></name>
<questiontext format="html"><text><![CDATA[<p>Which colour? <img src="@@PLUGINFILE@@/c${i}.png" alt="swatch"></p>]]></text>
<file name="c${i}.png" path="/" encoding="base64">${png.toString('base64')}</file></questiontext>
<single>true</single>
<answer fraction="100"><text>This one</text></answer><answer fraction="0"><text>Not this</text></answer>
</question>`,
  );
  return `<?xml version="1.0" encoding="UTF-8"?>\n<quiz>\n${questions.join('\n')}\n</quiz>\n`;
}

const swatch = (red: number, size = 2) =>
  sharp({ create: { width: size, height: size, channels: 3, background: { r: red, g: 0, b: 0 } } })
    .png()
    .toBuffer();

describe('what an import makes of odd files', () => {
  it('tells apart options that read the same once their markup is gone, and says so', async () => {
    const source = '::MD::[markdown]Which is **bold**? {=**this** is bold ~*this* is bold}';
    const imported = await importDeck({ format: 'gift', source, dryRun: true });
    expectStatus(imported, 200);
    const [question] = previewBody(imported).content.questions;
    expect((question as Json).options.map((o: Json) => o.label)).toEqual(['this is bold', 'this is bold (2)']);
    expect(expectOk(imported).report.changed.map((c: Json) => [c.slideId, c.reason])).toEqual([
      ['MD', 'labels_changed'],
    ]);
  });

  it('creates no empty poll from a file none of whose questions could be imported, and says why', async () => {
    const before = await api.request('GET /polls', { apiKey });
    expectStatus(before, 200);
    const source = '::Pairs:: Match them. {=a -> 1 =b -> 2}';
    const refused = await importDeck({ format: 'gift', source });
    expectStatus(refused, 422);
    expect(refused.body.error.message).toBe('No question of the file could be imported');
    expect(errorDetails(refused).fieldErrors.source![0]).toMatch(/^question 1: .*matching/);
    expect(expectOk(await api.request('GET /polls', { apiKey })).data).toEqual(before.body.data);
    // A dry run still answers what it read.
    const preview = await importDeck({ format: 'gift', source, dryRun: true });
    expectStatus(preview, 200);
    expect(previewBody(preview).report.skipped).toHaveLength(1);
  });
});

describe('what a hostile file can do', () => {
  it('cannot make the server fetch a private address through a deck file’s media', async () => {
    const deck = {
      format: 'pollkit.deck',
      version: 1,
      title: 'Metadata',
      content: {
        questions: [
          {
            id: 'q',
            kind: 'content',
            text: 'Look',
            media: { type: 'image', url: 'http://169.254.169.254/latest/meta-data/' },
          },
        ],
      },
    };
    const before = await api.request('GET /polls', { apiKey });
    expectStatus(before, 200);
    const refused = await importDeck({ format: 'pollkit', source: JSON.stringify(deck) });
    expectStatus(refused, 422);
    expect(refused.body.error.code).toBe('media_not_allowed');
    expect(expectOk(await api.request('GET /polls', { apiKey })).data).toEqual(before.body.data);
  });

  it('re-hosts at most 20 distinct images per import, the same image once, and reports the rest', async () => {
    const distinct = await Promise.all(Array.from({ length: 22 }, (_, i) => swatch(i * 10)));
    const source = bankWithImages([...distinct, distinct[0] as Buffer]);
    const imported = await importDeck({ format: 'moodle_xml', source });
    expectStatus(imported, 201);
    const slides = importedBody(imported).poll.content.questions;
    expect(slides).toHaveLength(23);
    expect(slides.filter((slide: Json) => slide.media).length).toBe(21);
    expect(slides[22]!.media).toEqual(slides[0]!.media);
    expect(expectOk(imported).report.changed.map((c: Json) => [c.number, c.reason])).toEqual([
      [21, 'media_dropped'],
      [22, 'media_dropped'],
    ]);
  });

  it('drops an embedded image over the pixel limit, or one that is no image, and imports the question', async () => {
    const small = await startTestServer({ MEDIA_MAX_PIXELS: '100' });
    try {
      const { apiKey: key } = await small.workspace('pro');
      const source = bankWithImages([await swatch(200, 20), Buffer.from('GIF89a but not really')]);
      const onSmall = testClient(small.api, { apiKey: key });
      const imported = await onSmall.request('POST /polls/import', { body: { format: 'moodle_xml', source } });
      expectStatus(imported, 201);
      const { poll, report } = importedBody(imported);
      expect(poll.content.questions.map((slide) => slide.media ?? null)).toEqual([null, null]);
      expect(report.changed.map((c) => [c.number, c.reason])).toEqual([
        [1, 'media_dropped'],
        [2, 'media_dropped'],
      ]);
      const preview = await onSmall.request('POST /polls/import', {
        body: { format: 'moodle_xml', source, dryRun: true },
      });
      expect(expectOk(preview).report.changed).toEqual(report.changed);
    } finally {
      await small.close();
    }
  });
});

describe('the reader thread', () => {
  const bigBank = () => 'Which one?\nA) a\nB) b\nANSWER: B\n\n'.repeat(900);
  /** One question of 1.8 MiB of markup: a few hundred milliseconds of reading, far past a 1 ms deadline. */
  const slowFile = () => Buffer.from(`::Slow:: [html]${'<a '.repeat(600_000)} {=A ~B}`);

  it('abandons a read past its deadline, and reads the next file on a new thread', async () => {
    const late = await bankReaders.read('gift', slowFile(), 1).catch((error: unknown) => error);
    expect(late).toBeInstanceOf(BankReadTimedOut);
    const next = await bankReaders.read('aiken', Buffer.from('Q?\nA) a\nB) b\nANSWER: A\n'));
    expect(next.questions).toHaveLength(1);
  });

  it('refuses a file still waiting at its deadline as busy (503), and reads those behind it', async () => {
    const first = bankReaders.read('gift', slowFile());
    const waiting = bankReaders.read('aiken', Buffer.from(bigBank()), 1).catch((error: unknown) => error);
    const after = bankReaders.read('gift', Buffer.from('Q? {=A ~B}'));
    expect(await waiting).toMatchObject({ code: 'service_unavailable', status: 503 });
    expect((await first).questions).toHaveLength(1);
    expect((await after).questions).toHaveLength(1);
  });

  it('answers 422 for a file that makes its reader fail, never a 500', async () => {
    // The route's deadline is BANK_READ_TIMEOUT_MS; a reader failing in the thread is the same path.
    const failed = await bankReaders.read('kahoot_xlsx', new Uint8Array([0x50, 0x4b, 3, 4])).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(Error);
    const refused = await importDeck({
      format: 'kahoot_xlsx',
      source: Buffer.from([0x50, 0x4b, 3, 4]).toString('base64'),
    });
    expectStatus(refused, 422);
    expect(errorDetails(refused).fieldErrors.source![0]).toMatch(/\S/);
  });
});
