import type { QuizSlide, Slide } from '@pollkit/contracts';
import type { DeckFile, DeckToWrite, SkippedSlide } from '../deck-file.js';
import { collapseWhitespace } from './plain-text.js';

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/**
 * A deck as Aiken text: the question on one line, `A. option` lines, `ANSWER: B`, a blank line.
 * Aiken holds nothing but single-answer multiple choice with at most 26 options, so every other
 * slide is skipped with the reason. Text goes on one line (line breaks become spaces) because
 * Aiken has no escapes: a line is a question, an option or an answer by how it starts.
 */
export function writeAiken(deck: DeckToWrite): DeckFile {
  const questions: string[] = [];
  const skipped: SkippedSlide[] = [];
  deck.content.questions.forEach((slide, index) => {
    const written = aikenQuestion(slide);
    if (typeof written === 'string') questions.push(written);
    else skipped.push({ number: index + 1, slideId: slide.id, kind: slide.kind, message: written.skip });
  });
  return { body: questions.map((question) => `${question}\n`).join('\n'), skipped };
}

function aikenQuestion(slide: Slide): string | { skip: string } {
  if (slide.kind === 'multiple_choice') {
    return { skip: 'An Aiken question needs one correct answer; this multiple-choice slide has none.' };
  }
  if (slide.kind !== 'quiz') {
    return { skip: 'Aiken holds only multiple-choice questions with one correct answer.' };
  }
  return quizQuestion(slide);
}

function quizQuestion(slide: QuizSlide): string | { skip: string } {
  const correct = slide.correctOptionIds;
  if (correct.length !== 1) {
    return { skip: `An Aiken question has exactly one correct answer; this quiz has ${correct.length}.` };
  }
  if (slide.options.length > LETTERS.length) {
    return {
      skip: `Aiken letters options A to Z, so at most ${LETTERS.length} fit; this quiz has ${slide.options.length}.`,
    };
  }
  const text = collapseWhitespace(slide.text);
  // Moodle's reader skips lines shorter than two characters, and takes a line for an option or for
  // the answer by its start: such a question text would be misread, and Aiken cannot escape it.
  if (text.length < 2) return { skip: 'Aiken readers ignore a question text shorter than two characters.' };
  if (/^[A-Za-z][.)](\s|$)/.test(text) || /^ANSWER\s*:/i.test(text)) {
    return { skip: 'The question text starts like an Aiken option or answer line, and Aiken cannot escape it.' };
  }
  const labels = slide.options.map((option) => collapseWhitespace(option.label));
  if (labels.some((label) => label === '')) return { skip: 'An option has no text, which Aiken cannot hold.' };
  const answer = LETTERS[slide.options.findIndex((option) => option.id === correct[0])];
  return [text, ...labels.map((label, index) => `${LETTERS[index]}. ${label}`), `ANSWER: ${answer}`].join('\n');
}
