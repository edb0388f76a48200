import type { PollContent } from '@pollkit/contracts';
import type { Kysely } from 'kysely';
import { expect } from 'vitest';
import type { Database } from '../../src/db/schema.js';
import { deltasFor } from '../../src/modules/answers/tallies.js';

/**
 * Every aggregate the answers feed, recomputed from the answers left with `deltasFor` (the writer's
 * own model), and compared with the tables: the poll's (slide_tallies, open_text_counts, word_counts,
 * poll_voters — the API's voters —, poll_stats, whose `voters` adds its sessions') and the sessions' (session_tallies, session_text_counts,
 * session_word_counts, session_voters, session_stats). Rows at zero are ignored on both sides (a
 * removal deletes a counter that reaches zero; a reset deletes every row).
 */
export async function expectAggregatesMatchRecount(db: Kysely<Database>): Promise<void> {
  const expected = await recount(db);
  const actual = await storedAggregates(db);
  for (const table of Object.keys(expected) as Array<keyof typeof expected>) {
    expect({ table, rows: actual[table] }).toEqual({ table, rows: expected[table] });
  }
}

type Rows = Record<string, string>;

function add(rows: Map<string, number[]>, key: string, values: number[]): void {
  const current = rows.get(key) ?? values.map(() => 0);
  rows.set(
    key,
    current.map((value, index) => value + (values[index] ?? 0)),
  );
}

/** The map as sorted `key → values` text, without rows that are all zero. */
function settled(rows: Map<string, number[]>): Rows {
  const out: Rows = {};
  for (const key of [...rows.keys()].sort()) {
    const values = rows.get(key) ?? [];
    if (values.every((value) => value === 0)) continue;
    out[key] = values.join(',');
  }
  return out;
}

async function recount(db: Kysely<Database>) {
  const polls = await db.selectFrom('polls').select(['id', 'content']).execute();
  const decks = new Map(polls.map((poll) => [poll.id, (poll.content as PollContent).questions]));
  const answers = await db.selectFrom('answers').selectAll().execute();
  const tables = {
    slide_tallies: new Map<string, number[]>(),
    open_text_counts: new Map<string, number[]>(),
    word_counts: new Map<string, number[]>(),
    poll_voters: new Map<string, number[]>(),
    poll_stats: new Map<string, number[]>(),
    session_tallies: new Map<string, number[]>(),
    session_text_counts: new Map<string, number[]>(),
    session_word_counts: new Map<string, number[]>(),
    session_voters: new Map<string, number[]>(),
    session_stats: new Map<string, number[]>(),
  };
  const pollVoters = new Map<string, Set<string>>();
  const sessionVoters = new Map<string, Set<string>>();
  const sessionPoll = new Map<string, string>();
  for (const answer of answers) {
    const slide = decks.get(answer.poll_id)?.find((s) => s.id === answer.slide_id);
    if (!slide) throw new Error(`answer ${answer.id} has no slide`);
    const deltas = deltasFor(slide, answer.value);
    const owners: Array<['poll' | 'session', string]> = [['poll', answer.poll_id]];
    if (answer.session_id !== null) owners.push(['session', answer.session_id]);
    for (const [level, owner] of owners) {
      const tallies = level === 'poll' ? tables.slide_tallies : tables.session_tallies;
      for (const delta of deltas.tallies) {
        add(tallies, `${owner}|${answer.slide_id}|${delta.key}`, [delta.count, delta.total]);
      }
      if (deltas.text) {
        add(
          level === 'poll' ? tables.open_text_counts : tables.session_text_counts,
          `${owner}|${answer.slide_id}|${deltas.text.hash}`,
          [1],
        );
      }
      for (const word of deltas.words ?? []) {
        add(
          level === 'poll' ? tables.word_counts : tables.session_word_counts,
          `${owner}|${answer.slide_id}|${word}`,
          [1],
        );
      }
      add(level === 'poll' ? tables.poll_stats : tables.session_stats, owner, [0, 1]);
    }
    // A voter is recorded once: an API voter in poll_voters, a participant in its session's voters;
    // the poll's `voters` counts both.
    const [voters, owner] =
      answer.session_id === null ? [pollVoters, answer.poll_id] : [sessionVoters, answer.session_id];
    const set = voters.get(owner) ?? new Set<string>();
    set.add(answer.voter_id);
    voters.set(owner, set);
    if (answer.session_id !== null) sessionPoll.set(answer.session_id, answer.poll_id);
  }
  for (const [owner, voters] of pollVoters) {
    for (const voter of voters) add(tables.poll_voters, `${owner}|${voter}`, [1]);
    add(tables.poll_stats, owner, [voters.size, 0]);
  }
  for (const [owner, voters] of sessionVoters) {
    for (const voter of voters) add(tables.session_voters, `${owner}|${voter}`, [1]);
    add(tables.session_stats, owner, [voters.size, 0]);
    add(tables.poll_stats, sessionPoll.get(owner) as string, [voters.size, 0]);
  }
  return Object.fromEntries(Object.entries(tables).map(([name, rows]) => [name, settled(rows)])) as Record<
    keyof typeof tables,
    Rows
  >;
}

async function storedAggregates(db: Kysely<Database>) {
  const n = Number;
  const map = <T>(rows: T[], key: (row: T) => string, values: (row: T) => number[]) => {
    const out = new Map<string, number[]>();
    for (const row of rows) add(out, key(row), values(row));
    return settled(out);
  };
  return {
    slide_tallies: map(
      await db.selectFrom('slide_tallies').selectAll().execute(),
      (r) => `${r.poll_id}|${r.slide_id}|${r.key}`,
      (r) => [n(r.count), n(r.total)],
    ),
    open_text_counts: map(
      await db.selectFrom('open_text_counts').selectAll().execute(),
      (r) => `${r.poll_id}|${r.slide_id}|${r.text_hash}`,
      (r) => [n(r.count)],
    ),
    word_counts: map(
      await db.selectFrom('word_counts').selectAll().execute(),
      (r) => `${r.poll_id}|${r.slide_id}|${r.word}`,
      (r) => [n(r.count)],
    ),
    poll_voters: map(
      await db.selectFrom('poll_voters').selectAll().execute(),
      (r) => `${r.poll_id}|${r.voter_id}`,
      () => [1],
    ),
    poll_stats: map(
      await db.selectFrom('poll_stats').selectAll().execute(),
      (r) => r.poll_id,
      (r) => [n(r.voters), n(r.answers)],
    ),
    session_tallies: map(
      await db.selectFrom('session_tallies').selectAll().execute(),
      (r) => `${r.session_id}|${r.slide_id}|${r.key}`,
      (r) => [n(r.count), n(r.total)],
    ),
    session_text_counts: map(
      await db.selectFrom('session_text_counts').selectAll().execute(),
      (r) => `${r.session_id}|${r.slide_id}|${r.text_hash}`,
      (r) => [n(r.count)],
    ),
    session_word_counts: map(
      await db.selectFrom('session_word_counts').selectAll().execute(),
      (r) => `${r.session_id}|${r.slide_id}|${r.word}`,
      (r) => [n(r.count)],
    ),
    session_voters: map(
      await db.selectFrom('session_voters').selectAll().execute(),
      (r) => `${r.session_id}|${r.voter_id}`,
      () => [1],
    ),
    session_stats: map(
      await db.selectFrom('session_stats').selectAll().execute(),
      (r) => r.session_id,
      (r) => [n(r.voters), n(r.answers)],
    ),
  };
}
