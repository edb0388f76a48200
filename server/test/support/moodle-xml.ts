/**
 * Moodle XML written in a test (server/test/unit/deck-readers-moodle.*.test.ts): a quiz file around
 * questions, a multichoice question, its answers and embedded files, and what to read back of a
 * question (its images' bytes, the reasons of its changes).
 */
import type { BankImage, BankQuestion } from '../../src/modules/decks/bank.js';

/** An embedded image's bytes; undefined for none, or for one linked by address. */
export const bytesOf = (image: BankImage | undefined) => (image && 'bytes' in image ? image.bytes : undefined);

export function reasonsOf(question: BankQuestion): string[] {
  return question.changes.map((change) => change.reason);
}

/** A Moodle XML file around the questions given. */
export function quiz(...questions: string[]): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<quiz>\n${questions.join('\n')}\n</quiz>\n`;
}

export function multichoice(text: string, answers: string, extra = ''): string {
  return `<question type="multichoice">
  <name><text>Q</text></name>
  <questiontext format="html"><text><![CDATA[${text}]]></text>${extra}</questiontext>
  <single>true</single>
  ${answers}
</question>`;
}

export function answer(fraction: number, text: string, extra = ''): string {
  return `<answer fraction="${fraction}" format="html"><text><![CDATA[${text}]]></text>${extra}</answer>`;
}

export const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAQAAAAECAIAAAAmkwkpAAAAEElEQVR42mO4IyIHRwzEcQDC4xDhoCVs3QAAAABJRU5ErkJggg==',
  'base64',
);
export const MP3 = Buffer.from('ID3\u0003\u0000\u0000\u0000\u0000\u0000\u0000 fake frames', 'latin1');

export function file(name: string, bytes: Buffer, path = '/'): string {
  return `<file name="${name}" path="${path}" encoding="base64">${bytes.toString('base64')}</file>`;
}
