import type { Slide } from '@pollkit/contracts';
import Papa from 'papaparse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CSV_BATCH_ROWS } from '../../src/modules/results/csv-export.js';
import { exportResults } from '../../src/modules/results/results.service.js';
import { csvExportContent, manyTextsContent } from '../support/decks.js';
import { type LooseJson, rawCall } from '../support/http.js';
import { UNLIMITED } from '../support/limits.js';
import { pendingText, pollPublisher } from '../support/polls.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { expectStatus, testClient } from '../support/test-client.js';

/**
 * GET /polls/{id}/export over real HTTP: the CSV is parsed back with papaparse and every row compared
 * with GET /polls/{id}/results (and, for the rows results do not list, with what was submitted).
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

const HEADER = 'Slide,Question,Type,Answer / Label,Count / Value';

const publishedPoll = pollPublisher(() => ({ api: t.api, apiKey, title: 'Export', content: csvExportContent() }));

async function submit(pollId: string, slides: Json[], body: Json): Promise<string> {
  const kind = slides.find((s) => s.id === body.slideId)?.kind;
  const res = await rawCall<{ id: string }>(
    'POST',
    `${t.api}/polls/${pollId}/${kind === 'multiple_choice' ? 'votes' : 'responses'}`,
    {
      apiKey,
      body,
    },
  );
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id;
}

/**
 * Thousands of open-ended answers and questions, written through the AnswerWriter exactly as the
 * responses route writes them (same row, same aggregate deltas) without thousands of HTTP requests.
 */
async function writeAll(pollId: string, version: string, slide: Slide, texts: { voterId: string; text: string }[]) {
  const outcomes = await Promise.all(
    texts.map(({ voterId, text }) =>
      t.server.deps.answerWriter.write(pendingText(pollId, slide, voterId, text), version),
    ),
  );
  expect(new Set(outcomes)).toEqual(new Set(['accepted']));
}

const exportCsv = (pollId: string, key = apiKey) =>
  api.request('GET /polls/{id}/export', { params: { id: pollId }, apiKey: key });

/** The data rows, parsed back (every field as text). */
function parseRows(text: string): string[][] {
  const parsed = Papa.parse<string[]>(text, { skipEmptyLines: true });
  expect(parsed.errors).toEqual([]);
  expect(parsed.data[0]).toEqual(HEADER.split(','));
  return parsed.data.slice(1);
}

/** What a cell must look like: formula-looking text gets a leading `'`. Written here independently of the server. */
const safe = (text: string) => (/^[=+\-@\t\r]/.test(text) ? `'${text}` : text);
const fixed2 = (value: number | null) => (value === null ? '' : value.toFixed(2));

/**
 * The rows the export must contain for the slides whose rows come from the results endpoint, in
 * deck order. Open-ended and Q&A rows are listed by the caller (results hold only top-N lists).
 */
function rowsFromResults(slides: Json[], results: Json, extra: Record<string, string[][]> = {}): string[][] {
  return slides.flatMap((slide, index) => {
    const number = String(index + 1);
    const result = results.slides[index];
    expect(result.slideId).toBe(slide.id);
    const row = (label: string, value: string | number) => [
      number,
      safe(slide.text),
      slide.kind,
      safe(label),
      String(value),
    ];
    switch (slide.kind) {
      case 'multiple_choice':
      case 'quiz':
        return result.options.map((o: Json) => row(o.label, o.count));
      case 'scale': {
        const scaleRows = (prefix: string, average: number | null, distribution: Json[]) => [
          row(`${prefix}Average`, fixed2(average)),
          ...distribution.map((d) => row(`${prefix}Rating ${d.value}`, d.count)),
        ];
        return [
          ...scaleRows('', result.average, result.distribution),
          ...result.statements.flatMap((s: Json) => scaleRows(`${s.text}: `, s.average, s.distribution)),
        ];
      }
      case 'ranking':
        return result.options.map((o: Json) => row(o.label, fixed2(o.averageRank)));
      case 'open_ended':
      case 'qa':
        return (extra[slide.id] ?? []).map(([label, value]) => row(label!, value!));
      default:
        return [];
    }
  });
}

/** Rows of one slide, order-free (open-ended texts and questions come in storage order). */
const sortRows = (rows: string[][]) => [...rows].sort((a, b) => (a.join('\u0000') < b.join('\u0000') ? -1 : 1));

describe('GET /polls/{id}/export', () => {
  it('streams a CSV whose every row matches the results, quoted and neutralised as RFC 4180 and spreadsheets need', async () => {
    const { id: pollId, slides } = await publishedPoll();
    await Promise.all(
      [
        { voterId: 'v1', slideId: 'lunch', optionIds: ['pizza'] },
        { voterId: 'v2', slideId: 'lunch', optionIds: ['sushi'] },
        { voterId: 'v3', slideId: 'lunch', optionIds: ['pizza'] },
        { voterId: 'v1', slideId: 'capital', optionIds: ['paris'] },
        { voterId: 'v2', slideId: 'capital', optionIds: ['lyon', 'paris'] },
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
      ].map((ballot) => submit(pollId, slides, ballot)),
    );

    // Open-ended: repeated texts (one differing only in spacing), formula-looking ones, quotes and commas.
    const texts = [
      'Blue sky',
      'blue sky',
      'Blue   sky',
      '=1+1',
      '@cmd',
      '-2+3',
      '+SUM(A1)',
      'Say "hi", then go',
      'Blue sky',
    ];
    await Promise.all(texts.map((text, i) => submit(pollId, slides, { voterId: `w${i}`, slideId: 'words', text })));
    const textCounts = new Map<string, number>();
    for (const text of texts.map((x) => x.replace(/\s+/g, ' '))) textCounts.set(text, (textCounts.get(text) ?? 0) + 1);

    // Q&A: approved questions are exported with their upvotes; pending and dismissed ones are not.
    const approved = await submit(pollId, slides, { voterId: 'v1', slideId: 'ask', text: '=WEBSERVICE("x")?' });
    await submit(pollId, slides, { voterId: 'v2', slideId: 'ask', text: 'Still pending?' });
    const dismissed = await submit(pollId, slides, { voterId: 'v3', slideId: 'ama', text: 'Off topic' });
    await submit(pollId, slides, { voterId: 'v3', slideId: 'ama', text: 'On topic' });
    for (const [id, status] of [
      [approved, 'approved'],
      [dismissed, 'dismissed'],
    ] as const) {
      const res = await api.request('PATCH /polls/{id}/questions/{questionId}', {
        params: { id: pollId, questionId: id },
        apiKey,
        body: { status },
      });
      expectStatus(res, 200);
    }
    for (const voterId of ['v1', 'v2']) {
      const res = await api.request('POST /polls/{id}/questions/{questionId}/upvotes', {
        params: { id: pollId, questionId: approved },
        apiKey,
        body: { voterId },
      });
      expectStatus(res, 201);
    }

    const res = await exportCsv(pollId);
    expectStatus(res, 200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="poll-${pollId}-results.csv"`);
    expect(res.headers.get('x-ratelimit-limit')).toEqual(expect.any(String));

    // RFC 4180: CRLF after every record, the header exactly as specified, nothing but CRLF as line ends.
    expect(res.text.startsWith(`${HEADER}\r\n`)).toBe(true);
    expect(res.text.endsWith('\r\n')).toBe(true);
    expect(res.text.replaceAll('\r\n', '')).not.toMatch(/[\r\n]/);
    const lines = res.text.split('\r\n').slice(1, -1);
    // The question (second field) is quoted on every data line; the slide number before it never is.
    for (const line of lines) expect(line, line).toMatch(/^\d+,"/);

    const resultsRes = await api.request('GET /polls/{id}/results', { params: { id: pollId }, apiKey });
    expectStatus(resultsRes, 200);
    const expected = rowsFromResults(slides, resultsRes.body, {
      words: [...textCounts].map(([text, count]) => [text, String(count)]),
      ask: [['=WEBSERVICE("x")?', '2']],
      ama: [['On topic', '0']],
    });
    const rows = parseRows(res.text);
    expect(rows).toHaveLength(expected.length);
    // Slide by slide: deck order across slides, storage order within the open-ended and Q&A ones.
    for (const [index, slide] of slides.entries()) {
      const of = (all: string[][]) => all.filter((r) => r[0] === String(index + 1));
      if (slide.kind === 'open_ended' || slide.kind === 'qa')
        expect(sortRows(of(rows))).toEqual(sortRows(of(expected)));
      else expect(of(rows), slide.id).toEqual(of(expected));
    }

    // What those comparisons rest on, spelled out.
    const byLabel = (label: string) => rows.find((r) => r[3] === label);
    expect(byLabel("'=1+1")?.[4]).toBe('1');
    expect(byLabel("'@cmd")).toBeDefined();
    expect(byLabel("'-2+3")).toBeDefined();
    expect(byLabel("'+SUM(A1)")).toBeDefined();
    expect(byLabel('Blue sky')?.[4]).toBe('3');
    expect(byLabel('Say "hi", then go')?.[4]).toBe('1');
    expect(byLabel("'-5 degrees")?.[4]).toBe('2');
    expect(rows.some((r) => r[3] === 'Off topic' || r[3] === 'Still pending?')).toBe(false);
    expect(rows.find((r) => r[2] === 'scale' && r[3] === 'Average' && r[0] === '8')).toEqual([
      '8',
      `'=HYPERLINK("x") hot, or cold?`,
      'scale',
      'Average',
      '-1.67',
    ]);
    expect(rows.filter((r) => r[0] === '3').map((r) => r[3])).toEqual([
      'Average',
      ...[1, 2, 3, 4, 5].map((n) => `Rating ${n}`),
      'About work: Average',
      ...[1, 2, 3, 4, 5].map((n) => `About work: Rating ${n}`),
    ]);
    expect(rows.find((r) => r[3] === 'About work: Average')?.[4]).toBe('4.67');
    expect(rows.filter((r) => r[2] === 'ranking').map((r) => r[4])).toEqual(['2.00', '2.33', '1.67']);
    expect(rows.some((r) => r[0] === '7')).toBe(false); // the content slide keeps its number, has no rows
    // Numbers are never neutralised: a negative average stays a number.
    expect(rows.find((r) => r[3] === 'Rating -2' && r[0] === '8')?.[4]).toBe('2');
    // Quoting only where needed outside the question column.
    expect(res.text).toContain(',multiple_choice,Pizza,2\r\n');
    expect(res.text).toContain(',"Say ""hi"", then go",1\r\n');
    expect(res.text).toContain(`,"'=HYPERLINK(""x"") hot, or cold?",scale,Average,-1.67\r\n`);
  });

  it('exports header and zero-count rows for a poll nobody answered', async () => {
    const { id: pollId, slides } = await publishedPoll();
    const res = await exportCsv(pollId);
    expectStatus(res, 200);
    const rows = parseRows(res.text);

    // Built from the deck alone: nobody answered, so counts are 0 and averages empty.
    const expected = slides.flatMap((slide: Json, index) => {
      const row = (label: string, value: string) => [
        String(index + 1),
        safe(slide.text),
        slide.kind,
        safe(label),
        value,
      ];
      const ratings = (prefix: string) => [
        row(`${prefix}Average`, ''),
        ...Array.from({ length: slide.max - slide.min + 1 }, (_, i) => row(`${prefix}Rating ${slide.min + i}`, '0')),
      ];
      switch (slide.kind) {
        case 'multiple_choice':
        case 'quiz':
          return slide.options.map((o: Json) => row(o.label, '0'));
        case 'scale':
          return [...ratings(''), ...slide.statements.flatMap((s: Json) => ratings(`${s.text}: `))];
        case 'ranking':
          return slide.options.map((o: Json) => row(o.label, ''));
        default:
          return [];
      }
    });
    expect(rows).toEqual(expected);
    expect(rows.length).toBeGreaterThan(0);
  });

  it('pages through thousands of distinct texts and questions, each exported once with its count', async () => {
    const content = manyTextsContent();
    const { id: pollId, slides, version } = await publishedPoll({ content });
    const [openSlide, qaSlide] = slides;

    const distinctTexts = CSV_BATCH_ROWS * 2 + 37;
    const approvedQuestions = CSV_BATCH_ROWS + 5;
    const expectedTexts = new Map<string, number>();
    const answers: { voterId: string; text: string }[] = [];
    for (let i = 0; i < distinctTexts; i++) {
      // Every 100th text is given three times, so counts above one cross the page boundaries too.
      const times = i % 100 === 0 ? 3 : 1;
      for (let k = 0; k < times; k++) answers.push({ voterId: `voter-${i}-${k}`, text: `answer ${i}` });
      expectedTexts.set(`answer ${i}`, times);
    }
    const questions = Array.from({ length: approvedQuestions }, (_, i) => ({
      voterId: `asker-${i % 50}`,
      text: `question ${i}`,
    }));
    await writeAll(pollId, version, openSlide!, answers);
    await writeAll(pollId, version, qaSlide!, questions);
    // And a few through the API, the way they normally arrive.
    await submit(pollId, slides, { voterId: 'late-1', slideId: 'many', text: 'answer 1' });
    await submit(pollId, slides, { voterId: 'late-2', slideId: 'many', text: 'answer 2' });
    expectedTexts.set('answer 1', 2);
    expectedTexts.set('answer 2', 2);

    const res = await exportCsv(pollId);
    expectStatus(res, 200);
    const rows = parseRows(res.text);

    const exportedTexts = rows.filter((r) => r[0] === '1');
    expect(exportedTexts).toHaveLength(distinctTexts);
    expect(new Set(exportedTexts.map((r) => r[3])).size).toBe(distinctTexts);
    expect(new Map(exportedTexts.map((r) => [r[3]!, Number(r[4])]))).toEqual(expectedTexts);

    const exportedQuestions = rows.filter((r) => r[0] === '2');
    // In the order they were asked (the keyset is the time-ordered id), each once.
    expect(exportedQuestions.map((r) => r[3])).toEqual(questions.map((q) => q.text));
    expect(exportedQuestions.every((r) => r[4] === '0')).toBe(true);

    // Streamed a batch at a time: the header, then chunks of about CSV_BATCH_ROWS rows each.
    const { chunks } = await exportResults(t.server.deps, workspaceId, pollId);
    const sizes: number[] = [];
    for await (const chunk of chunks) sizes.push(String(chunk).split('\r\n').length - 1);
    expect(sizes[0]).toBe(1);
    expect(sizes.slice(1).reduce((a, b) => a + b, 0)).toBe(distinctTexts + approvedQuestions);
    expect(sizes.length).toBeGreaterThanOrEqual(
      1 + Math.ceil((distinctTexts + approvedQuestions) / (2 * CSV_BATCH_ROWS)),
    );
    expect(Math.max(...sizes)).toBeLessThan(2 * CSV_BATCH_ROWS);
  });

  it('is for Pro and Enterprise plans: 402 for a free workspace, 200 for enterprise, 404 for another workspace’s poll', async () => {
    const { id: pollId } = await publishedPoll();

    const { apiKey: freeKey } = await t.workspace('free');
    const free = await exportCsv(pollId, freeKey);
    expectStatus(free, 402);
    expect(free.headers.get('content-type')).toMatch(/^application\/json/);
    expect(free.body.error.code).toBe('upgrade_required');

    const { apiKey: enterpriseKey } = await t.workspace('enterprise');
    const { id: enterprisePoll } = await publishedPoll({ apiKey: enterpriseKey });
    const enterprise = await exportCsv(enterprisePoll, enterpriseKey);
    expectStatus(enterprise, 200);
    expect(enterprise.text.startsWith(`${HEADER}\r\n`)).toBe(true);

    const foreign = await exportCsv(pollId, enterpriseKey);
    expectStatus(foreign, 404);
    expect(foreign.headers.get('content-type')).toMatch(/^application\/json/);
    expect(foreign.body.error.code).toBe('not_found');

    const unknown = await exportCsv('poll_01AAAAAAAAAAAAAAAAAAAAAAAA');
    expectStatus(unknown, 404);
    expect(unknown.body.error.code).toBe('not_found');
  });

  it('is described in the OpenAPI document as a CSV (or XLSX) download, not JSON', async () => {
    const res = await rawCall<LooseJson>('GET', `${t.api}/openapi.json`);
    expect(res.status).toBe(200);
    const operation = res.body.paths['/polls/{id}/export'].get;
    expect(operation['x-pollkit-plan']).toBe('pro');
    const success = operation.responses['200'];
    expect(Object.keys(success.content)).toEqual([
      'text/csv',
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    ]);
    expect(success.content['text/csv'].schema.type).toBe('string');
    expect(success.content['application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'].schema).toEqual({
      type: 'string',
      format: 'binary',
    });
    const disposition = success.headers['Content-Disposition'];
    expect(disposition.required).toBe(true);
    expect(new RegExp(disposition.schema.pattern).test('attachment; filename="poll-x-results.csv"')).toBe(true);
    expect(operation.responses['402'].content['application/json']).toBeDefined();
  });
});
