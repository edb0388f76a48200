/**
 * The Moodle XML reader (server/src/modules/decks/formats/moodle-xml.ts), rule by rule on questions
 * written here: each question kind, malformed questions skipped while the rest is read, and images
 * and audio. Whole documents (the blind fixtures, refusals, size): deck-readers-moodle.documents.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { readMoodleXml } from '../../src/modules/decks/formats/moodle-xml.js';
import { choiceOf, correctLabelsOf, labelsOf, only, slideOf } from '../support/bank-expectations.js';
import { answer, bytesOf, file, MP3, multichoice, PNG, quiz, reasonsOf } from '../support/moodle-xml.js';

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
