/**
 * The Moodle XML and Kahoot spreadsheet readers (server/src/modules/decks/formats/moodle-xml.ts,
 * kahoot-xlsx.ts): the blind dev fixtures (fixtures/decks/blind/moodle-xml, README.md there) question
 * by question, the hostile files, then each rule on its own. Kahoot workbooks are built here with
 * exceljs, laid out as Kahoot's template is: title and instruction rows, then the header row.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { type BankImage, type BankQuestion, BankRefused } from '../../src/modules/decks/bank.js';

import { KAHOOT_MAX_UNZIPPED_BYTES, readKahootXlsx } from '../../src/modules/decks/formats/kahoot-xlsx.js';
import { readMoodleXml } from '../../src/modules/decks/formats/moodle-xml.js';
import {
  choiceOf,
  correctLabelsOf,
  expectBankMatches,
  labelsOf,
  only,
  readBankExpectation,
  refusal,
  slideOf,
} from '../support/bank-expectations.js';

const BLIND = join(import.meta.dirname, '../fixtures/decks/blind/moodle-xml');

/** An embedded image's bytes; undefined for none, or for one linked by address. */
const bytesOf = (image: BankImage | undefined) => (image && 'bytes' in image ? image.bytes : undefined);

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

async function asyncRefusal(read: () => Promise<unknown>): Promise<BankRefused> {
  try {
    await read();
  } catch (error) {
    expect(error).toBeInstanceOf(BankRefused);
    return error as BankRefused;
  }
  throw new Error('expected the file to be refused');
}

function reasonsOf(question: BankQuestion): string[] {
  return question.changes.map((change) => change.reason);
}

// ---------------------------------------------------------------------------------------------
// Moodle XML

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

  it.each(HOSTILE_FIXTURES)('%s is refused whole, in milliseconds, with nothing expanded', (file) => {
    expect(readBankExpectation(join(BLIND, file.replace(/\.xml$/, '.expect.json'))).refused).toBe(true);
    const started = performance.now();
    const refused = refusal(() => readMoodleXml(blindFile(file)));
    // An expansion of the nested entities would take seconds and hundreds of megabytes.
    expect(performance.now() - started).toBeLessThan(1000);
    expect(refused.message).toMatch(/ENTITY/);
    expect(refused.problems[0]?.line).toBe(2);
    expect(JSON.stringify(refused)).not.toMatch(/root:|lollol/);
  });
});

/** A Moodle XML file around the questions given. */
function quiz(...questions: string[]): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<quiz>\n${questions.join('\n')}\n</quiz>\n`;
}

function multichoice(text: string, answers: string, extra = ''): string {
  return `<question type="multichoice">
  <name><text>Q</text></name>
  <questiontext format="html"><text><![CDATA[${text}]]></text>${extra}</questiontext>
  <single>true</single>
  ${answers}
</question>`;
}

function answer(fraction: number, text: string, extra = ''): string {
  return `<answer fraction="${fraction}" format="html"><text><![CDATA[${text}]]></text>${extra}</answer>`;
}

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAQAAAAECAIAAAAmkwkpAAAAEElEQVR42mO4IyIHRwzEcQDC4xDhoCVs3QAAAABJRU5ErkJggg==',
  'base64',
);
const MP3 = Buffer.from('ID3\u0003\u0000\u0000\u0000\u0000\u0000\u0000 fake frames', 'latin1');

function file(name: string, bytes: Buffer, path = '/'): string {
  return `<file name="${name}" path="${path}" encoding="base64">${bytes.toString('base64')}</file>`;
}

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

describe('Moodle XML: kinds', () => {
  it('reads multichoice: fractions > 0 correct, <single>false</single> multiple, file order kept', () => {
    const bank = readMoodleXml(
      quiz(
        multichoice('<p>One?</p>', answer(0, 'a') + answer(100, 'b') + answer(0, 'c')),
        multichoice('<p>Some?</p>', answer(50, 'a') + answer(-50, 'b') + answer(50, 'c')).replace(
          '<single>true</single>',
          '<single>false</single>',
        ),
        multichoice('<p>Survey?</p>', answer(0, 'x') + answer(0, 'y')),
      ),
    );
    const [one, some, survey] = bank.questions;
    expect(labelsOf(one!)).toEqual(['a', 'b', 'c']);
    expect(correctLabelsOf(one!)).toEqual(['b']);
    expect(choiceOf(one!).multiple).toBe(false);
    expect(one!.changes).toEqual([]);
    expect(correctLabelsOf(some!)).toEqual(['a', 'c']);
    expect(choiceOf(some!).multiple).toBe(true);
    expect(reasonsOf(some!)).toEqual(['weights_simplified']);
    expect(correctLabelsOf(survey!)).toEqual([]);
    expect(survey!.changes).toEqual([]);
  });

  it('reports partial weights (33.3, 50) as simplified, and plain 100/0 not', () => {
    const bank = readMoodleXml(
      quiz(
        multichoice('Q?', answer(33.33333, 'a') + answer(33.33333, 'b') + answer(33.33333, 'c') + answer(0, 'd')),
        multichoice(
          'Q?',
          `${answer(100, 'a').replace('"100"', '"100.0000000"')}${answer(0, 'b').replace('"0"', '"0.0000000"')}`,
        ),
      ),
    );
    expect(reasonsOf(bank.questions[0]!)).toEqual(['weights_simplified']);
    expect(bank.questions[1]!.changes).toEqual([]);
  });

  it('reads truefalse as "True" and "False" whatever the order of the answers', () => {
    const truefalse = (first: string, second: string) => `<question type="truefalse">
      <name><text>TF</text></name>
      <questiontext format="moodle_auto_format"><text>Water boils at 100 °C at sea level.</text></questiontext>
      ${first}${second}
    </question>`;
    const bank = readMoodleXml(
      quiz(
        truefalse(answer(100, 'true'), answer(0, 'false')),
        truefalse(answer(0, 'false'), answer(100, 'true')),
        truefalse(answer(0, 'true'), answer(100, 'false')),
      ),
    );
    for (const question of bank.questions) expect(labelsOf(question)).toEqual(['True', 'False']);
    expect(bank.questions.map(correctLabelsOf)).toEqual([['True'], ['True'], ['False']]);
  });

  it('reads essay and shortanswer as open-ended, the accepted answers dropped as a change', () => {
    const bank = readMoodleXml(
      quiz(
        '<question type="essay"><name><text>E</text></name><questiontext format="html"><text>Discuss.</text></questiontext></question>',
        `<question type="shortanswer"><name><text>S</text></name>
          <questiontext format="html"><text>Capital of France?</text></questiontext>
          ${answer(100, 'Paris')}${answer(50, 'paris')}</question>`,
      ),
    );
    expect(slideOf(bank.questions[0]!)).toEqual({ kind: 'open_ended', text: 'Discuss.' });
    expect(bank.questions[0]!.changes).toEqual([]);
    expect(slideOf(bank.questions[1]!)).toEqual({ kind: 'open_ended', text: 'Capital of France?' });
    expect(reasonsOf(bank.questions[1]!)).toEqual(['answers_dropped']);
    expect(bank.questions[1]!.changes[0]!.message).toContain('Paris');
  });

  it('reads description as content', () => {
    const bank = readMoodleXml(
      quiz(
        '<question type="description"><name><text>Intro</text></name><questiontext format="html"><text>&lt;h2&gt;Part 2&lt;/h2&gt;&lt;p&gt;Read on.&lt;/p&gt;</text></questiontext></question>',
      ),
    );
    expect(only(bank)).toMatchObject({ name: 'Intro', slide: { kind: 'content', text: 'Part 2 Read on.' } });
  });

  it.each([
    ['matching', /matching/],
    ['numerical', /numerical/],
    ['cloze', /Cloze/],
    ['multianswer', /Cloze/],
    ['ddwtos', /drag and drop/],
    ['gapselect', /missing words/],
    ['calculated', /calculated/],
    ['ddimageortext', /drag and drop/],
    ['some_plugin_type', /some_plugin_type/],
  ])('skips %s as unsupported_kind, naming the kind', (type, named) => {
    const question = only(
      readMoodleXml(
        quiz(
          `<question type="${type}"><name><text>N</text></name><questiontext format="html"><text>x</text></questiontext></question>`,
        ),
      ),
    );
    expect(question.skipped?.reason).toBe('unsupported_kind');
    expect(question.skipped?.message).toMatch(named);
    expect(question.name).toBe('N');
  });

  it('does not count categories as questions, and numbers the rest in file order, skipped ones included', () => {
    const category = '<question type="category"><category><text>$course$/top/X</text></category></question>';
    const bank = readMoodleXml(
      quiz(
        category,
        multichoice('A?', answer(100, 'a') + answer(0, 'b')),
        category,
        '<question type="matching"><name><text>M</text></name><questiontext><text>m</text></questiontext></question>',
        '<question type="essay"><name><text>E</text></name><questiontext><text>e</text></questiontext></question>',
      ),
    );
    expect(bank.questions.map((question) => [question.number, question.name, question.slide?.kind])).toEqual([
      [1, 'Q', 'choice'],
      [2, 'M', undefined],
      [3, 'E', 'open_ended'],
    ]);
  });
});

describe('Moodle XML: malformed questions', () => {
  it('skips a question without type, a multichoice without answers or without question text, and keeps the rest', () => {
    const bank = readMoodleXml(
      quiz(
        '<question><name><text>No type</text></name><questiontext><text>x</text></questiontext></question>',
        '<question type="multichoice"><name><text>No answers</text></name><questiontext><text>x</text></questiontext></question>',
        '<question type="multichoice"><name><text>No text</text></name>' +
          answer(100, 'a') +
          answer(0, 'b') +
          '</question>',
        multichoice('   ', answer(100, 'a') + answer(0, 'b')),
        multichoice('Single answer?', answer(100, 'a') + answer(0, '  ')),
        multichoice('Fine?', answer(100, 'yes') + answer(0, 'no')),
      ),
    );
    expect(bank.questions.map((question) => question.skipped?.reason ?? question.slide?.kind)).toEqual([
      'malformed',
      'malformed',
      'malformed',
      'malformed',
      'malformed',
      'choice',
    ]);
    expect(bank.questions[0]!.skipped?.message).toMatch(/type/);
    expect(bank.questions[1]!.skipped?.message).toMatch(/answer/);
  });

  it('skips only the question whose XML is invalid, unclosed, or cut off at the end of the file', () => {
    const good = multichoice('Good?', answer(100, 'a') + answer(0, 'b'));
    const text = [
      '<?xml version="1.0"?>',
      '<quiz>',
      good,
      '<question type="multichoice"><name><text>A & B</text></name></question>',
      good,
      '<question type="essay"><questiontext><text>never closed</text></questiontext>',
      good,
      '<question type="multichoice"><questiontext><text><![CDATA[unclosed',
    ].join('\n');
    const bank = readMoodleXml(text);
    expect(bank.questions.map((question) => question.skipped?.reason ?? 'ok')).toEqual([
      'ok',
      'malformed',
      'ok',
      'malformed',
      'ok',
      'malformed',
    ]);
    expect(bank.questions.map((question) => question.line)).toEqual([3, 9, 10, 16, 17, 23]);
    expect(bank.questions[1]!.skipped?.message).toMatch(/line 9/);
  });

  it('ignores questions commented out, and reads </question> inside CDATA as text', () => {
    const bank = readMoodleXml(
      quiz(
        `<!-- ${multichoice('Hidden?', answer(100, 'a') + answer(0, 'b'))} -->`,
        multichoice(
          '<p>What does <code>&lt;/question&gt;</code> close?</p> ]]><![CDATA[</question>',
          answer(100, 'a') + answer(0, 'b'),
        ),
      ),
    );
    // Cut at that </question>, the question would be invalid XML.
    expect(only(bank).slide?.text).toBe('What does </question> close?');
    expect(labelsOf(only(bank))).toEqual(['a', 'b']);
  });

  it('reads CRLF line endings and a byte-order mark', () => {
    const text = `\ufeff${quiz(
      '<question type="category"><category><text>c</text></category></question>',
      multichoice('<p>Line one\r\nline two</p>', answer(100, 'a\r\n') + answer(0, 'b')),
    ).replace(/\n/g, '\r\n')}`;
    const question = only(readMoodleXml(text));
    expect(choiceOf(question).text).toBe('Line one line two');
    expect(labelsOf(question)).toEqual(['a', 'b']);
    expect(question.line).toBe(4);
  });

  it('decodes the five XML entities and character references, and expands nothing else', () => {
    const question = only(
      readMoodleXml(
        quiz(
          `<question type="essay"><name><text>Fish &amp; chips &#233;</text></name>
            <questiontext format="html"><text>&lt;p&gt;&amp;lt;b&amp;gt; is a tag; &#x2603; &amp;nbsp;&amp;amp; &apos;q&quot; &undefined;&lt;/p&gt;</text></questiontext></question>`,
        ),
      ),
    );
    expect(question.name).toBe('Fish & chips é');
    expect(slideOf(question).text).toBe('<b> is a tag; ☃ & \'q" &undefined;');
  });

  it('reads HTML written as XML elements inside <text>', () => {
    const question = only(
      readMoodleXml(
        quiz(
          '<question type="essay"><name><text>x</text></name><questiontext format="html"><text><p>Is <b>1 &lt; 2</b>?</p></text></questiontext></question>',
        ),
      ),
    );
    expect(slideOf(question).text).toBe('Is 1 < 2?');
  });
});

describe('Moodle XML: images and audio', () => {
  it('resolves @@PLUGINFILE@@ to the <file> of that name, in a folder and URL-encoded', () => {
    const question = only(
      readMoodleXml(
        quiz(
          multichoice(
            '<p>Which?</p><p><img src="@@PLUGINFILE@@/sub%20dir/my%20cell.png?time=1" alt="cell"></p>',
            answer(100, 'a') + answer(0, 'b'),
            file('decoy.png', Buffer.from('not this one')) + file('my cell.png', PNG, '/sub dir/'),
          ),
        ),
      ),
    );
    const slide = choiceOf(question);
    expect(slide.text).toBe('Which?');
    expect(slide.image?.name).toBe('my cell.png');
    expect(bytesOf(slide.image)?.equals(PNG)).toBe(true);
    // The unreferenced image is one too many for a slide.
    expect(reasonsOf(question)).toEqual(['media_dropped']);
  });

  it('drops an <img> whose file is missing from the text, with no image and no change', () => {
    const question = only(
      readMoodleXml(
        quiz(
          multichoice(
            '<p>Look: <img src="@@PLUGINFILE@@/gone.png" alt="gone"> here</p>',
            answer(100, 'a') + answer(0, 'b'),
          ),
        ),
      ),
    );
    expect(choiceOf(question)).toMatchObject({ text: 'Look: here' });
    expect(choiceOf(question).image).toBeUndefined();
    expect(question.changes).toEqual([]);
  });

  it('puts an image in an <answer> on that option, and takes none from feedback', () => {
    const question = only(
      readMoodleXml(
        quiz(
          multichoice(
            '<p>Which colour is acid?</p>',
            answer(100, '<p>Red <img src="@@PLUGINFILE@@/red.png"></p>', file('red.png', PNG)) +
              answer(0, '<p><img src="@@PLUGINFILE@@/blue.png" alt="Blue swatch"></p>', file('blue.png', PNG)) +
              answer(0, 'Green', `<feedback format="html"><text>x</text>${file('fb.png', PNG)}</feedback>`),
            '',
          ).replace(
            '</questiontext>',
            `</questiontext><generalfeedback><text>y</text>${file('gf.png', PNG)}</generalfeedback>`,
          ),
        ),
      ),
    );
    const slide = choiceOf(question);
    expect(slide.image).toBeUndefined();
    expect(slide.options.map((option) => [option.label, option.image?.name])).toEqual([
      ['Red', 'red.png'],
      // An option that is only an image is labelled by its alt text.
      ['Blue swatch', 'blue.png'],
      ['Green', undefined],
    ]);
  });

  it('reads inline data: images and the Moodle 1.9 <image_base64>', () => {
    const bank = readMoodleXml(
      quiz(
        multichoice(
          `<p>Inline <img src="data:image/png;base64,${PNG.toString('base64')}"></p>`,
          answer(100, 'a') + answer(0, 'b'),
        ),
        `<question type="essay"><name><text>Old</text></name><questiontext format="html"><text>Old style</text></questiontext>
          <image>pics/old.png</image><image_base64>${PNG.toString('base64')}</image_base64></question>`,
      ),
    );
    expect(bytesOf(slideOf(bank.questions[0]!).image)?.equals(PNG)).toBe(true);
    expect(slideOf(bank.questions[1]!).image).toMatchObject({ name: 'old.png' });
  });

  it('skips a question whose only content is audio, and keeps one with text, the audio dropped', () => {
    const bank = readMoodleXml(
      quiz(
        multichoice(
          '<p><audio controls><source src="@@PLUGINFILE@@/q.mp3" type="audio/mpeg">Your browser cannot play this.</audio></p>',
          answer(100, 'a') + answer(0, 'b'),
          file('q.mp3', MP3),
        ),
        multichoice(
          '<p><a href="@@PLUGINFILE@@/listen.mp3">listen.mp3</a></p>',
          answer(100, 'a') + answer(0, 'b'),
          file('listen.mp3', MP3),
        ),
        `<question type="essay"><name><text>Bare</text></name><questiontext format="html"><text></text>${file('clip', MP3)}</questiontext></question>`,
        multichoice(
          '<p>Listen, then answer.</p><audio src="@@PLUGINFILE@@/q.mp3"></audio>',
          answer(100, 'a') + answer(0, 'b'),
          file('q.mp3', MP3),
        ),
      ),
    );
    expect(bank.questions.map((question) => question.skipped?.reason ?? question.slide?.kind)).toEqual([
      'audio',
      'audio',
      'audio',
      'choice',
    ]);
    expect(choiceOf(bank.questions[3]!).text).toBe('Listen, then answer.');
    expect(choiceOf(bank.questions[3]!).image).toBeUndefined();
    expect(reasonsOf(bank.questions[3]!)).toEqual(['media_dropped']);
    expect(bank.questions[3]!.changes[0]!.message).toContain('q.mp3');
  });

  it('does not take an audio file for an image, even when an <img> names it', () => {
    const question = only(
      readMoodleXml(
        quiz(
          multichoice(
            '<p>Hmm <img src="@@PLUGINFILE@@/x.mp3"></p>',
            answer(100, 'a') + answer(0, 'b'),
            file('x.mp3', MP3),
          ),
        ),
      ),
    );
    expect(choiceOf(question).image).toBeUndefined();
    expect(reasonsOf(question)).toEqual(['media_dropped']);
  });

  it('passes image bytes on undecoded: deciding whether they are an image is the service’s job', () => {
    const junk = Buffer.from('these bytes are not a PNG');
    const question = only(
      readMoodleXml(
        quiz(
          multichoice(
            '<p>Q <img src="@@PLUGINFILE@@/j.png"></p>',
            answer(100, 'a') + answer(0, 'b'),
            file('j.png', junk),
          ),
        ),
      ),
    );
    expect(bytesOf(choiceOf(question).image)?.equals(junk)).toBe(true);
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

/** The header row of Kahoot's quiz template, as published. */
const KAHOOT_HEADER = [
  '',
  'Question - max 120 characters',
  'Answer 1 - max 75 characters',
  'Answer 2 - max 75 characters',
  'Answer 3 - max 75 characters',
  'Answer 4 - max 75 characters',
  'Time limit (sec) – 5, 10, 20, 30, 60, 90, 120, or 240 secs',
  'Correct answer(s) - choose at least one',
];

type Row = (ExcelJS.CellValue | undefined)[];

/**
 * A workbook laid out as the template: "Quiz template" and instructions above, the header on row 8
 * (column A numbers the questions), the rows given below it.
 */
async function kahootWorkbook(rows: Row[], options: { header?: Row; headerRow?: number; sheets?: string[] } = {}) {
  const workbook = new ExcelJS.Workbook();
  for (const name of options.sheets ?? []) workbook.addWorksheet(name).getCell('A1').value = 'Notes';
  const sheet = workbook.addWorksheet('Sheet1');
  sheet.getCell('B2').value = 'Quiz template';
  sheet.getCell('B3').value = 'Add questions, at least two answer alternatives, time limit and choose correct answers.';
  sheet.getCell('B4').value = 'Question - keep it short';
  const headerRow = options.headerRow ?? 8;
  sheet.getRow(headerRow).values = (options.header ?? KAHOOT_HEADER) as ExcelJS.CellValue[];
  rows.forEach((row, index) => {
    sheet.getRow(headerRow + 1 + index).values = row as ExcelJS.CellValue[];
  });
  return new Uint8Array(await workbook.xlsx.writeBuffer());
}

describe('Kahoot spreadsheet', () => {
  it('reads the template: one choice per row, correct from the answer numbers, line = row', async () => {
    const bank = await readKahootXlsx(
      await kahootWorkbook([
        [1, 'Capital of France?', 'Berlin', 'Paris', 'Rome', 'Madrid', 20, 2],
        [2, 'Prime numbers?', '2', '4', '5', '', 30, '1,3'],
        [3, 'Which are  fruit? ', 'Apple', 'Carrot', 'Pear', 'Leek', 60, '1, 3'],
        [4, 'Yes or no?', 'Yes', 'No', '', '', 5, 1],
      ]),
    );
    expect(bank.questions.map((question) => [question.number, question.line])).toEqual([
      [1, 9],
      [2, 10],
      [3, 11],
      [4, 12],
    ]);
    const [france, primes, fruit, yes] = bank.questions;
    expect(slideOf(france!)).toEqual({
      kind: 'choice',
      text: 'Capital of France?',
      options: [{ label: 'Berlin' }, { label: 'Paris' }, { label: 'Rome' }, { label: 'Madrid' }],
      correct: [1],
      multiple: false,
    });
    expect(labelsOf(primes!)).toEqual(['2', '4', '5']);
    expect(correctLabelsOf(primes!)).toEqual(['2', '5']);
    expect(choiceOf(fruit!).text).toBe('Which are fruit?');
    expect(correctLabelsOf(fruit!)).toEqual(['Apple', 'Pear']);
    expect(labelsOf(yes!)).toEqual(['Yes', 'No']);
    for (const question of bank.questions) expect(question.changes).toEqual([]);
  });

  it('skips blank rows, numbered or not, without counting them', async () => {
    const bank = await readKahootXlsx(
      await kahootWorkbook([
        [1, 'First?', 'a', 'b', '', '', 20, 1],
        [],
        [2, '', '', '', '', '', 20, ''],
        [3, 'Second?', 'a', 'b', '', '', 20, 2],
        [4],
      ]),
    );
    expect(bank.questions.map((question) => [question.number, question.line, choiceOf(question).text])).toEqual([
      [1, 9, 'First?'],
      [2, 12, 'Second?'],
    ]);
  });

  it('skips as malformed a row whose correct answer names an empty answer, or names none', async () => {
    const bank = await readKahootXlsx(
      await kahootWorkbook([
        [1, 'Empty answer named?', 'a', 'b', '', '', 20, '1,3'],
        [2, 'No correct answer?', 'a', 'b', 'c', '', 20, ''],
        [3, 'Not a number?', 'a', 'b', '', '', 20, 'A'],
        [4, 'Out of range?', 'a', 'b', 'c', 'd', 20, 5],
        [5, '', 'answers', 'without question', '', '', 20, 1],
        [6, 'One answer?', 'a', '', '', '', 20, 1],
        [7, 'Fine?', 'a', 'b', '', '', 20, 2],
      ]),
    );
    expect(bank.questions.map((question) => question.skipped?.reason ?? 'ok')).toEqual([
      'malformed',
      'malformed',
      'malformed',
      'malformed',
      'malformed',
      'malformed',
      'ok',
    ]);
    expect(bank.questions.map((question) => question.line)).toEqual([9, 10, 11, 12, 13, 14, 15]);
    expect(bank.questions[0]!.skipped?.message).toMatch(/3/);
  });

  it('reads rich text, formulas and numbers as what the cells show', async () => {
    const bank = await readKahootXlsx(
      await kahootWorkbook([
        [
          1,
          { richText: [{ text: 'Bold ', font: { bold: true } }, { text: 'question?' }] },
          { formula: '1+1', result: 2 },
          3.5,
          true,
          '',
          20,
          { formula: '"1,2"', result: '1,2' },
        ],
        // "1,3" typed where the decimal separator is a comma is the number 1.3.
        [2, 'Decimal comma?', 'a', 'b', 'c', '', 20, 1.3],
      ]),
    );
    expect(choiceOf(bank.questions[0]!).text).toBe('Bold question?');
    expect(labelsOf(bank.questions[0]!)).toEqual(['2', '3.5', 'TRUE']);
    expect(correctLabelsOf(bank.questions[0]!)).toEqual(['2', '3.5']);
    expect(correctLabelsOf(bank.questions[1]!)).toEqual(['a', 'c']);
  });

  it('finds the header by its text, loosely: other dashes, other columns and rows, another sheet', async () => {
    const header = [
      'Question',
      'Correct answer(s)',
      'Time limit (sec)',
      'Answer 1 – max 75',
      'ANSWER 2',
      'answer 3 (optional)',
    ];
    const bank = await readKahootXlsx(
      await kahootWorkbook([['Loose?', 3, 20, 'x', 'y', 'z']], { header, headerRow: 3, sheets: ['Readme'] }),
    );
    const question = only(bank);
    expect(question.line).toBe(4);
    expect(labelsOf(question)).toEqual(['x', 'y', 'z']);
    expect(correctLabelsOf(question)).toEqual(['z']);
  });

  it('refuses a workbook without the header row', async () => {
    const header = ['Prompt', 'Option A', 'Option B', 'Right one'];
    const refused = await asyncRefusal(async () =>
      readKahootXlsx(await kahootWorkbook([['Q?', 'a', 'b', 'A']], { header })),
    );
    expect(refused.message).toMatch(/header/);
  });

  it.each([
    ['garbage', new TextEncoder().encode('Question,Answer 1\nhello,world\n')],
    ['empty', new Uint8Array(0)],
    ['a zip that is no workbook', zipSync({ 'hello.txt': new TextEncoder().encode('hi') })],
    ['an old .xls', Uint8Array.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, ...new Array(600).fill(0)])],
  ])('refuses %s as not an xlsx', async (_, bytes) => {
    const refused = await asyncRefusal(() => readKahootXlsx(bytes));
    expect(refused.message).toMatch(/not an xlsx/);
  });

  it('refuses a sheet of more than 1,000 rows, and reads one of 1,000', async () => {
    const row = (index: number): Row => [index, `Q${index}?`, 'a', 'b', '', '', 20, 1];
    // The header is row 8: these end on row 1,001.
    const many = Array.from({ length: 1000 - 8 + 1 }, (_, index) => row(index + 1));
    const refused = await asyncRefusal(async () => readKahootXlsx(await kahootWorkbook(many)));
    expect(refused.message).toMatch(/1,000 rows/);
    const bank = await readKahootXlsx(await kahootWorkbook(many.slice(0, -1)));
    expect(bank.questions).toHaveLength(1000 - 8);
    expect(bank.questions.at(-1)?.line).toBe(1000);

    // Ten times as many rows: exceljs stops at the 1,001st <row> instead of reading them all.
    const tenfold = Array.from({ length: 10_000 }, (_, index) => row(index + 1));
    expect((await asyncRefusal(async () => readKahootXlsx(await kahootWorkbook(tenfold)))).message).toMatch(
      /1,000 rows/,
    );
  });

  it('refuses a single row numbered past 1,000', async () => {
    const workbook = new ExcelJS.Workbook();
    const sheet = workbook.addWorksheet('Sheet1');
    sheet.getRow(8).values = KAHOOT_HEADER;
    sheet.getRow(9).values = [1, 'Q?', 'a', 'b', '', '', 20, 1];
    sheet.getRow(50_000).values = [2, 'Far away?', 'a', 'b', '', '', 20, 1];
    const bytes = new Uint8Array(await workbook.xlsx.writeBuffer());
    expect((await asyncRefusal(() => readKahootXlsx(bytes))).message).toMatch(/1,000 rows/);
  });

  it('refuses a zip bomb before exceljs inflates it, and a part whose declared size lies', async () => {
    const workbook = await kahootWorkbook([[1, 'Q?', 'a', 'b', '', '', 20, 1]]);
    const { unzipSync } = await import('fflate');
    const parts = unzipSync(workbook);
    const bomb = zipSync({ ...parts, 'xl/media/huge.bin': new Uint8Array(KAHOOT_MAX_UNZIPPED_BYTES + 1) });
    expect(bomb.length).toBeLessThan(200_000);
    expect((await asyncRefusal(() => readKahootXlsx(bomb))).message).toMatch(/unpacks/);

    // The same bomb, its central directory claiming 1 byte: the inflating itself is capped.
    const liar = Buffer.from(bomb);
    const name = Buffer.from('xl/media/huge.bin');
    for (let pos = liar.indexOf(name); pos >= 0; pos = liar.indexOf(name, pos + 1)) {
      if (liar.readUInt32LE(pos - 46) === 0x02014b50) liar.writeUInt32LE(1, pos - 46 + 24);
    }
    expect((await asyncRefusal(() => readKahootXlsx(liar))).message).toMatch(/unpacks/);
  });

  it('reads a workbook handed over as a view into a larger buffer', async () => {
    const workbook = await kahootWorkbook([[1, 'Q?', 'a', 'b', '', '', 20, 2]]);
    const padded = new Uint8Array(workbook.length + 20);
    padded.set(workbook, 10);
    expect(correctLabelsOf(only(await readKahootXlsx(padded.subarray(10, 10 + workbook.length))))).toEqual(['b']);
  });
});
