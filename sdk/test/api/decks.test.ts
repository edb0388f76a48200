import { unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { sampleContent } from '../../../server/test/support/polls.js';
import { startTestServer, type TestServer } from '../../../server/test/support/server.js';
import {
  createClient,
  type DeckImportPreview,
  type ImportedDeck,
  type PollkitClient,
  PollkitError,
} from '../../src/index.js';

let t: TestServer;
let client: PollkitClient;

beforeAll(async () => {
  t = await startTestServer();
  const { apiKey } = await t.workspace('pro');
  client = createClient({ apiKey, baseUrl: t.url });
});
afterAll(() => t?.close());

/** Decks in and out through the SDK alone: `polls.import` and `polls.exportDeck`. */
describe('deck files through the SDK', () => {
  it('imports a GIFT file, previews one, and downloads a deck as text or, for QTI, as bytes', async () => {
    const source = '::Sky:: What colour is the sky? {=Blue ~Green}\n\nTell us anything. {}\n';
    const preview = await client.polls.import({ format: 'gift', source, dryRun: true });
    expectTypeOf(preview).toEqualTypeOf<ImportedDeck | DeckImportPreview>();
    expect('content' in preview && preview.content.questions.map((slide) => slide.kind)).toEqual([
      'quiz',
      'open_ended',
    ]);

    const imported = await client.polls.import({ format: 'gift', source, title: 'From the SDK' });
    if (!('poll' in imported)) throw new Error('an import without dryRun creates a poll');
    expect(imported.poll).toMatchObject({ title: 'From the SDK', status: 'draft' });
    expect(imported.report).toEqual({ imported: 2, skipped: [], changed: [] });

    const deck = await client.polls.exportDeck({ id: imported.poll.id });
    expectTypeOf(deck).toEqualTypeOf<string>();
    expect(JSON.parse(deck)).toMatchObject({ format: 'pollkit.deck', version: 1, title: 'From the SDK' });
    const gift = await client.polls.exportDeck({ id: imported.poll.id, format: 'gift' });
    expect(gift).toContain('What colour is the sky?');

    const qti = await client.polls.exportDeck({ id: imported.poll.id, format: 'qti' });
    expectTypeOf(qti).toEqualTypeOf<Uint8Array>();
    expect(qti).toBeInstanceOf(Uint8Array);
    expect(Object.keys(unzipSync(qti))).toContain('imsmanifest.xml');
  });

  it('round-trips a deck through its file, and refuses a file it cannot read with a PollkitError', async () => {
    const poll = await client.polls.create({ title: 'Round trip', content: sampleContent() });
    const copy = await client.polls.import({
      format: 'pollkit',
      source: await client.polls.exportDeck({ id: poll.id }),
    });
    if (!('poll' in copy)) throw new Error('an import without dryRun creates a poll');
    expect(copy.poll.content).toEqual(poll.content);

    const refused = await client.polls
      .import({ format: 'moodle_xml', source: 'not xml at all' })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(PollkitError);
    expect((refused as PollkitError).status).toBe(422);
    expect((refused as PollkitError).code).toBe('validation_failed');
  });
});
