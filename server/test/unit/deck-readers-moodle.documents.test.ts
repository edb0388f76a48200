/**
 * The Moodle XML reader (server/src/modules/decks/formats/moodle-xml.ts) on whole documents: the
 * blind dev fixtures (fixtures/decks/blind/moodle-xml, README.md there) question by question, the
 * hostile files, documents refused whole, and large or hostile documents read in linear time.
 * Its rules question by question: deck-readers-moodle.questions.test.ts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BankRefused } from '../../src/modules/decks/bank.js';
import { readMoodleXml } from '../../src/modules/decks/formats/moodle-xml.js';
import {
  correctLabelsOf,
  expectBankMatches,
  only,
  readBankExpectation,
  refusal,
} from '../support/bank-expectations.js';
import { answer, file, multichoice, quiz } from '../support/moodle-xml.js';

const BLIND = join(import.meta.dirname, '../fixtures/decks/blind/moodle-xml');

/** Every file of the blind set, the holdout (`it_bank_export`, scored once: fixtures/decks/blind/README.md) included. */
const DEV_FIXTURES = [
  'fire_safety_refresher.xml',
  'y9_science_cells.xml',
  'linux_basics_broken.xml',
  'it_bank_export.xml',
];
const HOSTILE_FIXTURES = ['hostile_xxe.xml', 'hostile_billion_laughs.xml'];

function blindFile(file: string): string {
  return readFileSync(join(BLIND, file), 'utf8');
}

describe('Moodle XML: blind dev fixtures', () => {
  it.each(DEV_FIXTURES)('%s reads as its expect.json says', (file) => {
    const bank = readMoodleXml(blindFile(file));
    expectBankMatches(bank, readBankExpectation(join(BLIND, file.replace(/\.xml$/, '.expect.json'))));
  });

  it('imports what the broken file says still imports', () => {
    const expectation = readBankExpectation(join(BLIND, 'linux_basics_broken.expect.json'));
    const bank = readMoodleXml(blindFile('linux_basics_broken.xml'));
    expect(bank.questions.filter((question) => question.slide).map((question) => question.number)).toEqual(
      expectation.still_imported,
    );
    // The question whose XML is invalid is named by the line its <question> starts on.
    expect(bank.questions[3]).toMatchObject({ line: 66, skipped: { reason: 'malformed' } });
  });

  it.each(HOSTILE_FIXTURES)('%s is refused whole, at its DOCTYPE, with nothing expanded', (file) => {
    expect(readBankExpectation(join(BLIND, file.replace(/\.xml$/, '.expect.json'))).refused).toBe(true);
    // Refused at the entity declarations (line 2), before any expansion: an expansion of the nested
    // entities would take seconds and hundreds of megabytes (what it costs is the benchmarks' to say).
    const refused = refusal(() => readMoodleXml(blindFile(file)));
    expect(refused.message).toMatch(/ENTITY/);
    expect(refused.problems[0]?.line).toBe(2);
    expect(JSON.stringify(refused)).not.toMatch(/root:|lollol/);
  });
});

describe('Moodle XML: refusals', () => {
  it.each([
    ['garbage', 'this is not XML at all, just words; <<< & >>>'],
    ['empty', ''],
    ['whitespace', '  \n\t '],
    ['binary', '\u0000\u0001PK\u0003\u0004\u00ff'],
    ['another document', '<?xml version="1.0"?><html><body><question type="essay"/></body></html>'],
    [
      'text before the root',
      'oops <quiz><question type="essay"><questiontext><text>x</text></questiontext></question></quiz>',
    ],
    ['a JSON file', '{"quiz": [{"question": "x"}]}'],
  ])('refuses %s', (_, text) => {
    const refused = refusal(() => readMoodleXml(text));
    expect(refused.message).toMatch(/not Moodle XML/);
  });

  it('refuses any entity declaration, used or not, internal or external, parameter or general', () => {
    for (const doctype of [
      '<!DOCTYPE quiz [<!ENTITY a "b">]>',
      '<!DOCTYPE quiz [\n  <!ENTITY % p SYSTEM "http://127.0.0.1:1/x.dtd">\n  %p;\n]>',
      '<!DOCTYPE quiz SYSTEM "x.dtd" [ <!entity x SYSTEM "file:///etc/passwd"> ]>',
      '<!DOCTYPE quiz [ <!-- a comment --> <!ELEMENT quiz ANY> <!ENTITY y "]>" > ]>',
    ]) {
      const text = `<?xml version="1.0"?>\n${doctype}\n<quiz>${multichoice('Q?', answer(100, 'a') + answer(0, 'b'))}</quiz>`;
      expect(refusal(() => readMoodleXml(text)).message, doctype).toMatch(/ENTITY/);
    }
  });

  it('reads a DOCTYPE that declares no entity', () => {
    const text = `<?xml version="1.0"?>\n<!DOCTYPE quiz [ <!ELEMENT quiz ANY> ]>\n<quiz>${multichoice('Q?', answer(100, 'a') + answer(0, 'b'))}</quiz>`;
    expect(correctLabelsOf(only(readMoodleXml(text)))).toEqual(['a']);
  });

  it('refuses an entity declared after the root too (never reaching the parser)', () => {
    const text = quiz(multichoice('Q?', answer(100, 'a') + answer(0, 'b')), '<!DOCTYPE x [<!ENTITY z "zz">]>');
    expect(refusal(() => readMoodleXml(text)).message).toMatch(/ENTITY/);
  });
});

describe('Moodle XML: size', () => {
  it('reads a 2 MiB document, with images, in one linear pass', () => {
    const image = file('pic.png', Buffer.alloc(2048, 7));
    const questions: string[] = [];
    let size = 0;
    for (let index = 0; size < 2 * 1024 * 1024; index++) {
      const question = multichoice(
        `<p>Question ${index} <img src="@@PLUGINFILE@@/pic.png"></p>`,
        answer(100, `right ${index}`) + answer(0, 'wrong') + answer(0, 'also wrong'),
        image,
      );
      questions.push(question);
      size += question.length;
    }
    const bank = readMoodleXml(quiz(...questions));
    expect(bank.questions).toHaveLength(questions.length);
    expect(bank.questions.every((question) => question.slide?.image)).toBe(true);
  });

  it('reads 2 MiB of hostile repetition (unclosed comments, CDATA, tags, attributes) without slowing down', () => {
    const size = 2 * 1024 * 1024;
    for (const unit of ['<!--', '<![CDATA[', '<question ', '<question>', '<a href="', '<img src=x ', '<audio>', '&#']) {
      const filler = unit.repeat(Math.ceil(size / unit.length));
      // Inside a question's text (as HTML) and in the document itself.
      const bank = readMoodleXml(
        quiz(
          `<question type="essay"><name><text>x</text></name><questiontext format="html"><text><![CDATA[${filler}]]></text></questiontext></question>`,
        ),
      );
      expect(bank.questions.length).toBeGreaterThan(0);
      // In the document itself, a repeated `<question` is refused as too many questions, or read.
      try {
        readMoodleXml(`<quiz>${filler}`);
      } catch (error) {
        expect(error).toBeInstanceOf(BankRefused);
        expect((error as BankRefused).message).toContain('more than 1000 questions');
      }
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Kahoot
