/**
 * The Aiken format (https://docs.moodle.org/en/Aiken_format) read into a question bank: a question's
 * text, its options `A)` / `A.`, then `ANSWER: X`. Plain text: nothing is unescaped or rendered.
 */
import { type Bank, type BankQuestion, BankRefused, refusePastQuestionLimit } from '../bank.js';
import { collapseWhitespace } from './plain-text.js';
import { linesOfTextFile } from './text-file.js';

/** A question as it is gathered line by line. */
interface Draft {
  /** The first line of its text, or of its first option when it has no text. */
  line: number;
  textLines: string[];
  /** Whether a blank line came after the text, before anything else. */
  blankAfterText: boolean;
  options: { letter: string; label: string; line: number }[];
}

const OPTION = /^([A-Za-z])(?:\)[ \t]*|\.(?:[ \t]+|$))(.*)$/;
const ANSWER = /^ANSWER[ \t]*:(.*)$/i;

export function readAiken(text: string): Bank {
  const lines = linesOfTextFile(text, 'Aiken');
  if (!lines.some((line) => ANSWER.test(line.trim()))) {
    throw new BankRefused('The file is not Aiken: no line in it is an ANSWER: line.', [
      { message: 'An Aiken question ends with a line such as "ANSWER: B"; the file has none.' },
    ]);
  }

  const questions: BankQuestion[] = [];
  let draft: Draft | undefined;
  const addMalformed = (line: number, problem: string) => {
    const number = questions.length + 1;
    questions.push({
      number,
      line,
      skipped: { reason: 'malformed', message: `Question ${number}, on line ${line}, ${problem}.` },
      changes: [],
    });
    refusePastQuestionLimit(questions);
  };
  const endUnanswered = () => {
    if (draft === undefined) return;
    addMalformed(
      draft.line,
      draft.options.length === 0 ? 'has no options and no ANSWER: line' : 'has no ANSWER: line after its options',
    );
    draft = undefined;
  };

  lines.forEach((rawLine, index) => {
    const lineNumber = index + 1;
    const line = rawLine.trim();
    if (line === '') {
      if (draft !== undefined && draft.options.length === 0) draft.blankAfterText = true;
      return;
    }
    const answer = ANSWER.exec(line);
    if (answer) {
      if (draft === undefined) {
        addMalformed(lineNumber, 'has an ANSWER: line with no question or options before it');
      } else {
        const question = questionOf(draft, answer[1]!.trim(), questions.length + 1);
        if (typeof question === 'string') addMalformed(draft.line, question);
        else {
          questions.push(question);
          refusePastQuestionLimit(questions);
        }
      }
      draft = undefined;
      return;
    }
    const option = OPTION.exec(line);
    if (option) {
      draft ??= { line: lineNumber, textLines: [], blankAfterText: false, options: [] };
      draft.options.push({ letter: option[1]!.toUpperCase(), label: collapseWhitespace(option[2]!), line: lineNumber });
      return;
    }
    // A text line after options, or after a paragraph and a blank line, is a new question: the one
    // before lost its ANSWER: line, and must not take this one's text with it.
    if (draft !== undefined && (draft.options.length > 0 || draft.blankAfterText)) endUnanswered();
    draft ??= { line: lineNumber, textLines: [], blankAfterText: false, options: [] };
    draft.textLines.push(line);
  });
  endUnanswered();
  return { questions };
}

/** The question, or what is wrong with it (completing "Question N, on line L, …"). */
function questionOf(draft: Draft, answer: string, number: number): BankQuestion | string {
  const text = collapseWhitespace(draft.textLines.join(' '));
  if (text === '') return 'has options but no question text';
  if (draft.options.length === 0) return 'has no options (lines such as "A) …") before its ANSWER: line';
  const seen = new Set<string>();
  for (const option of draft.options) {
    if (seen.has(option.letter)) return `has two options labelled ${option.letter} (the second on line ${option.line})`;
    seen.add(option.letter);
    if (option.label === '') return `has an option ${option.letter} with no text, on line ${option.line}`;
  }
  if (answer === '') return 'has an ANSWER: line that names no option';
  const letter = /^([A-Za-z])[).]?$/.exec(answer)?.[1]?.toUpperCase();
  if (letter === undefined) return `has "ANSWER: ${answer}", which is not one option letter`;
  const correct = draft.options.findIndex((option) => option.letter === letter);
  if (correct < 0) return `gives ANSWER: ${letter}, but it has no option ${letter}`;
  return {
    number,
    line: draft.line,
    slide: {
      kind: 'choice',
      text,
      options: draft.options.map((option) => ({ label: option.label })),
      correct: [correct],
      multiple: false,
    },
    changes: [],
  };
}
