import { promisify } from 'node:util';
import { inflateRaw } from 'node:zlib';
import type { CellValue, Workbook, Worksheet } from 'exceljs';
import { type Bank, type BankQuestion, BankRefused } from '../bank.js';
import { collapseWhitespace } from './plain-text.js';

/** Rows a sheet may have; past them the workbook is refused (exceljs stops reading at the 1,001st). */
const KAHOOT_MAX_ROWS = 1000;
/** Cells a row may have: the template has eight columns. */
const MAX_COLUMNS = 200;
/** What the zip may unpack to, all parts together: a 2 MiB file of text inflates far less. */
export const KAHOOT_MAX_UNZIPPED_BYTES = 32 * 1024 * 1024;
const MAX_ZIP_ENTRIES = 500;

const inflateRawAsync = promisify(inflateRaw);

/**
 * Kahoot's quiz spreadsheet template (xlsx) -> a Bank. The template has a few title and instruction
 * rows, then a header row ("Question - max 120 characters", "Answer 1 - max 75 characters" … "Answer 4
 * - max 75 characters", "Time limit (sec) – 5, 10, 20, 30, 60, 90, 120, or 240 secs", "Correct
 * answer(s) - choose at least one"), and a question per row below it. The header row is found by its
 * text, in any sheet, at any row and column. Every question is a choice; its line is its row.
 *
 * The zip is checked before exceljs sees it (exceljs inflates every part whole, with no limit of its
 * own): each part is inflated once here with a cap on what it may produce, so a zip bomb, or a part
 * whose declared size lies, is refused having cost at most the cap.
 */
export async function readKahootXlsx(bytes: Uint8Array): Promise<Bank> {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  await checkZip(buffer);
  const workbook = await loadWorkbook(buffer);
  for (const sheet of workbook.worksheets) {
    // exceljs counted the <row> elements; a row may also be numbered far below the ones before it.
    let last = 0;
    sheet.eachRow((_, rowNumber) => {
      last = rowNumber;
    });
    if (last > KAHOOT_MAX_ROWS) refuseRows();
  }
  for (const sheet of workbook.worksheets) {
    const header = findHeader(sheet);
    if (header) return { questions: readRows(sheet, header) };
  }
  throw new BankRefused('The workbook is not a Kahoot quiz spreadsheet: no sheet has its header row.', [
    {
      message:
        'Kahoot’s template has a row headed "Question", "Answer 1" … "Answer 4", "Time limit (sec)" and "Correct answer(s)".',
    },
  ]);
}

function notXlsx(message: string): never {
  throw new BankRefused('The file is not an xlsx workbook.', [{ message }]);
}

// ---------------------------------------------------------------------------------------------
// The zip, before exceljs

interface ZipEntry {
  name: string;
  method: number;
  flags: number;
  compressedSize: number;
  size: number;
  localOffset: number;
}

async function checkZip(buffer: Buffer): Promise<void> {
  const entries = centralDirectory(buffer);
  const names = new Set(entries.map((entry) => entry.name.replace(/^\//, '')));
  if (!names.has('xl/workbook.xml')) notXlsx('It is a zip, but has no xl/workbook.xml.');
  const declared = entries.reduce((sum, entry) => sum + entry.size, 0);
  if (declared > KAHOOT_MAX_UNZIPPED_BYTES) refuseZipBomb();

  let total = 0;
  for (const entry of entries) {
    if (entry.flags & 0x1) notXlsx(`Its part ${entry.name} is encrypted.`);
    const data = entryData(buffer, entry);
    let content: Buffer;
    if (entry.method === 0) {
      content = data;
    } else if (entry.method === 8) {
      try {
        // The cap is what is left of the budget, whatever the entry declares.
        content = await inflateRawAsync(data, { maxOutputLength: Math.max(1, KAHOOT_MAX_UNZIPPED_BYTES - total) });
      } catch (error) {
        if (error instanceof RangeError || (error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') {
          refuseZipBomb();
        }
        notXlsx(`Its part ${entry.name} cannot be unpacked.`);
      }
    } else {
      notXlsx(`Its part ${entry.name} is packed in a way xlsx files are not (method ${entry.method}).`);
    }
    total += content.length;
    if (total > KAHOOT_MAX_UNZIPPED_BYTES) refuseZipBomb();
    // exceljs's XML reader does not expand entities, but a part that declares them is not Excel's.
    if (/\.(xml|rels)$/i.test(entry.name) && content.includes('<!ENTITY')) {
      notXlsx(`Its part ${entry.name} declares XML entities.`);
    }
  }
}

function refuseZipBomb(): never {
  throw new BankRefused('The workbook unpacks to more than a question spreadsheet can hold: it was refused.', [
    { message: `Its parts unpack to more than ${KAHOOT_MAX_UNZIPPED_BYTES / 1024 / 1024} MiB.` },
  ]);
}

/** The entries the zip's central directory lists (what JSZip, and so exceljs, reads too). */
function centralDirectory(buffer: Buffer): ZipEntry[] {
  const end = endOfCentralDirectory(buffer);
  if (end < 0) notXlsx('It is not a zip archive, as an xlsx file is.');
  const count = buffer.readUInt16LE(end + 10);
  const size = buffer.readUInt32LE(end + 12);
  const offset = buffer.readUInt32LE(end + 16);
  // Zip64 is for archives past 4 GiB: a question spreadsheet under 2 MiB never needs it.
  if (count === 0xffff || size === 0xffffffff || offset === 0xffffffff) notXlsx('It is a Zip64 archive.');
  if (count > MAX_ZIP_ENTRIES) notXlsx(`It has ${count} parts; a workbook has a few dozen.`);
  if (offset + size > buffer.length) notXlsx('Its zip directory is cut short.');

  const entries: ZipEntry[] = [];
  let pos = offset;
  for (let index = 0; index < count; index++) {
    if (pos + 46 > buffer.length || buffer.readUInt32LE(pos) !== 0x02014b50) notXlsx('Its zip directory is damaged.');
    const nameLength = buffer.readUInt16LE(pos + 28);
    const extraLength = buffer.readUInt16LE(pos + 30);
    const commentLength = buffer.readUInt16LE(pos + 32);
    const entry: ZipEntry = {
      flags: buffer.readUInt16LE(pos + 8),
      method: buffer.readUInt16LE(pos + 10),
      compressedSize: buffer.readUInt32LE(pos + 20),
      size: buffer.readUInt32LE(pos + 24),
      localOffset: buffer.readUInt32LE(pos + 42),
      name: buffer.toString('utf8', pos + 46, Math.min(buffer.length, pos + 46 + nameLength)),
    };
    if (entry.compressedSize === 0xffffffff || entry.size === 0xffffffff || entry.localOffset === 0xffffffff) {
      notXlsx('It is a Zip64 archive.');
    }
    entries.push(entry);
    pos += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

function endOfCentralDirectory(buffer: Buffer): number {
  // The record is 22 bytes, followed by a comment of at most 65,535.
  const lowest = Math.max(0, buffer.length - 22 - 0xffff);
  for (let pos = buffer.length - 22; pos >= lowest; pos--) {
    if (buffer.readUInt32LE(pos) === 0x06054b50) return pos;
  }
  return -1;
}

function entryData(buffer: Buffer, entry: ZipEntry): Buffer {
  const at = entry.localOffset;
  if (at + 30 > buffer.length || buffer.readUInt32LE(at) !== 0x04034b50) notXlsx(`Its part ${entry.name} is missing.`);
  const start = at + 30 + buffer.readUInt16LE(at + 26) + buffer.readUInt16LE(at + 28);
  if (start + entry.compressedSize > buffer.length) notXlsx(`Its part ${entry.name} is cut short.`);
  return buffer.subarray(start, start + entry.compressedSize);
}

// ---------------------------------------------------------------------------------------------
// The workbook

async function loadWorkbook(buffer: Buffer): Promise<Workbook> {
  // exceljs takes a while to load and only this reader needs it.
  const { default: ExcelJS } = await import('exceljs');
  const workbook = new ExcelJS.Workbook();
  try {
    // `maxRows` / `maxCols` are read by exceljs's worksheet parser, though its typings omit them.
    const options = { maxRows: KAHOOT_MAX_ROWS, maxCols: MAX_COLUMNS, ignoreNodes: [] as string[] };
    // exceljs types `load` with an ArrayBuffer-like `Buffer` of its own; JSZip reads a Node Buffer.
    await workbook.xlsx.load(buffer as unknown as Parameters<typeof workbook.xlsx.load>[0], options);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (/max row count/i.test(message)) refuseRows();
    if (/max column count/i.test(message)) notXlsx(`A row has more than ${MAX_COLUMNS} cells.`);
    notXlsx(`It cannot be read as a workbook (${message}).`);
  }
  return workbook;
}

function refuseRows(): never {
  const rows = KAHOOT_MAX_ROWS.toLocaleString('en');
  throw new BankRefused(`The spreadsheet has more than ${rows} rows.`, [
    { message: `A sheet has more than ${rows} rows; a quiz holds at most 100 questions.` },
  ]);
}

interface Header {
  row: number;
  question: number;
  /** Answer number (1-based, as the "Correct answer(s)" column names them) -> column. */
  answers: Map<number, number>;
  correct: number;
}

/** The first row with a "Question…", an "Answer 1…" and a "Correct answer…" cell. */
function findHeader(sheet: Worksheet): Header | undefined {
  let found: Header | undefined;
  sheet.eachRow((row, rowNumber) => {
    if (found) return;
    let question: number | undefined;
    let correct: number | undefined;
    const answers = new Map<number, number>();
    row.eachCell((cell, column) => {
      const heading = headingOf(cell.value);
      if (question === undefined && /^question\b(?!\s*(type|no\b|number|#|id\b))/.test(heading)) question = column;
      else if (correct === undefined && /^correct\s*answer/.test(heading)) correct = column;
      else {
        const answer = /^answer\s*(\d+)\b/.exec(heading);
        if (answer && !answers.has(Number(answer[1]))) answers.set(Number(answer[1]), column);
      }
    });
    if (question !== undefined && correct !== undefined && answers.has(1)) {
      found = { row: rowNumber, question, answers, correct };
    }
  });
  return found;
}

/** A header cell's text, lower case, dashes and spaces made plain. */
function headingOf(value: CellValue): string {
  return collapseWhitespace(
    cellText(value)
      .normalize('NFKC')
      .replace(/[\u2010-\u2015\u2212]/g, '-'),
  ).toLowerCase();
}

function readRows(sheet: Worksheet, header: Header): BankQuestion[] {
  const questions: BankQuestion[] = [];
  const answerNumbers = [...header.answers.keys()].sort((a, b) => a - b);
  sheet.eachRow((row, rowNumber) => {
    if (rowNumber <= header.row) return;
    const text = collapseWhitespace(cellText(row.getCell(header.question).value));
    const answers = answerNumbers.map((answer) => ({
      answer,
      label: collapseWhitespace(cellText(row.getCell(header.answers.get(answer)!).value)),
    }));
    // The template numbers rows it leaves empty: a row is a question by its text and answers only.
    if (!text && answers.every(({ label }) => !label)) return;

    const number = questions.length + 1;
    const malformed = (message: string) => {
      questions.push({ number, line: rowNumber, skipped: { reason: 'malformed', message }, changes: [] });
    };
    if (!text) return malformed(`Row ${rowNumber} has answers but no question.`);
    const filled = answers.filter(({ label }) => label);
    if (filled.length < 2) return malformed(`Row ${rowNumber} has fewer than two answers.`);

    const said = cellText(row.getCell(header.correct).value).trim();
    if (!said) return malformed(`Row ${rowNumber} names no correct answer.`);
    // "1,3", "1, 3", "1;3"; and 1.3, what a spreadsheet using a decimal comma makes of "1,3".
    const tokens = said.split(/[\s,;.]+/).filter(Boolean);
    const correct = new Set<number>();
    for (const token of tokens) {
      const answer = /^\d+$/.test(token) ? Number(token) : Number.NaN;
      const index = filled.findIndex((entry) => entry.answer === answer);
      if (index < 0) {
        return malformed(
          Number.isNaN(answer)
            ? `Row ${rowNumber}: "${said}" is not a list of answer numbers.`
            : `Row ${rowNumber}: correct answer ${answer} names an empty answer.`,
        );
      }
      correct.add(index);
    }
    questions.push({
      number,
      line: rowNumber,
      slide: {
        kind: 'choice',
        text,
        options: filled.map(({ label }) => ({ label })),
        correct: [...correct].sort((a, b) => a - b),
        // A Kahoot quiz question takes one answer; several correct ones each score.
        multiple: false,
      },
      changes: [],
    });
  });
  return questions;
}

/** A cell as text: what it shows for strings and numbers, the text of rich text, links and formulas. */
function cellText(value: CellValue): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? '' : value.toISOString().slice(0, 10);
  if ('richText' in value) return value.richText.map((run) => run.text).join('');
  if ('hyperlink' in value) return cellText(value.text as CellValue);
  if ('formula' in value || 'sharedFormula' in value) return cellText(value.result as CellValue);
  return '';
}
