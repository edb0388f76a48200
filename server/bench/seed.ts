/**
 * Seeds a published poll with N answers straight through the answer writer's batch statement (the
 * same SQL the API uses, without HTTP), for the results and export benchmarks. Four slides —
 * multiple choice, scale, ranking, open-ended — and one answer per slide per voter; the open-ended
 * answers use `distinctTexts` different texts.
 *
 *   BENCH_DATABASE_URL=postgres://… npx tsx --conditions=@pollkit/source bench/seed.ts 1000000 200000
 */
import type { PollContent } from '@pollkit/contracts';
import { type Kysely, sql } from 'kysely';
import { parseConfig } from '../src/config.js';
import { newId } from '../src/db/ids.js';
import type { Database } from '../src/db/schema.js';
import { type AppDeps, closeDeps, createDeps } from '../src/deps.js';
import { createLogger } from '../src/logger.js';
import { insertAnswerBatch, type VersionedAnswer } from '../src/modules/answers/answer-batch.repository.js';
import type { PendingAnswer } from '../src/modules/answers/answer-writer.js';
import { deltasFor } from '../src/modules/answers/tallies.js';
import { createPoll, updatePoll } from '../src/modules/polls/polls.service.js';
import { benchWorkspace, lunchSlide } from './targets/server.js';

export const seededContent: PollContent = {
  questions: [
    lunchSlide,
    { id: 'mood', kind: 'scale', text: 'How was the week?', min: 1, max: 5, statements: [] },
    {
      id: 'rank',
      kind: 'ranking',
      text: 'Rank the projects',
      options: ['a', 'b', 'c', 'd'].map((id) => ({ id, label: `Project ${id}` })),
    },
    { id: 'words', kind: 'open_ended', text: 'Anything else?', maxLength: 200, render: 'list' },
  ],
};

const permutations = [
  ['a', 'b', 'c', 'd'],
  ['b', 'a', 'd', 'c'],
  ['c', 'd', 'a', 'b'],
  ['d', 'c', 'b', 'a'],
  ['a', 'c', 'b', 'd'],
];
const words = ['great', 'team', 'food', 'slow', 'coffee', 'launch', 'bugs', 'demo', 'friday', 'remote'];

/** The answers of voter number `n`: deterministic, so runs are comparable. */
function answersOf(pollId: string, n: number, distinctTexts: number): PendingAnswer[] {
  const slides = seededContent.questions;
  const values = [
    { optionIds: [['pizza', 'sushi', 'tacos', 'salad'][n % 4] as string] },
    { scaleValue: 1 + (n % 5) },
    { rankingOrder: permutations[n % permutations.length] as string[] },
    { text: `${words[n % words.length]} ${words[(n >> 3) % words.length]} #${n % distinctTexts}` },
  ];
  return slides.map((slide, index) => {
    const value = values[index] as Record<string, unknown>;
    return {
      row: {
        id: newId(slide.kind === 'multiple_choice' ? 'vote' : 'response'),
        poll_id: pollId,
        slide_id: slide.id,
        voter_id: `voter-${n}`,
        kind: slide.kind === 'multiple_choice' ? ('vote' as const) : ('response' as const),
        slide_kind: slide.kind,
        value: JSON.stringify(value),
        status: null,
        created_at: new Date(),
      },
      deltas: deltasFor(slide, value),
    };
  });
}

export async function seedPoll(
  deps: AppDeps,
  options: { answers: number; distinctTexts: number; onProgress?: (done: number) => void },
): Promise<{ apiKey: string; pollId: string }> {
  const db: Kysely<Database> = deps.db;
  const { workspaceId, apiKey: secret } = await benchWorkspace(db);
  const poll = await createPoll(deps, workspaceId, { title: `Seeded ${options.answers}`, content: seededContent });
  const published = await updatePoll(deps, workspaceId, { id: poll.id, publish: true });
  const voters = Math.ceil(options.answers / seededContent.questions.length);
  const votersPerBatch = 500;
  for (let first = 0; first < voters; first += votersPerBatch) {
    const batch: VersionedAnswer[] = [];
    for (let n = first; n < Math.min(voters, first + votersPerBatch); n++) {
      for (const answer of answersOf(poll.id, n, options.distinctTexts)) {
        batch.push({ answer, pollVersion: published.updatedAt });
      }
    }
    await insertAnswerBatch(db, batch);
    options.onProgress?.(Math.min(voters, first + votersPerBatch) * seededContent.questions.length);
  }
  // What autovacuum does to a table after a bulk load, done now so the benchmark does not measure
  // plans made on empty-table statistics.
  if (deps.database.driver === 'postgres') await sql`vacuum analyze`.execute(db);
  return { apiKey: secret, pollId: poll.id };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const answers = Number(process.argv[2] ?? 1000);
  const distinctTexts = Number(process.argv[3] ?? Math.max(1, Math.floor(answers / 5)));
  const config = parseConfig({
    ...process.env,
    DATABASE_URL: process.env.BENCH_DATABASE_URL ?? 'memory://',
    LOG_LEVEL: 'warn',
  });
  const deps = await createDeps(config, createLogger({ level: 'warn', format: 'json' }));
  const started = Date.now();
  let lastReport = 0;
  const result = await seedPoll(deps, {
    answers,
    distinctTexts,
    onProgress: (done) => {
      if (Date.now() - lastReport > 5000) {
        lastReport = Date.now();
        process.stderr.write(`seeded ${done.toLocaleString('en-US')} / ${answers.toLocaleString('en-US')} answers\n`);
      }
    },
  });
  process.stderr.write(`seeded ${answers} answers in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  process.stdout.write(`${JSON.stringify(result)}\n`);
  await closeDeps(deps);
}
