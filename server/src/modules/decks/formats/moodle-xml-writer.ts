import type { Media, MultipleChoiceSlide, Option, QuizSlide, Slide } from '@pollkit/contracts';
import type { DeckFile, DeckToWrite, SkippedSlide } from '../deck-file.js';
import { creditShares, tooManyCorrectMessage } from './gift-writer.js';

/**
 * A deck as Moodle XML (`<quiz>`), one `<question>` a slide, `<name>` its slide id:
 * - quiz and multiple_choice: `multichoice`. A quiz's correct options share a fraction of 100 (in
 *   the steps Moodle accepts, `creditShares`); `<single>` is true when one option is correct, and
 *   with several correct the wrong ones are -100, as in the GIFT writer. A multiple-choice slide
 *   grades every option 0 and takes `<single>` from its type (Moodle imports it with a notice that
 *   no answer gets full marks).
 * - open_ended: `essay` (plain-text answers); content: `description`.
 * - scale, ranking, qa: skipped, Moodle XML has no such question.
 * Texts are HTML (escaped, line breaks as `<br>`) in CDATA sections, as Moodle writes them; images
 * are `<img src>` pointing at the stored copy, never embedded, and other media a link.
 */
export function writeMoodleXml(deck: DeckToWrite): DeckFile {
  const questions: string[] = [];
  const skipped: SkippedSlide[] = [];
  deck.content.questions.forEach((slide, index) => {
    const written = moodleQuestion(slide);
    if (typeof written === 'string') questions.push(written);
    else skipped.push({ number: index + 1, slideId: slide.id, kind: slide.kind, message: written.skip });
  });
  return {
    body: ['<?xml version="1.0" encoding="UTF-8"?>', '<quiz>', ...questions, '</quiz>', ''].join('\n'),
    skipped,
  };
}

function moodleQuestion(slide: Slide): string | { skip: string } {
  switch (slide.kind) {
    case 'quiz':
      return quizQuestion(slide);
    case 'multiple_choice':
      return multichoice(
        slide,
        slide.options.map(() => '0'),
        slide.type === 'single',
      );
    case 'open_ended':
      return question('essay', slide, [
        '<defaultgrade>1</defaultgrade>',
        '<penalty>0</penalty>',
        '<hidden>0</hidden>',
        '<responseformat>plain</responseformat>',
        '<responserequired>1</responserequired>',
        '<responsefieldlines>10</responsefieldlines>',
        '<attachments>0</attachments>',
        '<attachmentsrequired>0</attachmentsrequired>',
        ...htmlField('graderinfo', ''),
        ...htmlField('responsetemplate', ''),
      ]);
    case 'content':
      return question('description', slide, [
        '<defaultgrade>0</defaultgrade>',
        '<penalty>0</penalty>',
        '<hidden>0</hidden>',
      ]);
    case 'scale':
      return { skip: 'Moodle XML has no rating-scale question.' };
    case 'ranking':
      return { skip: 'Moodle XML has no ordering question.' };
    case 'qa':
      return { skip: 'Audience Q&A collects questions from the audience; Moodle XML has no such question.' };
  }
}

function quizQuestion(slide: QuizSlide): string | { skip: string } {
  const correct = new Set(slide.correctOptionIds);
  if (correct.size === 1) {
    return multichoice(
      slide,
      slide.options.map((option) => (correct.has(option.id) ? '100' : '0')),
      true,
    );
  }
  const shares = creditShares(correct.size);
  if (!shares) return { skip: tooManyCorrectMessage(correct.size) };
  let next = 0;
  return multichoice(
    slide,
    slide.options.map((option) => (correct.has(option.id) ? shares[next++]! : '-100')),
    false,
  );
}

function multichoice(slide: QuizSlide | MultipleChoiceSlide, fractions: string[], single: boolean): string {
  return question('multichoice', slide, [
    '<defaultgrade>1</defaultgrade>',
    '<penalty>0.3333333</penalty>',
    '<hidden>0</hidden>',
    `<single>${single}</single>`,
    '<shuffleanswers>false</shuffleanswers>',
    '<answernumbering>abc</answernumbering>',
    ...htmlField('correctfeedback', ''),
    ...htmlField('partiallycorrectfeedback', ''),
    ...htmlField('incorrectfeedback', ''),
    ...slide.options.flatMap((option, index) => answer(option, fractions[index]!)),
  ]);
}

function answer(option: Option, fraction: string): string[] {
  return [
    `<answer fraction="${fraction}" format="html">`,
    `  <text>${cdata(optionHtml(option))}</text>`,
    ...htmlField('feedback', '').map((line) => `  ${line}`),
    '</answer>',
  ];
}

function question(type: string, slide: Slide, fields: string[]): string {
  return [
    `  <question type="${type}">`,
    '    <name>',
    `      <text>${escapeXml(slide.id)}</text>`,
    '    </name>',
    ...[...htmlField('questiontext', slideHtml(slide)), ...htmlField('generalfeedback', ''), ...fields].map(
      (line) => `    ${line}`,
    ),
    '  </question>',
  ].join('\n');
}

function htmlField(name: string, html: string): string[] {
  return [`<${name} format="html">`, `  <text>${html === '' ? '' : cdata(html)}</text>`, `</${name}>`];
}

function slideHtml(slide: Slide): string {
  const text = `<p>${htmlText(slide.text)}</p>`;
  return slide.media ? `${text}<p>${mediaHtml(slide.media)}</p>` : text;
}

function optionHtml(option: Option): string {
  return option.media ? `${htmlText(option.label)}<br>${mediaHtml(option.media)}` : htmlText(option.label);
}

/** Plain text as HTML: escaped, line breaks kept as `<br>`. */
function htmlText(text: string): string {
  return escapeXml(text.replace(/\r\n?/g, '\n')).replace(/\n/g, '<br>');
}

/** An image as a reference to its stored copy (the original address when none); other media as a link. */
function mediaHtml(media: Media): string {
  if (media.type === 'image') {
    const size = `${media.width ? ` width="${media.width}"` : ''}${media.height ? ` height="${media.height}"` : ''}`;
    return `<img src="${escapeXml(media.storedUrl ?? media.url)}" alt=""${size}>`;
  }
  return `<a href="${escapeXml(media.url)}">${escapeXml(media.url)}</a>`;
}

/** A CDATA section holding `text`; a `]]>` inside is split across two sections. */
export function cdata(text: string): string {
  return `<![CDATA[${xmlCharacters(text).replace(/]]>/g, ']]]]><![CDATA[>')}]]>`;
}

/** Text for XML content or a double-quoted attribute (and for HTML, alike). */
export function escapeXml(text: string): string {
  return xmlCharacters(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/**
 * Slide texts may hold control characters that XML 1.0 cannot hold at all, not even escaped (any
 * C0 control but tab and line breaks, and U+FFFE/U+FFFF): they are left out.
 */
export function xmlCharacters(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing them is the point.
  return text.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, '');
}
