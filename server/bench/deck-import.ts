/**
 * What an import costs, and what a hostile file can cost (issue 40): `POST /polls/import` with a dry
 * run (the reading and the report, nothing stored) on files of up to the 2 MiB limit, ordinary and
 * built to be slow, over HTTP to a server in this process. Prints, per file, the median and worst
 * time of `rounds` imports, and the longest the event loop was blocked meanwhile (what every other
 * request on the process waited), as a Markdown table.
 *
 *   npx tsx --conditions=@pollkit/source server/bench/deck-import.ts [rounds]
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { BodyOf } from '../test/support/test-client.js';

const rounds = Number(process.argv[2] ?? 5);
const { startTestServer } = await import('../test/support/server.js');
const { testClient } = await import('../test/support/test-client.js');

const t = await startTestServer({ RATE_LIMIT_PER_MINUTE: '100000000', LOG_LEVEL: 'error' });
const LIMIT = 2 * 1024 * 1024 - 1024;

/** `unit` repeated up to just under the 2 MiB limit. */
const fill = (unit: string, head = '', tail = '') =>
  head + unit.repeat(Math.floor((LIMIT - head.length - tail.length) / Buffer.byteLength(unit))) + tail;

const giftQuestion = (i: number) =>
  `::Q${i}:: [html]<p>Which of these is <b>true</b> about item ${i}?</p> {\n  =Right answer ${i}\n  ~Wrong ${i} a\n  ~Wrong ${i} b # feedback\n}\n\n`;
const xmlQuestion = (i: number) =>
  `<question type="multichoice"><name><text>Q${i}</text></name><questiontext format="html"><text><![CDATA[<p>Question <b>${i}</b>?</p>]]></text></questiontext><single>true</single><answer fraction="100"><text>Yes</text></answer><answer fraction="0"><text>No</text></answer></question>\n`;
const QUIZ_HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n<quiz>\n';

let n = 0;
const files: [name: string, format: BodyOf<'POST /polls/import'>['format'], source: string][] = [
  ['GIFT, 2 MiB of ordinary questions', 'gift', fill(giftQuestion(n++))],
  ['GIFT, one [html] question of unclosed `<a `', 'gift', fill('<a ', '::Q:: [html]', ' {=A ~B}')],
  ['GIFT, 2 MiB of unclosed `{`', 'gift', fill('Q? {\n=A\n\n')],
  ['GIFT, 2 MiB of escapes', 'gift', fill('\\{\\}\\=\\~', 'Q ', ' {=A ~B}')],
  ['Aiken, 2 MiB of ordinary questions', 'aiken', fill('What is it?\nA) One\nB) Two\nANSWER: A\n\n')],
  ['Aiken, 2 MiB of options without a question', 'aiken', fill('A) x\n')],
  ['Moodle XML, 2 MiB of ordinary questions', 'moodle_xml', fill(xmlQuestion(1), QUIZ_HEAD, '</quiz>\n')],
  [
    'Moodle XML, one question of unclosed `<!--`',
    'moodle_xml',
    fill(
      '&lt;!--',
      `${QUIZ_HEAD}<question type="essay"><questiontext format="html"><text>`,
      '</text></questiontext></question></quiz>',
    ),
  ],
  ['Moodle XML, 2 MiB of unclosed `<question`', 'moodle_xml', fill('<question type="essay">', QUIZ_HEAD)],
  [
    'Moodle XML, nested entities (billion laughs)',
    'moodle_xml',
    `<?xml version="1.0"?><!DOCTYPE quiz [<!ENTITY a "aaaaaaaaaa">${Array.from({ length: 9 }, (_, i) => `<!ENTITY ${String.fromCharCode(98 + i)} "${`&${String.fromCharCode(97 + i)};`.repeat(10)}">`).join('')}]><quiz><question type="essay"><questiontext><text>&j;</text></questiontext></question></quiz>`,
  ],
  ['Pollkit, 2 MiB of JSON nesting', 'pollkit', fill('[', '', '')],
];

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

console.log(`| file | bytes | answer | median ms | worst ms | event loop blocked, worst ms |`);
console.log('| --- | ---: | --- | ---: | ---: | ---: |');
for (const [name, format, source] of files) {
  const times: number[] = [];
  const blocked = monitorEventLoopDelay({ resolution: 1 });
  let status = 0;
  // A workspace per file: imports have a per-minute limit of their own.
  const { apiKey } = await t.workspace('pro');
  for (let round = 0; round < rounds; round++) {
    blocked.enable();
    const started = performance.now();
    const answer = await testClient(t.api).request('POST /polls/import', {
      apiKey,
      body: { format, source, dryRun: true },
    });
    times.push(performance.now() - started);
    blocked.disable();
    status = answer.status;
  }
  const bytes = Buffer.byteLength(source);
  console.log(
    `| ${name} | ${bytes.toLocaleString('en')} | ${status} | ${median(times).toFixed(0)} | ${Math.max(...times).toFixed(0)} | ${(blocked.max / 1e6).toFixed(0)} |`,
  );
}
await t.close();
