/**
 * A statement whose text starts with `preparedStatement(name)` runs as a named prepared statement:
 * PostgreSQL parses and plans it once per connection instead of at every call (pg prepares it on
 * each connection the first time that connection runs it, again after a reconnect). Only for
 * statements whose text is fixed whatever their parameters (arrays rather than lists of
 * placeholders), run often enough that planning counts: planning the answer writer's batch
 * statement took 0.8–1.2 ms of a 4 ms flush (server/bench/RESULTS.md, issue 29). The marker is read
 * by the pg pool's wrapper (postgres.ts) and, on PGlite, which has no API for named statements, by
 * pglite-prepared.ts, which prepares the statement through the wire protocol; there a marked
 * statement inside a transaction runs unprepared, its marker only a comment.
 */
export function preparedStatement(name: string): string {
  if (!/^[a-z_]+$/.test(name)) throw new Error(`Bad prepared statement name: ${name}`);
  return `/* prepared:${name} */`;
}

const PREPARED = /^\/\* prepared:([a-z_]+) \*\//;

export function preparedName(sql: string): string | undefined {
  return sql.startsWith('/* prepared:') ? `pollkit_${PREPARED.exec(sql)?.[1]}` : undefined;
}
