import { PassThrough } from 'node:stream';
import { resultsFiles, type Slide } from '@pollkit/contracts';
import { createClient } from '@pollkit/sdk';
import ExcelJS from 'exceljs';
import { unzipSync } from 'fflate';
import Papa from 'papaparse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CSV_BATCH_ROWS } from '../../src/modules/results/csv-export.js';
import { exportResults } from '../../src/modules/results/results.service.js';
import { zipInputOf } from '../../src/modules/results/xlsx-export.js';
import { expectError } from '../support/assertions.js';
import { type ContentInput, csvExportContent, manyTextsContent, sampleContent } from '../support/decks.js';
import { type LooseJson, rawCall } from '../support/http.js';
import { UNLIMITED } from '../support/limits.js';
import { type PublishedPoll, pendingText } from '../support/polls.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { expectStatus, testClient } from '../support/test-client.js';

/**
 * GET /polls/{id}/export?format=xlsx (and the session's) over real HTTP: the workbook is read back
 * with exceljs and every sheet compared with GET /polls/{id}/results, the CSV of the same poll, and
 * what was submitted; cells are checked for their type, not only their text.
 */

let t: TestServer;
const api = testClient(() => t.api);
let apiKey: string;
let workspaceId: string;

beforeAll(async () => {
  t = await startTestServer(UNLIMITED);
  ({ apiKey, id: workspaceId } = await t.workspace('pro'));
});
afterAll(() => t?.close());

type Json = LooseJson;

const VULGAR = 'this meeting is fucking long';
const MASKED = /^this meeting is f\*+ long$/;

/** A slide whose question is longer than a sheet name may be and holds characters one may not. */
const LONG_QUESTION = 'Which [tools]: do you use at work / at home? *Really*';

function deck(): ContentInput {
  const content = csvExportContent();
  content.questions.push({
    id: 'tools',
    kind: 'multiple_choice',
    text: LONG_QUESTION,
    type: 'single',
    options: [
      { id: 'hammer', label: 'Hammer' },
      { id: 'laptop', label: '@laptop' },
    ],
  });
  return content;
}

/** Created with the text filter set to `mask` (the default, said here since the test is about it). */
async function publishedPoll(content: ContentInput = deck()): Promise<PublishedPoll> {
  const created = await api.request('POST /polls', {
    apiKey,
    body: { title: 'XLSX export', textFilter: 'mask', content },
  });
  expectStatus(created, 201);
  expect(created.body.textFilter).toBe('mask');
  const published = await api.request('PATCH /polls/{id}', {
    params: { id: created.body.id },
    apiKey,
    body: { publish: true },
  });
  expectStatus(published, 200);
  return { id: created.body.id, slides: created.body.content.questions, version: published.body.updatedAt };
}

async function submit(pollId: string, slides: Slide[], body: Json): Promise<string> {
  const kind = slides.find((s) => s.id === body.slideId)?.kind;
  const res = await rawCall<{ id: string }>(
    'POST',
    `${t.api}/polls/${pollId}/${kind === 'multiple_choice' ? 'votes' : 'responses'}`,
    {
      apiKey,
      body,
    },
  );
  expect(res.status, res.text).toBe(201);
  return res.body.id;
}

/** A download as bytes: `call` reads bodies as text, which would mangle a zip. */
async function download(path: string) {
  const res = await fetch(`${t.api}${path}`, { headers: { authorization: `Bearer ${apiKey}` } });
  return { status: res.status, headers: res.headers, bytes: new Uint8Array(await res.arrayBuffer()) };
}

async function readWorkbook(bytes: Uint8Array): Promise<ExcelJS.Workbook> {
  const workbook = new ExcelJS.Workbook();
  // exceljs types `load` with a Buffer of its own typings' making; a Node Buffer is what it reads.
  await workbook.xlsx.load(Buffer.from(bytes) as unknown as Parameters<ExcelJS.Xlsx['load']>[0]);
  return workbook;
}

/** A sheet's cells below its header, row by row. */
function bodyOf(sheet: ExcelJS.Worksheet, columns: number): ExcelJS.Cell[][] {
  const rows: ExcelJS.Cell[][] = [];
  for (let r = 2; r <= sheet.rowCount; r++) {
    const row = sheet.getRow(r);
    rows.push(Array.from({ length: columns }, (_, c) => row.getCell(c + 1)));
  }
  return rows;
}

const headerOf = (sheet: ExcelJS.Worksheet) => (sheet.getRow(1).values as unknown[]).slice(1);

/** [label, value] of a slide sheet's rows; a value is a number or, for an average nobody gave, null. */
const pairsOf = (sheet: ExcelJS.Worksheet) =>
  bodyOf(sheet, 2).map(([label, value]) => [label?.value, value?.value ?? null] as [unknown, unknown]);

const { Number: NUMBER, String: STRING, Null: NULL } = ExcelJS.ValueType;

/** Every label is a string cell and every value a number cell (or empty, for an average nobody gave). */
function expectTypedCells(sheet: ExcelJS.Worksheet) {
  for (const [label, value] of bodyOf(sheet, 2)) {
    expect(label?.type, `${sheet.name} ${label?.address}`).toBe(STRING);
    expect([NUMBER, NULL], `${sheet.name} ${value?.address}`).toContain(value?.type);
  }
}

/** The rows each slide's sheet must hold, from GET /results (open-ended rows are the caller's). */
function expectedPairs(slide: Slide, result: Json, openEnded: [string, number][] = []): [unknown, unknown][] {
  switch (slide.kind) {
    case 'multiple_choice':
    case 'quiz':
      return result.options.map((o: Json) => [o.label, o.count]);
    case 'scale': {
      const ratings = (prefix: string, average: number | null, distribution: Json[]) => [
        [`${prefix}Average`, average],
        ...distribution.map((d) => [`${prefix}Rating ${d.value}`, d.count]),
      ];
      return [
        ...ratings('', result.average, result.distribution),
        ...result.statements.flatMap((s: Json) => ratings(`${s.text}: `, s.average, s.distribution)),
      ];
    }
    case 'ranking':
      return result.options.map((o: Json) => [o.label, o.averageRank]);
    case 'open_ended':
      return openEnded;
    case 'qa':
      return result.questions.map((q: Json) => [q.text, q.upvotes]);
    default:
      return [];
  }
}

const sorted = (pairs: [unknown, unknown][]) => [...pairs].sort((a, b) => (String(a[0]) < String(b[0]) ? -1 : 1));

/** The sheet names, worked out by hand: number, question without `[]:*?/\`, at most 31 characters. */
const SHEET_NAMES = [
  'Summary',
  '1 Where shall we eat',
  '2 Capital of France',
  '3 How do you feel',
  '4 Rank these',
  '5 One word',
  '6 Questions',
  // 7 is the content slide: no rows, no sheet.
  '8 =HYPERLINK("x") hot, or cold',
  '9 Pick "one", please',
  '10 Ask me anything',
  '11 Which tools do you use at w…',
];

describe('GET /polls/{id}/export?format=xlsx', () => {
  it('downloads a workbook whose every sheet matches the results and the CSV, with typed, unevaluated, masked cells', async () => {
    const { id: pollId, slides } = await publishedPoll();
    await Promise.all(
      [
        { voterId: 'v1', slideId: 'lunch', optionIds: ['pizza'] },
        { voterId: 'v2', slideId: 'lunch', optionIds: ['sushi'] },
        { voterId: 'v3', slideId: 'lunch', optionIds: ['pizza'] },
        { voterId: 'v1', slideId: 'capital', optionIds: ['paris'] },
        { voterId: 'v2', slideId: 'capital', optionIds: ['lyon', 'paris'] },
        { voterId: 'v3', slideId: 'capital', optionIds: ['lyon'] },
        { voterId: 'v1', slideId: 'mood', scaleValues: { work: 4 } },
        { voterId: 'v2', slideId: 'mood', scaleValues: { work: 5 } },
        { voterId: 'v3', slideId: 'mood', scaleValues: { work: 5 } },
        { voterId: 'v1', slideId: 'temp', scaleValue: -2 },
        { voterId: 'v2', slideId: 'temp', scaleValue: -1 },
        { voterId: 'v3', slideId: 'temp', scaleValue: -2 },
        { voterId: 'v1', slideId: 'rank', rankingOrder: ['a', 'b', 'c'] },
        { voterId: 'v2', slideId: 'rank', rankingOrder: ['c', 'a', 'b'] },
        { voterId: 'v3', slideId: 'rank', rankingOrder: ['c', 'b', 'a'] },
        { voterId: 'v1', slideId: 'pick', optionIds: ['minus', 'plain'] },
        { voterId: 'v2', slideId: 'pick', optionIds: ['minus'] },
        { voterId: 'v1', slideId: 'tools', optionIds: ['laptop'] },
      ].map((ballot) => submit(pollId, slides, ballot)),
    );

    // Open-ended: formula-looking texts, a vulgar one (masked), a repeated one.
    const texts = ['=SUM(A1)', '+1', '-2+3', '@cmd', VULGAR, 'Blue sky', 'Blue sky', 'Say "hi", then go'];
    await Promise.all(texts.map((text, i) => submit(pollId, slides, { voterId: `w${i}`, slideId: 'words', text })));

    // Q&A: approved questions only, with their upvotes; a vulgar question is masked there too.
    const approved = await submit(pollId, slides, { voterId: 'v1', slideId: 'ask', text: '=WEBSERVICE("x")?' });
    await submit(pollId, slides, { voterId: 'v2', slideId: 'ask', text: 'Still pending?' });
    await submit(pollId, slides, { voterId: 'v3', slideId: 'ama', text: 'Why is this shit so slow?' });
    await submit(pollId, slides, { voterId: 'v1', slideId: 'ama', text: 'On topic' });
    const approval = await api.request('PATCH /polls/{id}/questions/{questionId}', {
      params: { id: pollId, questionId: approved },
      apiKey,
      body: { status: 'approved' },
    });
    expectStatus(approval, 200);
    for (const voterId of ['v1', 'v2']) {
      const upvote = await api.request('POST /polls/{id}/questions/{questionId}/upvotes', {
        params: { id: pollId, questionId: approved },
        apiKey,
        body: { voterId },
      });
      expectStatus(upvote, 201);
    }

    const res = await download(`/polls/${pollId}/export?format=xlsx`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(resultsFiles.xlsx.contentType);
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="poll-${pollId}-results.xlsx"`);
    expect([...res.bytes.subarray(0, 4)]).toEqual([0x50, 0x4b, 0x03, 0x04]); // a zip

    const workbook = await readWorkbook(res.bytes);
    expect(workbook.worksheets.map((sheet) => sheet.name)).toEqual(SHEET_NAMES);
    for (const sheet of workbook.worksheets) expect(sheet.name.length).toBeLessThanOrEqual(31);

    // Walked beside the deck, slide by slide, whatever each one's kind.
    const results: LooseJson = (await api.request('GET /polls/{id}/results', { params: { id: pollId }, apiKey })).body;
    expect(results.slides.map((s: Json) => s.slideId)).toEqual(slides.map((s) => s.id));

    // Summary: one row per slide, content included, counted as the results count.
    const summary = workbook.getWorksheet('Summary')!;
    expect(headerOf(summary)).toEqual(['Slide', 'Question', 'Type', 'Answers', 'Average']);
    const summaryRows = bodyOf(summary, 5);
    expect(summaryRows).toHaveLength(slides.length);
    for (const [index, slide] of slides.entries()) {
      const [number, question, type, answers, average] = summaryRows[index]!;
      const result = results.slides[index];
      expect(number?.value).toBe(index + 1);
      expect(number?.type).toBe(NUMBER);
      expect(question?.value).toBe(slide.text);
      expect(question?.type).toBe(STRING);
      expect(type?.value).toBe(slide.kind);
      const counted = result.kind === 'qa' ? result.totalQuestions : result.totalAnswers;
      expect(answers?.value ?? null, slide.id).toBe(slide.kind === 'content' ? null : counted);
      if (slide.kind !== 'content') expect(answers?.type).toBe(NUMBER);
      expect(average?.value ?? null, slide.id).toBe(slide.kind === 'scale' ? result.average : null);
      if (slide.kind === 'scale') expect(average?.numFmt).toBe('0.00');
    }
    expect(summaryRows.find(([n]) => n?.value === 8)?.[4]?.value).toBeCloseTo(-5 / 3, 10);

    // Each slide's sheet: the results' figures, as number cells.
    const openEnded = new Map<string, number>();
    for (const text of texts) openEnded.set(text, (openEnded.get(text) ?? 0) + 1);
    const sheets = workbook.worksheets.slice(1);
    const slidesWithSheets = slides.filter((slide) => slide.kind !== 'content');
    expect(sheets).toHaveLength(slidesWithSheets.length);
    for (const [i, slide] of slidesWithSheets.entries()) {
      const sheet = sheets[i]!;
      const result = results.slides[slides.indexOf(slide)];
      expect(headerOf(sheet), sheet.name).toEqual(['Answer / Label', 'Count / Value']);
      expectTypedCells(sheet);
      const pairs = pairsOf(sheet);
      if (slide.kind === 'open_ended') {
        // The results list only recent texts: compared with what was sent, the vulgar one masked.
        const shown = pairs.map(([label, count]) => [MASKED.test(String(label)) ? VULGAR : label, count]);
        expect(sorted(shown as [unknown, unknown][])).toEqual(sorted([...openEnded]));
        expect(pairs.reduce((n, [, count]) => n + Number(count), 0)).toBe(result.totalAnswers);
      } else if (slide.kind === 'qa') {
        expect(sorted(pairs), sheet.name).toEqual(sorted(expectedPairs(slide, result)));
      } else {
        expect(pairs, sheet.name).toEqual(expectedPairs(slide, result));
      }
    }

    // Averages: number cells shown with two decimals, the whole value kept.
    const mood = workbook.getWorksheet('3 How do you feel')!;
    const moodAverage = bodyOf(mood, 2).find(([label]) => label?.value === 'About work: Average')![1]!;
    expect(moodAverage.type).toBe(NUMBER);
    expect(moodAverage.numFmt).toBe('0.00');
    expect(moodAverage.value).toBeCloseTo(14 / 3, 10);
    const ranks = bodyOf(workbook.getWorksheet('4 Rank these')!, 2).map(([, value]) => value!);
    expect(ranks.map((cell) => cell.numFmt)).toEqual(['0.00', '0.00', '0.00']);
    expect(ranks.map((cell) => Number((cell.value as number).toFixed(2)))).toEqual([2, 2.33, 1.67]);
    // Counts are plain number cells, a negative rating's count too.
    const temp = pairsOf(workbook.getWorksheet('8 =HYPERLINK("x") hot, or cold')!);
    expect(temp.find(([label]) => label === 'Rating -2')?.[1]).toBe(2);

    // Formula-looking text: string cells holding exactly the text, no `'`, no formula anywhere.
    const words = bodyOf(workbook.getWorksheet('5 One word')!, 2);
    for (const text of ['=SUM(A1)', '+1', '-2+3', '@cmd']) {
      const cell = words.find(([label]) => label?.value === text)?.[0];
      expect(cell, text).toBeDefined();
      expect(cell?.type).toBe(STRING);
      expect(cell?.formula).toBeUndefined();
    }
    expect(words.some(([label]) => String(label?.value).startsWith("'"))).toBe(false);
    expect(pairsOf(workbook.getWorksheet('2 Capital of France')!)).toContainEqual(['Lyon', 2]);
    expect(pairsOf(workbook.getWorksheet('11 Which tools do you use at w…')!)).toContainEqual(['@laptop', 1]);
    expect(pairsOf(workbook.getWorksheet('9 Pick "one", please')!)).toEqual([
      ['-5 degrees', 2],
      ['Plain, with a comma', 1],
    ]);
    expect(pairsOf(workbook.getWorksheet('6 Questions')!)).toEqual([['=WEBSERVICE("x")?', 2]]);
    expect(summaryRows[7]?.[1]?.value).toBe('=HYPERLINK("x") hot, or cold?');
    expect(summaryRows[10]?.[1]?.value).toBe(LONG_QUESTION);
    const parts = unzipSync(res.bytes);
    const sheetXml = Object.keys(parts).filter((name) => /^\/?xl\/worksheets\/sheet\d+\.xml$/.test(name));
    expect(sheetXml).toHaveLength(SHEET_NAMES.length);
    for (const name of sheetXml) expect(new TextDecoder().decode(parts[name]), name).not.toMatch(/<f[ >]/);

    // Masked as the text filter says, in answers and questions alike; nothing unmasked anywhere.
    expect(words.filter(([label]) => MASKED.test(String(label?.value)))).toHaveLength(1);
    const ama = pairsOf(workbook.getWorksheet('10 Ask me anything')!).map(([label]) => label);
    expect(ama).toContain('On topic');
    expect(ama.some((label) => /^Why is this s\*+ so slow\?$/.test(String(label)))).toBe(true);
    for (const sheet of workbook.worksheets) {
      sheet.eachRow((row) => row.eachCell((cell) => expect(String(cell.value)).not.toMatch(/fucking|shit/i)));
    }

    // The same rows as the CSV of the same poll: its `'` and two-decimal text are the CSV's own.
    const csv = await api.request('GET /polls/{id}/export', { params: { id: pollId }, apiKey });
    expectStatus(csv, 200);
    const csvRows = Papa.parse<string[]>(csv.text, { skipEmptyLines: true }).data.slice(1);
    const xlsxRows = slidesWithSheets.flatMap((slide, i) =>
      bodyOf(sheets[i]!, 2).map(([label, value]) => [
        String(slides.indexOf(slide) + 1),
        String(label?.value),
        value?.numFmt === '0.00' ? (value.value as number).toFixed(2) : String(value?.value ?? ''),
      ]),
    );
    const unquote = (text: string) => (/^'[=+\-@\t\r]/.test(text) ? text.slice(1) : text);
    const fromCsv = csvRows.map((row) => [row[0]!, unquote(row[3]!), row[4]!]);
    expect(sorted(xlsxRows.map((r) => [r.join('\u0000'), 0]))).toEqual(
      sorted(fromCsv.map((r) => [r.join('\u0000'), 0])),
    );
  });

  it('exports empty sheets and zero counts for a poll nobody answered', async () => {
    const { id: pollId, slides } = await publishedPoll();
    const res = await download(`/polls/${pollId}/export?format=xlsx`);
    expect(res.status).toBe(200);
    const workbook = await readWorkbook(res.bytes);
    expect(workbook.worksheets.map((sheet) => sheet.name)).toEqual(SHEET_NAMES);
    const summary = bodyOf(workbook.getWorksheet('Summary')!, 5);
    expect(summary.map(([, , , answers]) => answers?.value ?? null)).toEqual(
      slides.map((slide) => (slide.kind === 'content' ? null : 0)),
    );
    expect(summary.every(([, , , , average]) => average?.value === null || average?.value === undefined)).toBe(true);
    for (const sheet of workbook.worksheets.slice(1)) expectTypedCells(sheet);
    expect(pairsOf(workbook.getWorksheet('1 Where shall we eat')!)).toEqual([
      ['Pizza', 0],
      ['Sushi', 0],
    ]);
    expect(pairsOf(workbook.getWorksheet('4 Rank these')!)).toEqual([
      ['A', null],
      ['B', null],
      ['C', null],
    ]);
    expect(pairsOf(workbook.getWorksheet('5 One word')!)).toEqual([]);
  });

  it('pages through thousands of distinct texts, streamed in many chunks', async () => {
    const content = manyTextsContent();
    const { id: pollId, slides, version } = await publishedPoll(content);
    const distinct = CSV_BATCH_ROWS * 2 + 37;
    const asked = CSV_BATCH_ROWS + 5;
    // Written as the responses route writes them (same row, same deltas), without thousands of requests.
    const write = (slide: Slide, voterId: string, text: string) =>
      t.server.deps.answerWriter.write(pendingText(pollId, slide, voterId, text), version);
    const outcomes = await Promise.all([
      ...Array.from({ length: distinct }, (_, i) => write(slides[0]!, `voter-${i}`, `=answer ${i}`)),
      ...Array.from({ length: asked }, (_, i) => write(slides[1]!, `asker-${i % 50}`, `question ${i}`)),
    ]);
    expect(new Set(outcomes)).toEqual(new Set(['accepted']));

    const res = await download(`/polls/${pollId}/export?format=xlsx`);
    expect(res.status).toBe(200);
    const workbook = await readWorkbook(res.bytes);
    const texts = pairsOf(workbook.getWorksheet('1 Say anything')!);
    expect(texts).toHaveLength(distinct);
    expect(new Set(texts.map(([label]) => label))).toEqual(
      new Set(Array.from({ length: distinct }, (_, i) => `=answer ${i}`)),
    );
    expect(texts.every(([, count]) => count === 1)).toBe(true);
    expectTypedCells(workbook.getWorksheet('1 Say anything')!);
    // In the order they were asked, each once.
    expect(pairsOf(workbook.getWorksheet('2 Questions')!).map(([label]) => label)).toEqual(
      Array.from({ length: asked }, (_, i) => `question ${i}`),
    );

    // Bytes handed over as they are zipped, not one buffer at the end.
    const { chunks, contentType, filename } = await exportResults(t.server.deps, workspaceId, pollId, 'xlsx');
    expect({ contentType, filename }).toEqual({
      contentType: resultsFiles.xlsx.contentType,
      filename: `poll-${pollId}-results.xlsx`,
    });
    const sizes: number[] = [];
    for await (const chunk of chunks) {
      expect(chunk).toBeInstanceOf(Uint8Array);
      sizes.push((chunk as Uint8Array).byteLength);
    }
    expect(sizes.length).toBeGreaterThan(3);
    expect(Math.max(...sizes)).toBeLessThan(res.bytes.byteLength);

    // The bound on what waits to be deflated rests on exceljs's and archiver's insides: still there.
    const writer = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: new PassThrough(), useStyles: true });
    const input = zipInputOf(writer.addWorksheet('probe'));
    expect(input, 'exceljs or archiver changed: the XLSX export no longer waits for the zip').toBeDefined();
    expect(input?._writableState.highWaterMark).toBeGreaterThan(0);

    // A reader that stops after the first chunk (a client gone) ends it without an error left behind.
    const again = await exportResults(t.server.deps, workspaceId, pollId, 'xlsx');
    for await (const chunk of again.chunks) {
      expect(chunk).toBeInstanceOf(Uint8Array);
      break;
    }
    // And the export after it is whole (its bytes differ: a workbook records when it was made).
    const after = await readWorkbook((await download(`/polls/${pollId}/export?format=xlsx`)).bytes);
    expect(pairsOf(after.getWorksheet('1 Say anything')!)).toEqual(texts);
  });

  it('counts only the session’s own answers in a session’s export', async () => {
    const { id: pollId, slides } = await publishedPoll(sampleContent());
    const created = await api.request('POST /sessions', { apiKey, body: { pollId, pace: 'audience' } });
    expectStatus(created, 201);
    const sessionId: string = created.body.id;
    const link = String(created.body.joinUrl).split('/').pop()!;
    const started = await api.request('POST /sessions/{id}/control', {
      params: { id: sessionId },
      apiKey,
      body: { action: 'start' },
    });
    expectStatus(started, 200);
    for (const [index, name] of ['Ann', 'Abe'].entries()) {
      const joined = await api.request('POST /live/{pin}/join', { params: { pin: link }, body: { name } });
      expectStatus(joined, 200);
      const headers = { 'x-participant-token': joined.body.participantToken };
      for (const answer of [
        { slideId: 'lunch', optionIds: ['pizza'] },
        { slideId: 'capital', optionIds: ['paris'] },
        { slideId: 'mood', scaleValues: { work: index + 3 } },
        { slideId: 'rank', rankingOrder: ['a', 'b', 'c'] },
        { slideId: 'words', text: `=room ${index}` },
        { slideId: 'ask', text: `${name} asks?` },
      ]) {
        const sent = await api.request('POST /live/{pin}/answers', { params: { pin: link }, body: answer, headers });
        expectStatus(sent, 201);
      }
    }
    // Outside the session, through the API: in the poll's export, not the session's.
    await submit(pollId, slides, { voterId: 'api-1', slideId: 'lunch', optionIds: ['sushi'] });
    await submit(pollId, slides, { voterId: 'api-1', slideId: 'words', text: 'from the API' });

    const res = await download(`/sessions/${sessionId}/export?format=xlsx`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(resultsFiles.xlsx.contentType);
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="session-${sessionId}-results.xlsx"`);
    const workbook = await readWorkbook(res.bytes);
    const roomResults: LooseJson = (
      await api.request('GET /sessions/{id}/results', { params: { id: sessionId }, apiKey })
    ).body;
    const roomSlides = roomResults.slides;

    const summary = bodyOf(workbook.getWorksheet('Summary')!, 5);
    for (const [index, slide] of slides.entries()) {
      const result = roomSlides[index];
      const counted = result.kind === 'qa' ? result.totalQuestions : result.totalAnswers;
      expect(summary[index]?.[3]?.value ?? null, slide.id).toBe(slide.kind === 'content' ? null : counted);
    }
    expect(pairsOf(workbook.getWorksheet('1 Where shall we eat')!)).toEqual([
      ['Pizza', 2],
      ['Sushi', 0],
    ]);
    expect(summary[0]?.[3]?.value).toBe(2);
    expect(summary[2]?.[4]?.value).toBe(3.5);
    expect(sorted(pairsOf(workbook.getWorksheet('5 One word')!))).toEqual([
      ['=room 0', 1],
      ['=room 1', 1],
    ]);

    const whole = await readWorkbook((await download(`/polls/${pollId}/export?format=xlsx`)).bytes);
    expect(pairsOf(whole.getWorksheet('1 Where shall we eat')!)).toEqual([
      ['Pizza', 2],
      ['Sushi', 1],
    ]);
    expect(pairsOf(whole.getWorksheet('5 One word')!).map(([label]) => label)).toContain('from the API');
  });

  it('comes from the SDK as bytes exceljs reads', async () => {
    const { id: pollId, slides } = await publishedPoll();
    await submit(pollId, slides, { voterId: 'v1', slideId: 'lunch', optionIds: ['sushi'] });
    const client = createClient({ apiKey, baseUrl: t.url, maxRetries: 0 });
    const bytes = await client.results.export({ id: pollId, format: 'xlsx' });
    expect(bytes).toBeInstanceOf(Uint8Array);
    const workbook = await readWorkbook(bytes);
    expect(workbook.worksheets.map((sheet) => sheet.name)).toEqual(SHEET_NAMES);
    expect(pairsOf(workbook.getWorksheet('1 Where shall we eat')!)).toEqual([
      ['Pizza', 0],
      ['Sushi', 1],
    ]);
    // CSV stays the default.
    const text = await client.results.export({ id: pollId });
    expect(typeof text).toBe('string');
    expect(text.startsWith('Slide,Question,Type,Answer / Label,Count / Value\r\n')).toBe(true);
  });

  it('is described in the OpenAPI document as a binary XLSX download next to the CSV', async () => {
    const res = await rawCall<LooseJson>('GET', `${t.api}/openapi.json`);
    expect(res.status).toBe(200);
    for (const path of ['/polls/{id}/export', '/sessions/{id}/export']) {
      const operation = res.body.paths[path].get;
      const format = operation.parameters.find((p: Json) => p.name === 'format' && p.in === 'query');
      expect(format?.schema, path).toMatchObject({ enum: ['csv', 'xlsx'], default: 'csv' });
      const content = operation.responses['200'].content;
      expect(content[resultsFiles.xlsx.contentType].schema, path).toEqual({ type: 'string', format: 'binary' });
      expect(content['text/csv'].schema.type, path).toBe('string');
    }
  });

  it('is refused as the CSV is: 402 on the free plan, 403 without export:read, 422 for an unknown format', async () => {
    const { id: pollId } = await publishedPoll();

    const { apiKey: freeKey } = await t.workspace('free');
    const free = await api.request('GET /polls/{id}/export', {
      params: { id: pollId },
      query: { format: 'xlsx' },
      apiKey: freeKey,
    });
    expectError(free, 402, 'upgrade_required');
    expect(free.headers.get('content-type')).toMatch(/^application\/json/);

    const reader = await api.request('POST /keys', {
      apiKey,
      body: { name: 'No export', scopes: ['polls:read', 'responses:read'] },
    });
    expectStatus(reader, 201);
    const refused = await api.request('GET /polls/{id}/export', {
      params: { id: pollId },
      query: { format: 'xlsx' },
      apiKey: reader.body.secret,
    });
    expectError(refused, 403, 'insufficient_scope');
    expect(refused.body.error.details).toMatchObject({ requiredScope: 'export:read' });

    const pdf = await rawCall('GET', `${t.api}/polls/${pollId}/export?format=pdf`, { apiKey });
    expectError(pdf, 422, 'validation_failed');

    const unknown = await api.request('GET /polls/{id}/export', {
      params: { id: 'poll_01AAAAAAAAAAAAAAAAAAAAAAAA' },
      query: { format: 'xlsx' },
      apiKey,
    });
    expectError(unknown, 404, 'not_found');
    expect(unknown.headers.get('content-type')).toMatch(/^application\/json/);
  });
});
