/**
 * The Kahoot spreadsheet reader (server/src/modules/decks/formats/kahoot-xlsx.ts), rule by rule.
 * Workbooks are built here with exceljs, laid out as Kahoot's template is: title and instruction
 * rows, then the header row.
 */
import ExcelJS from 'exceljs';
import { zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { BankRefused } from '../../src/modules/decks/bank.js';
import { KAHOOT_MAX_UNZIPPED_BYTES, readKahootXlsx } from '../../src/modules/decks/formats/kahoot-xlsx.js';
import { choiceOf, correctLabelsOf, labelsOf, only, slideOf } from '../support/bank-expectations.js';

async function asyncRefusal(read: () => Promise<unknown>): Promise<BankRefused> {
  try {
    await read();
  } catch (error) {
    expect(error).toBeInstanceOf(BankRefused);
    return error as BankRefused;
  }
  throw new Error('expected the file to be refused');
}

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
