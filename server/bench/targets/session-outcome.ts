/**
 * Bench target: the real server with one ended live quiz of BENCH_OUTCOME_PARTICIPANTS participants
 * (10,000 by default), each joined and answering both quiz slides through the API, as a room does.
 * Prints `{ url, apiKey, sessionId, deepCursor, database }`: `deepCursor` starts the page halfway
 * down the ranked list.
 */
import { benchWorkspace, startBenchServer } from './server.js';

const participants = Number(process.env.BENCH_OUTCOME_PARTICIPANTS ?? 10_000);
const concurrency = 64;

const server = await startBenchServer();
const { apiKey } = await benchWorkspace(server.deps.db);
const api = `${server.url}/api/v1`;

/**
 * One request; a 429 is retried after a moment, as the SDK and the pages do: 64 joins in flight from
 * one address exceed its PIN-lookup budget while they are in flight (docs/rate-limits.md, "Lookups").
 */
async function send(method: string, path: string, body: unknown, headers: Record<string, string> = {}) {
  for (let attempt = 1; ; attempt++) {
    const response = await fetch(`${api}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (response.status === 429 && attempt < 50) {
      await response.arrayBuffer();
      await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 80));
      continue;
    }
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
    return response.json() as Promise<any>;
  }
}
const withKey = { authorization: `Bearer ${apiKey}` };

const quiz = (id: string, points: number) => ({
  id,
  kind: 'quiz',
  text: `Question ${id}`,
  options: [
    { id: 'a', label: 'A' },
    { id: 'b', label: 'B' },
    { id: 'c', label: 'C' },
  ],
  correctOptionIds: ['a'],
  timeLimitSec: 600,
  points,
  speedBonus: false,
});
const poll = await send(
  'POST',
  '/polls',
  { title: 'Outcome bench', content: { questions: [quiz('q1', 1000), quiz('q2', 500)] } },
  withKey,
);
await send('PATCH', `/polls/${poll.id}`, { publish: true }, withKey);
const session = await send('POST', '/sessions', { pollId: poll.id, maxParticipants: participants }, withKey);
await send('POST', `/sessions/${session.id}/control`, { action: 'start' }, withKey);

/** Runs `task` for 0…count-1, `concurrency` at a time. */
async function each(count: number, task: (index: number) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await task(next++);
    }),
  );
}
const tokens: string[] = [];
await each(participants, async (index) => {
  const joined = await send('POST', `/live/${session.pin}/join`, { name: `Player ${index}` });
  tokens[index] = joined.participantToken;
});
// Answers spread the scores (0, 500, 1,000, 1,500) so ranks tie in large groups, as quizzes do.
const choice = (index: number, slide: number) => (((index >> slide) & 1) === 0 ? 'a' : 'b');
for (const [slide, slideId] of ['q1', 'q2'].entries()) {
  if (slide > 0) await send('POST', `/sessions/${session.id}/control`, { action: 'next' }, withKey);
  await each(participants, async (index) => {
    await send(
      'POST',
      `/live/${session.pin}/answers`,
      { slideId, optionIds: [choice(index, slide)] },
      { 'x-participant-token': tokens[index] as string },
    );
  });
}
await send('POST', `/sessions/${session.id}/control`, { action: 'end' }, withKey);

// The cursor of the page that starts halfway down the list.
let cursor: string | null = null;
for (let read = 0; read < participants / 2; read += 100) {
  const page: { nextCursor: string | null } = await send(
    'GET',
    `/sessions/${session.id}/participants?limit=100${cursor ? `&cursor=${cursor}` : ''}`,
    undefined,
    withKey,
  );
  cursor = page.nextCursor;
}

process.stdout.write(
  `${JSON.stringify({ url: server.url, apiKey, sessionId: session.id, deepCursor: cursor, database: server.deps.database.description })}\n`,
);
