import type { Poll, Slide } from '@pollkit/contracts';
import type { Kysely } from 'kysely';
import Papa from 'papaparse';
import type { Database } from '../../db/schema.js';
import { approvedQuestionsPage, openTextCountsPage, type ResultsScope } from '../answers/index.js';
import type { TextPolicy } from '../moderation/index.js';
import { multipleChoiceResult, quizResult, rankingResult, scaleResult, type TallyIndex } from './slide-aggregates.js';

/**
 * The CSV export (docs/results-and-export.md, "CSV export"): UTF-8, RFC 4180 (CRLF line ends, quoting by papaparse),
 * one header row then rows per slide in deck order. The document is produced a batch of rows at a
 * time and the open-ended texts and Q&A questions are read a page at a time, so memory stays flat
 * however many answers the poll holds. docs/results-and-export.md describes the rows.
 */

export const CSV_COLUMNS = ['Slide', 'Question', 'Type', 'Answer / Label', 'Count / Value'] as const;

/** Rows per chunk yielded, and per page read from open_text_counts and the approved questions. */
export const CSV_BATCH_ROWS = 1000;

const NEWLINE = '\r\n';

/** The question is always quoted (the spec says so); every other field only when it needs to be. */
const QUOTED_COLUMNS = [false, true, false, false, false];

/**
 * Slide number, question, slide kind, answer label, count or value. Numbers stay numbers; a value that
 * must carry exactly two decimals is pre-formatted text of a number (or empty when there is none).
 */
type CsvRow = [slide: number, question: string, type: Slide['kind'], label: string, value: number | string];

/**
 * A spreadsheet runs a cell that starts with `=`, `+`, `-` or `@` (and some with a leading tab or CR)
 * as a formula; a leading `'` makes it text. Applied to text cells only — numbers are never touched,
 * so a negative average stays a number.
 */
function neutraliseFormula(text: string): string {
  return /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}

/** Two decimals; empty when there is no value (nobody answered), never a made-up 0.00. */
function twoDecimals(value: number | null): string {
  if (value === null) return '';
  const text = value.toFixed(2);
  return text === '-0.00' ? '0.00' : text;
}

const CSV_HEADER = Papa.unparse([[...CSV_COLUMNS]], { newline: NEWLINE }) + NEWLINE;

/** Rows as CSV text, each ending with CRLF so chunks can simply be concatenated. */
function formatCsvRows(rows: readonly CsvRow[]): string {
  if (rows.length === 0) return '';
  return Papa.unparse(rows as CsvRow[], { quotes: QUOTED_COLUMNS, newline: NEWLINE, header: false }) + NEWLINE;
}

/** The whole document: the header, then the rows, `CSV_BATCH_ROWS` at a time. */
export async function* csvChunks(
  db: Kysely<Database>,
  poll: Poll,
  tallies: TallyIndex,
  scope: ResultsScope,
  /** Each slide's text filter: answers and questions are exported as shown, flagged words masked. */
  policyOf: (slide: Slide) => TextPolicy,
): AsyncGenerator<string> {
  yield CSV_HEADER;
  let pending: CsvRow[] = [];
  for (const [index, slide] of poll.content.questions.entries()) {
    const question = neutraliseFormula(slide.text);
    for await (const rows of slideRows(db, scope, slide, tallies, policyOf(slide))) {
      for (const row of rows) {
        const value = row.measure === 'average' ? twoDecimals(row.value) : row.value;
        pending.push([index + 1, question, slide.kind, neutraliseFormula(row.label), value]);
      }
      if (pending.length >= CSV_BATCH_ROWS) {
        yield formatCsvRows(pending);
        pending = [];
      }
    }
  }
  if (pending.length > 0) yield formatCsvRows(pending);
}

/**
 * One row of a slide's results as both exports read it: the label as shown (flagged words masked,
 * nothing else changed) and the figure as a number, so that each format writes them its own way
 * (the CSV neutralises formulas and fixes two decimals; the XLSX types its cells).
 */
export type ResultRow =
  | { label: string; measure: 'count'; value: number }
  /** An average (a rating's, a rank's): null when nobody answered. */
  | { label: string; measure: 'average'; value: number | null };

/** A slide's rows, in pages for the kinds whose rows grow with the answers. */
export async function* slideRows(
  db: Kysely<Database>,
  scope: ResultsScope,
  slide: Slide,
  tallies: TallyIndex,
  policy: TextPolicy,
): AsyncGenerator<ResultRow[]> {
  const count = (label: string, value: number): ResultRow => ({ label, measure: 'count', value });
  const average = (label: string, value: number | null): ResultRow => ({ label, measure: 'average', value });

  switch (slide.kind) {
    case 'multiple_choice':
      yield multipleChoiceResult(slide, tallies).options.map((option) => count(option.label, option.count));
      return;
    case 'quiz':
      yield quizResult(slide, tallies).options.map((option) => count(option.label, option.count));
      return;
    case 'scale': {
      // The slide's rows (every statement pooled, when it has statements), then each statement's own.
      const result = scaleResult(slide, tallies);
      const scaleRows = (prefix: string, mean: number | null, distribution: { value: number; count: number }[]) => [
        average(`${prefix}Average`, mean),
        ...distribution.map((rating) => count(`${prefix}Rating ${rating.value}`, rating.count)),
      ];
      yield [
        ...scaleRows('', result.average, result.distribution),
        ...result.statements.flatMap((s) => scaleRows(`${s.text}: `, s.average, s.distribution)),
      ];
      return;
    }
    case 'ranking':
      yield rankingResult(slide, tallies).options.map((option) => average(option.label, option.averageRank));
      return;
    case 'open_ended': {
      let page: Page = { rows: [], next: undefined };
      do {
        page = await openTextsPage(db, scope, slide.id, page.next, policy);
        if (page.rows.length > 0) yield page.rows;
      } while (page.next !== undefined);
      return;
    }
    case 'qa': {
      let page: Page = { rows: [], next: undefined };
      do {
        page = await questionsPage(db, scope, slide.id, page.next, policy);
        if (page.rows.length > 0) yield page.rows;
      } while (page.next !== undefined);
      return;
    }
    case 'content':
      return;
  }
}

/**
 * A page of rows and the keyset cursor after it, undefined after the last page. Only the rows are
 * kept: the rows read from the database are let go before the page is yielded, rather than held
 * while the consumer writes it (long enough, for the XLSX, to be moved to the old generation).
 */
interface Page {
  rows: ResultRow[];
  next: string | undefined;
}

async function openTextsPage(
  db: Kysely<Database>,
  scope: ResultsScope,
  slideId: string,
  afterHash: string | undefined,
  policy: TextPolicy,
): Promise<Page> {
  const texts = await openTextCountsPage(db, scope, slideId, { afterHash, limit: CSV_BATCH_ROWS });
  return {
    rows: texts.map((text) => ({ label: policy.shown(text.text), measure: 'count', value: text.count })),
    next: texts.length < CSV_BATCH_ROWS ? undefined : texts.at(-1)?.hash,
  };
}

async function questionsPage(
  db: Kysely<Database>,
  scope: ResultsScope,
  slideId: string,
  afterId: string | undefined,
  policy: TextPolicy,
): Promise<Page> {
  const questions = await approvedQuestionsPage(db, scope, slideId, { afterId, limit: CSV_BATCH_ROWS });
  return {
    rows: questions.map((q) => ({ label: policy.shown(q.text), measure: 'count', value: q.upvotes })),
    next: questions.length < CSV_BATCH_ROWS ? undefined : questions.at(-1)?.id,
  };
}
