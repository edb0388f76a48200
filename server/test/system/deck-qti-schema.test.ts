/**
 * The QTI package (server/src/modules/decks/formats/qti-writer.ts) against the IMS schemas: the
 * manifest against IMS CP 1.1 (imscp_v1p1.xsd), the test and every item against IMS QTI 2.1
 * (imsqti_v2p1.xsd), with xmllint from Debian's libxml2-utils. The IMS schemas are not in the
 * repository: support/qti-schemas.ts finds them at test time (QTI_SCHEMA_DIR, or the git snapshots
 * they came from; fixtures/qti/README.md), unmodified, and maps the addresses they import to local
 * files with an XML catalog. xmllint runs with --nonet, so nothing is fetched. Without the schemas
 * the suite is skipped, saying why, and under CI (`CI` set, as .ci/run does) that fails instead.
 * A system test: it runs a child process.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { strFromU8, unzipSync } from 'fflate';
import { afterAll, describe, expect, it } from 'vitest';
import type { DeckToWrite } from '../../src/modules/decks/deck-file.js';
import { writeQti } from '../../src/modules/decks/formats/qti-writer.js';
import { deckToWrite } from '../support/decks.js';
import { findQtiSchemas, QTI_SCHEMAS_HELP } from '../support/qti-schemas.js';

const { schemas, reason: missingSchemas } = findQtiSchemas();
afterAll(() => schemas?.dispose());
if (!schemas) {
  console.warn(
    `\n  ⚠ deck-qti-schema.test.ts: IMS schema tests skipped: ${missingSchemas}. To run them, ${QTI_SCHEMAS_HELP}\n`,
  );
}
// Only read by the tests of the suite below, which is skipped without the schemas.
const CP_SCHEMA = schemas?.cpSchema ?? '';
const QTI_SCHEMA = schemas?.qtiSchema ?? '';

const deckOf = (questions: unknown[]): DeckToWrite =>
  deckToWrite(questions, { title: 'Every kind: <tags> & "quotes"\nover two lines', language: 'pt-BR' });

const image = (name: string) => ({
  type: 'image',
  url: `https://example.com/${name}.png`,
  storedUrl: `https://media.pollkit.test/${name}.webp`,
  width: 320,
  height: 200,
});

/** Every kind and variant the writer has a branch for, with text and media in every place. */
const EVERY_KIND = deckOf([
  {
    id: '1-quiz',
    kind: 'quiz',
    text: 'Which are prime? ~ = # { } : \\ ]]> & <b> café 日本 🚀\nsecond line\u0007',
    media: image('primes'),
    options: [
      { id: '2', label: 'Two & <two>', media: image('two') },
      { id: 'three-3', label: 'Three\nlines\nhere' },
      { id: 'four_4', label: 'Four ]]>' },
    ],
    correctOptionIds: ['2', 'three-3'],
    timeLimitSec: 600,
    points: 0,
  },
  {
    id: 'single',
    kind: 'quiz',
    text: 'One right',
    options: [
      { id: 'a', label: 'Yes' },
      { id: 'b', label: 'No' },
    ],
    correctOptionIds: ['a'],
  },
  {
    id: 'poll-single',
    kind: 'multiple_choice',
    text: 'Pick one',
    media: { type: 'vimeo', url: 'https://vimeo.com/76979871?a=1&b=2' },
    options: [
      { id: 'x', label: 'X', media: { type: 'link', url: 'https://example.com/x?y=1&z=2' } },
      { id: 'y', label: 'Y' },
    ],
  },
  {
    id: 'poll-multiple',
    kind: 'multiple_choice',
    type: 'multiple',
    text: 'Pick any',
    options: [
      { id: 'x', label: 'X' },
      { id: 'y', label: 'Y' },
    ],
  },
  {
    id: 'scale-statements',
    kind: 'scale',
    text: 'Rate each',
    media: image('scale'),
    min: -3,
    max: 3,
    minLabel: 'Hate <it>',
    maxLabel: 'Love & more',
    statements: [
      { id: 's-1', text: 'Coffee' },
      { id: '2nd', text: 'Tea\nwith milk' },
    ],
  },
  { id: 'scale-plain', kind: 'scale', text: 'Rate it', min: 0, max: 100 },
  {
    id: 'rank',
    kind: 'ranking',
    text: 'Order these',
    options: [
      { id: 'a', label: 'First', media: image('first') },
      { id: 'b', label: 'Second' },
    ],
  },
  { id: 'open', kind: 'open_ended', text: 'Tell us\nmore', maxLength: 5000, media: image('open') },
  { id: 'ask', kind: 'qa', text: 'Questions?' },
  { id: 'intro', kind: 'content', text: 'Welcome\nto the deck', media: image('intro') },
  { id: 'video', kind: 'content', text: 'Watch', media: { type: 'youtube', url: 'https://youtu.be/dQw4w9WgXcQ' } },
]);

const workspace = mkdtempSync(join(tmpdir(), 'pollkit-qti-'));
afterAll(() => rmSync(workspace, { recursive: true, force: true }));

/** The package's files written out under a fresh folder; their paths by zip entry name. */
function unpack(deck: DeckToWrite, folder: string): Record<string, string> {
  const files = unzipSync(writeQti(deck).body as Uint8Array);
  const paths: Record<string, string> = {};
  for (const [name, bytes] of Object.entries(files)) {
    const path = join(workspace, folder, name);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, bytes);
    paths[name] = path;
  }
  return paths;
}

function xmllint(schema: string, file: string): { ok: boolean; output: string } {
  const run = spawnSync('xmllint', ['--nonet', '--noout', '--schema', schema, file], {
    encoding: 'utf8',
    env: schemas?.env,
  });
  if (run.error) throw run.error;
  return { ok: run.status === 0, output: `${run.stdout}${run.stderr}` };
}

function expectValid(schema: string, file: string): void {
  const { ok, output } = xmllint(schema, file);
  expect(output, output).toContain(' validates');
  expect(output).not.toMatch(/failed to load|warning/i);
  expect(ok, output).toBe(true);
}

function schemaFor(name: string): string {
  return name === 'imsmanifest.xml' ? CP_SCHEMA : QTI_SCHEMA;
}

describe('the IMS schemas', () => {
  it(`are found (required under CI)${schemas ? `: ${schemas.source}` : ` — not here: ${missingSchemas}`}`, () => {
    if (process.env.CI) {
      expect(schemas, `CI must validate the QTI package: ${missingSchemas}. ${QTI_SCHEMAS_HELP}`).toBeDefined();
    }
  });
});

describe.skipIf(!schemas)(
  schemas
    ? 'QTI package against the IMS schemas'
    : 'QTI package against the IMS schemas (skipped: the schemas were not found)',
  () => {
    const paths = unpack(EVERY_KIND, 'every-kind');
    const xmlFiles = Object.keys(paths).filter((name) => name.endsWith('.xml'));

    it('has a manifest, a test and an item for every slide but Q&A (two for the scale’s statements)', () => {
      expect(xmlFiles.filter((name) => name.startsWith('items/'))).toHaveLength(11);
      expect(xmlFiles).toContain('imsmanifest.xml');
      expect(xmlFiles).toContain('test.xml');
    });

    it.each(Object.keys(paths).filter((name) => name.endsWith('.xml')))('%s is valid', (name) => {
      expectValid(schemaFor(name), paths[name]!);
    });

    it('is valid with no items at all (a deck of Q&A slides only)', () => {
      const empty = unpack(deckOf([{ id: 'ask', kind: 'qa', text: 'Questions?' }]), 'empty');
      expect(Object.keys(empty)).toEqual(['imsmanifest.xml', 'test.xml', 'report.json']);
      expectValid(CP_SCHEMA, empty['imsmanifest.xml']!);
      expectValid(QTI_SCHEMA, empty['test.xml']!);
    });

    it('fails an item, a test or a manifest the schemas do not allow', () => {
      const broken = (name: string, edit: (xml: string) => string) => {
        const path = join(workspace, 'broken', name);
        mkdirSync(dirname(path), { recursive: true });
        const xml = edit(strFromU8(unzipSync(writeQti(EVERY_KIND).body as Uint8Array)[name]!));
        writeFileSync(path, xml);
        return path;
      };
      const withoutTitle = broken('items/slide_single.xml', (xml) => xml.replace(/ title="[^"]*"/, ''));
      const badIdentifier = broken('items/slide_rank.xml', (xml) =>
        xml.replace('identifier="choice_a"', 'identifier="1a"'),
      );
      const unknownElement = broken('test.xml', (xml) => xml.replace('<testPart ', '<testPartie/><testPart '));
      const noOrganizations = broken('imsmanifest.xml', (xml) => xml.replace('<organizations/>', ''));
      for (const [schema, file] of [
        [QTI_SCHEMA, withoutTitle],
        [QTI_SCHEMA, badIdentifier],
        [QTI_SCHEMA, unknownElement],
        [CP_SCHEMA, noOrganizations],
      ] as const) {
        const { ok, output } = xmllint(schema, file);
        expect(ok, output).toBe(false);
        expect(output).toContain('fails to validate');
      }
    });
  },
);
