import { EventEmitter } from 'node:events';
import { createRequire } from 'node:module';
import { PassThrough } from 'node:stream';
import type { Poll, Slide } from '@pollkit/contracts';
import type ExcelJS from 'exceljs';
import type { Row, Style, Workbook, Worksheet } from 'exceljs';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { ResultsScope } from '../answers/index.js';
import { tallyKey } from '../answers/tallies.js';
import type { TextPolicy } from '../moderation/index.js';
import { CSV_COLUMNS, type ResultRow, slideRows } from './csv-export.js';
import { scaleResult, type TallyIndex } from './slide-aggregates.js';

/**
 * The XLSX export (`format=xlsx`): the CSV's rows as a workbook, read from the same row source
 * (csv-export.ts, `slideRows`) under the same text filter, so the two files cannot disagree.
 *
 * - `Summary`: one row per slide, content slides included: `Slide` (its number), `Question`, `Type`,
 *   `Answers` — how many answers the slide counts, from the same counters as the rows (what
 *   `GET /polls/{id}/results` gives as `totalAnswers`, or `totalQuestions` for Q&A: every question
 *   asked, where the slide's sheet lists the approved ones); empty for a content slide — and
 *   `Average`, the scale's pooled rating (its sheet's `Average` row), empty for other kinds and while
 *   nobody answered. Nothing else: the per-option figures are on the slides' sheets.
 * - Then one sheet per slide that has rows (a content slide has none, so no sheet), named
 *   `<number> <question>` cut to Excel's 31 characters with `…`, with the CSV's last two columns,
 *   `Answer / Label` and `Count / Value`, and its rows in the same order.
 *
 * Cells are typed rather than escaped: counts and averages are number cells (averages shown with
 * two decimals, the CSV's precision, but stored whole), text is always a string cell holding the text
 * as shown — a string cell is never evaluated, so `=SUM(A1)` stays that text, without the CSV's `'`.
 * No row is a percentage (the CSV has none), so no cell carries a percentage format.
 *
 * Streamed like the CSV: exceljs's streaming writer zips each row as it is committed, a sheet at a
 * time, and the generator produces rows only when its reader has taken what was zipped.
 */

/** Excel refuses a longer sheet name. */
const SHEET_NAME_MAX = 31;

const SUMMARY_COLUMNS = ['Slide', 'Question', 'Type', 'Answers', 'Average'] as const;
const SLIDE_COLUMNS = [CSV_COLUMNS[3], CSV_COLUMNS[4]] as const;

/** Two decimals shown, as the CSV writes averages; the cell keeps the whole number. */
const AVERAGE_FORMAT = '0.00';

/**
 * A slide's sheet name: `<number> <question>`, without the characters Excel forbids in one, cut to
 * its 31 characters. Unique because the slide number leads it, up to the first space, and never
 * `Summary`, which starts with a letter; it ends with no `'`, which Excel refuses there too.
 */
function sheetName(slideNumber: number, question: string): string {
  const name = `${slideNumber} ${question}`
    .replace(/[[\]:*?/\\\p{Cc}]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/'+$/, '');
  if (name.length <= SHEET_NAME_MAX) return name;
  let cut = '';
  // By code point, so that a character outside the BMP is never split in two halves.
  for (const character of name) {
    if (cut.length + character.length > SHEET_NAME_MAX - 1) break;
    cut += character;
  }
  return `${cut.trimEnd()}…`;
}

/** The workbook, as chunks of its bytes. */
export async function* xlsxChunks(
  db: Kysely<Database>,
  poll: Poll,
  tallies: TallyIndex,
  scope: ResultsScope,
  policyOf: (slide: Slide) => TextPolicy,
): AsyncGenerator<Uint8Array> {
  const WorkbookWriter = loadWorkbookWriter();
  const out = new PassThrough();
  const workbook = new WorkbookWriter({ stream: out, useSharedStrings: false, useStyles: true });
  // The zip archiver's errors would otherwise have no listener until the workbook's commit, and an
  // 'error' without a listener ends the process; this one ends the download instead.
  (workbook as unknown as { zip: NodeJS.EventEmitter }).zip.on('error', (error: Error) => out.destroy(error));
  try {
    writeSummary(workbook, poll, tallies);
    yield* zipped(out);
    for (const [index, slide] of poll.content.questions.entries()) {
      if (slide.kind === 'content') continue;
      // Sheets are added one after the other, each committed before the next: the archiver zips its
      // entries in order, so rows of a sheet added early would wait in memory for the ones before it.
      const sheet = addSheet(workbook, sheetName(index + 1, slide.text), [60, 16], SLIDE_COLUMNS);
      const zipInput = zipInputOf(sheet);
      for await (const rows of slideRows(db, scope, slide, tallies, policyOf(slide))) {
        // Each row let go as soon as it is written, for the reason the page's database rows are
        // (csv-export.ts, `Page`): together, ~25 MB less peak RSS for the 1,000,000-answer export.
        for (let row = rows.shift(); row !== undefined; row = rows.shift()) writeSlideRow(sheet, row);
        // The next page is read once the zip has taken this one in and the reader has taken what
        // was zipped: neither a slow client nor a busy zip lets rows pile up in memory.
        yield* caughtUp(out, zipInput);
      }
      sheet.commit();
    }
    const committed = workbook.commit();
    // The rest (the last sheet's tail, styles, the workbook part) flows as it is read; a failure ends it.
    committed.catch((error: unknown) => out.destroy(error instanceof Error ? error : new Error(String(error))));
    for await (const chunk of out) yield chunk as Uint8Array;
    await committed;
  } finally {
    // A reader that stops early (the client went away) leaves nothing behind: the archiver's pipe
    // into `out` is dropped with it.
    out.destroy();
  }
}

/**
 * exceljs's streaming writer alone (the module `ExcelJS.stream.xlsx.WorkbookWriter` is), loaded on
 * the first export rather than at start-up. The package's entry loads its readers too (JSZip,
 * unzipper, the CSV parser): 29 MB of RSS and 0.2 s against the writer's 17 MB and 0.08 s, ~10 MB
 * more at the peak of the 1,000,000-answer export (bench/RESULTS.md, "XLSX export (issue 40)").
 */
function loadWorkbookWriter(): typeof ExcelJS.stream.xlsx.WorkbookWriter {
  return createRequire(import.meta.url)('exceljs/lib/stream/xlsx/workbook-writer.js');
}

/** What the archiver has written so far, without waiting for more. */
function* zipped(out: PassThrough): Generator<Uint8Array> {
  for (let chunk: Uint8Array | null = out.read(); chunk !== null; chunk = out.read()) yield chunk;
}

/**
 * Where exceljs pours a sheet's XML: the archiver's input for the sheet's zip entry (a PassThrough of
 * readable-stream 2 it wraps exceljs's stream in, at `addWorksheet`). exceljs writes into it without
 * waiting, so rows were made faster than they were deflated: up to 9 MB ahead in the benchmark, and
 * twice that in spent buffers awaiting a collection. Neither stream is in exceljs's typings, and
 * readable-stream 2 has no `writableLength`: undefined if another version of exceljs or archiver
 * lays them out otherwise — the export then works without this bound, and export-xlsx.test.ts fails.
 */
export function zipInputOf(sheet: Worksheet): ZipInput | undefined {
  const input = (sheet as unknown as { stream?: { pipes?: unknown[] } }).stream?.pipes?.[0] as ZipInput | undefined;
  return input instanceof EventEmitter && typeof input._writableState?.length === 'number' ? input : undefined;
}

type ZipInput = NodeJS.EventEmitter & { _writableState: { length: number; highWaterMark: number } };

/**
 * What is zipped, handed over until the zip's input holds less than its high-water mark. While it
 * holds more, its write returned false and a 'drain' is due; the zip only goes on while `out` is
 * read, so what it writes meanwhile is handed over too.
 */
async function* caughtUp(out: PassThrough, zipInput: ZipInput | undefined): AsyncGenerator<Uint8Array> {
  for (;;) {
    yield* zipped(out);
    if (out.destroyed) throw out.errored ?? new Error('the workbook stream closed before its end');
    const backlog = zipInput?._writableState;
    if (!zipInput || !backlog || backlog.length < backlog.highWaterMark) return;
    await firstOf([zipInput, 'drain'], [out, 'readable'], [out, 'close']);
  }
}

/** Resolves on the first of these events, leaving no listener behind. */
function firstOf(...events: [NodeJS.EventEmitter, string][]): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      for (const [emitter, name] of events) emitter.off(name, done);
      resolve();
    };
    for (const [emitter, name] of events) emitter.on(name, done);
  });
}

function addSheet(workbook: Workbook, name: string, widths: number[], header: readonly string[]): Worksheet {
  const sheet = workbook.addWorksheet(name, { views: [{ state: 'frozen', ySplit: 1 }] });
  sheet.columns = widths.map((width) => ({ width }));
  const row = sheet.addRow([...header]);
  row.font = { bold: true };
  row.commit();
  return sheet;
}

function writeSummary(workbook: Workbook, poll: Poll, tallies: TallyIndex): void {
  const sheet = addSheet(workbook, 'Summary', [8, 60, 16, 10, 10], SUMMARY_COLUMNS);
  for (const [index, slide] of poll.content.questions.entries()) {
    const answers = slide.kind === 'content' ? null : tallies.count(slide.id, tallyKey.answers);
    const average = slide.kind === 'scale' ? scaleResult(slide, tallies).average : null;
    commitRow(sheet, [index + 1, slide.text, slide.kind, answers, average], [4]);
  }
  sheet.commit();
}

function writeSlideRow(sheet: Worksheet, { label, measure, value }: ResultRow): void {
  commitRow(sheet, [label, value], measure === 'average' ? [1] : []);
}

/**
 * Every row and cell is given one of these two style objects, never changed. exceljs works out a
 * style's id once per style object it meets and keeps the object in a WeakMap: a style object of its
 * own per cell and row (what exceljs makes by default, and setting `numFmt` on a cell changes) cost
 * the 1,000,000-answer export ~20 MB more heap and half again its time.
 */
const PLAIN: Partial<Style> = {};
const AVERAGE: Partial<Style> = { numFmt: AVERAGE_FORMAT };

/** Writes a row out; the cells at `averages` (0-based), when they hold a number, show two decimals. */
function commitRow(sheet: Worksheet, values: (string | number | null)[], averages: number[]): void {
  const row = sheet.addRow(values);
  // A row has a style of its own too, read the same way; exceljs's typings leave it out.
  (row as Row & { style: Partial<Style> }).style = PLAIN;
  for (const [index, value] of values.entries()) {
    row.getCell(index + 1).style = averages.includes(index) && value !== null ? AVERAGE : PLAIN;
  }
  row.commit();
}
