import type { MultipleChoiceSlide, QuizSlide, Slide } from '@pollkit/contracts';
import type { DeckFile, DeckToWrite, SkippedSlide } from '../deck-file.js';
import { hasMarkup } from './plain-text.js';

/**
 * A deck as Moodle GIFT text: one question a block, blocks apart by a blank line, each named
 * `::<slide id>::` so that a reader finds the slide again.
 *
 * - quiz: one correct option is `=`, the others `~`. Several correct options are `~%share%`, the
 *   shares adding up to 100 (`creditShares`), and the wrong ones `~%-100%`: Moodle then makes a
 *   multiple-answer question (it allows several answers when no answer starts with `=`), and a
 *   wrong tick cancels the marks, so ticking every box does not score (Moodle's own GIFT example
 *   of a multiple-answer question does the same).
 * - multiple_choice: every option a bare `~`. Moodle imports a choice question whose answers all
 *   grade 0 % (with the notice that the grades do not add up to 100 %), GIFT readers read choices
 *   none of which is correct. GIFT cannot say whether one or several may be chosen: with no `=`,
 *   Moodle allows several.
 * - open_ended: an essay (`{}`); content: a description (no braces).
 * - scale, ranking, qa: skipped, GIFT has no such question.
 * Media cannot travel in GIFT and is left out without a word: it is part of a slide, not one.
 */
export function writeGift(deck: DeckToWrite): DeckFile {
  const questions: string[] = [];
  const skipped: SkippedSlide[] = [];
  deck.content.questions.forEach((slide, index) => {
    const written = giftQuestion(slide);
    if ('skip' in written) {
      skipped.push({ number: index + 1, slideId: slide.id, kind: slide.kind, message: written.skip });
    } else {
      questions.push(written.text);
    }
  });
  return { body: questions.map((question) => `${question}\n`).join('\n'), skipped };
}

type Written = { text: string } | { skip: string };

function giftQuestion(slide: Slide): Written {
  switch (slide.kind) {
    case 'quiz':
      return choiceQuestion(slide, quizMarks(slide));
    case 'multiple_choice':
      return choiceQuestion(
        slide,
        slide.options.map(() => '~'),
      );
    case 'open_ended':
      return { text: `${questionHead(slide, texts(slide))}{}` };
    case 'content':
      return { text: questionHead(slide, texts(slide)) };
    case 'scale':
      return { skip: 'GIFT has no rating-scale question.' };
    case 'ranking':
      return { skip: 'GIFT has no ordering question.' };
    case 'qa':
      return { skip: 'Audience Q&A collects questions from the audience; GIFT has no such question.' };
  }
}

/** What goes before each option's label (`=`, `~`, `~%50%`…), or why the quiz cannot be written. */
function quizMarks(slide: QuizSlide): string[] | { skip: string } {
  const correct = new Set(slide.correctOptionIds);
  if (correct.size === 1) return slide.options.map((option) => (correct.has(option.id) ? '=' : '~'));
  const shares = creditShares(correct.size);
  if (!shares) return { skip: tooManyCorrectMessage(correct.size) };
  let next = 0;
  return slide.options.map((option) => (correct.has(option.id) ? `~%${shares[next++]}%` : '~%-100%'));
}

function choiceQuestion(slide: QuizSlide | MultipleChoiceSlide, marks: string[] | { skip: string }): Written {
  if (!Array.isArray(marks)) return marks;
  const html = needsHtml(texts(slide));
  const answers = slide.options.map((option, index) => `\t${marks[index]}${giftText(option.label, html)}`);
  return { text: [`${questionHead(slide, texts(slide))}{`, ...answers, '}'].join('\n') };
}

function questionHead(slide: Slide, slideTexts: string[]): string {
  const html = needsHtml(slideTexts);
  return `::${giftText(slide.id, false)}::${html ? '[html]' : ''}${giftText(slide.text, html)}`;
}

function texts(slide: Slide): string[] {
  return 'options' in slide ? [slide.text, ...slide.options.map((option) => option.label)] : [slide.text];
}

/**
 * Whether a slide must be written as `[html]`: its text would otherwise be misread. Moodle shows
 * GIFT text in its own format, where `<b>` is a tag and `&amp;` an entity, and GIFT readers strip
 * markup the same way; a leading `[html]` or `[plain]` would be taken for a format; a leading `%`
 * on an option for a weight; `->` makes a GIFT parser try a matching question. As HTML, all of them
 * can be escaped. Moodle reads the options in the question's format, so one such text decides for
 * the whole slide.
 */
function needsHtml(slideTexts: string[]): boolean {
  return slideTexts.some(
    (text) =>
      hasMarkup(text) ||
      /^\s*\[(html|moodle|plain|markdown)\]/i.test(text) ||
      /^\s*%/.test(text) ||
      text.includes('->'),
  );
}

/** Text as GIFT holds it on one line: markup escaped when `html`, then GIFT's escapes. */
function giftText(text: string, html: boolean): string {
  const lines = text.replace(/\r\n?/g, '\n');
  const content = html
    ? escapeHtml(lines)
        .replace(/^(\s*)\[/, '$1&#91;')
        .replace(/^(\s*)%/, '$1&#37;')
        .replace(/\n/g, '<br>')
    : lines;
  return content.replace(/[\\~=#{}:]/g, (character) => `\\${character}`).replace(/\n/g, '\\n');
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * Moodle grades an answer only in the steps of its grade list (question_bank::fraction_options:
 * 100, 90, 83.33333, 80, 75, 70, 66.66667, 60, 50, 40, 33.33333, 30, 25, 20, 16.66667, 14.28571,
 * 12.5, 11.11111, 10, 5 %) and refuses a question on import when a grade is off the list by more
 * than 0.001 %. Hence, for `count` correct options sharing 100 %:
 * - 1-10 and 20: equal shares in steps of 0.00001 %, the first ones one step larger so that the
 *   written numbers add up to exactly 100 (each stays within 0.001 % of its list entry);
 * - 11-19: no list entry is near 100/count, so 10 % for the first 20 - count and 5 % for the rest;
 * - more than 20: impossible (5 % is the smallest step): `null`.
 */
export function creditShares(count: number): string[] | null {
  if (!Number.isInteger(count) || count < 1 || count > MOST_SHARED_CORRECT_OPTIONS) return null;
  if (count <= 10 || count === 20) {
    const hundredPercent = 10_000_000;
    const base = Math.floor(hundredPercent / count);
    const larger = hundredPercent - base * count;
    return Array.from({ length: count }, (_, index) => percentOfSteps(base + (index < larger ? 1 : 0)));
  }
  const tens = 20 - count;
  return Array.from({ length: count }, (_, index) => (index < tens ? '10' : '5'));
}

/** The most correct options Moodle's grade list can share 100 % between. */
const MOST_SHARED_CORRECT_OPTIONS = 20;

export function tooManyCorrectMessage(count: number): string {
  return `Moodle grades in steps no finer than 5 %, so at most ${MOST_SHARED_CORRECT_OPTIONS} correct options can share the marks; this quiz has ${count}.`;
}

function percentOfSteps(steps: number): string {
  return (steps / 100_000).toFixed(5).replace(/\.?0+$/, '');
}
