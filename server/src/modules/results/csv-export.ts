import type { Poll, Slide } from '@pollkit/contracts';
import type { Kysely } from 'kysely';
import Papa from 'papaparse';
import type { Database } from '../../db/schema.js';
import type { TextPolicy } from '../moderation/index.js';
import * as results from './results.repository.js';
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
export type CsvRow = [slide: number, question: string, type: Slide['kind'], label: string, value: number | string];

/**
 * A spreadsheet runs a cell that starts with `=`, `+`, `-` or `@` (and some with a leading tab or CR)
 * as a formula; a leading `'` makes it text. Applied to text cells only — numbers are never touched,
 * so a negative average stays a number.
 */
export function neutraliseFormula(text: string): string {
  return /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}

/** Two decimals; empty when there is no value (nobody answered), never a made-up 0.00. */
export function twoDecimals(value: number | null): string {
  if (value === null) return '';
  const text = value.toFixed(2);
  return text === '-0.00' ? '0.00' : text;
}

export const CSV_HEADER = Papa.unparse([[...CSV_COLUMNS]], { newline: NEWLINE }) + NEWLINE;

/** Rows as CSV text, each ending with CRLF so chunks can simply be concatenated. */
export function formatCsvRows(rows: readonly CsvRow[]): string {
  if (rows.length === 0) return '';
  return Papa.unparse(rows as CsvRow[], { quotes: QUOTED_COLUMNS, newline: NEWLINE, header: false }) + NEWLINE;
}

/** The whole document: the header, then the rows, `CSV_BATCH_ROWS` at a time. */
export async function* csvChunks(
  db: Kysely<Database>,
  poll: Poll,
  tallies: TallyIndex,
  scope: results.ResultsScope,
  /** Each slide's text filter: answers and questions are exported as shown, flagged words masked. */
  policyOf: (slide: Slide) => TextPolicy,
): AsyncGenerator<string> {
  yield CSV_HEADER;
  let pending: CsvRow[] = [];
  for (const [index, slide] of poll.content.questions.entries()) {
    for await (const rows of slideRows(db, scope, index + 1, slide, tallies, policyOf(slide))) {
      pending.push(...rows);
      if (pending.length >= CSV_BATCH_ROWS) {
        yield formatCsvRows(pending);
        pending = [];
      }
    }
  }
  if (pending.length > 0) yield formatCsvRows(pending);
}

/** A slide's rows, in pages for the kinds whose rows grow with the answers. */
async function* slideRows(
  db: Kysely<Database>,
  scope: results.ResultsScope,
  slideNumber: number,
  slide: Slide,
  tallies: TallyIndex,
  policy: TextPolicy,
): AsyncGenerator<CsvRow[]> {
  const question = neutraliseFormula(slide.text);
  const row = (label: string, value: number | string): CsvRow => [
    slideNumber,
    question,
    slide.kind,
    neutraliseFormula(label),
    value,
  ];

  switch (slide.kind) {
    case 'multiple_choice':
      yield multipleChoiceResult(slide, tallies).options.map((option) => row(option.label, option.count));
      return;
    case 'quiz':
      yield quizResult(slide, tallies).options.map((option) => row(option.label, option.count));
      return;
    case 'scale': {
      // The slide's rows (every statement pooled, when it has statements), then each statement's own.
      const result = scaleResult(slide, tallies);
      const scaleRows = (prefix: string, average: number | null, distribution: { value: number; count: number }[]) => [
        row(`${prefix}Average`, twoDecimals(average)),
        ...distribution.map((rating) => row(`${prefix}Rating ${rating.value}`, rating.count)),
      ];
      yield [
        ...scaleRows('', result.average, result.distribution),
        ...result.statements.flatMap((s) => scaleRows(`${s.text}: `, s.average, s.distribution)),
      ];
      return;
    }
    case 'ranking':
      yield rankingResult(slide, tallies).options.map((option) => row(option.label, twoDecimals(option.averageRank)));
      return;
    case 'open_ended': {
      let afterHash: string | undefined;
      for (;;) {
        const page = await results.listOpenTextCountsPage(db, scope, slide.id, { afterHash, limit: CSV_BATCH_ROWS });
        if (page.length > 0) yield page.map((text) => row(policy.shown(text.text), text.count));
        if (page.length < CSV_BATCH_ROWS) return;
        afterHash = page.at(-1)?.hash;
      }
    }
    case 'qa': {
      let afterId: string | undefined;
      for (;;) {
        const page = await results.listApprovedQuestionsPage(db, scope, slide.id, { afterId, limit: CSV_BATCH_ROWS });
        if (page.length > 0) yield page.map((question) => row(policy.shown(question.text), question.upvotes));
        if (page.length < CSV_BATCH_ROWS) return;
        afterId = page.at(-1)?.id;
      }
    }
    case 'content':
      return;
  }
}
