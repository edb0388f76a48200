import type { PGlite, protocol as PGliteProtocol } from '@electric-sql/pglite';
import type { CompiledQuery, DatabaseConnection, QueryResult } from 'kysely';
import { preparedName } from './prepared.js';

interface PreparedStatement {
  parameterTypes: number[];
  fields: { name: string; dataTypeID: number }[];
}

/**
 * Named prepared statements on PGlite, which has no API for them (its `query` parses and plans
 * every call): a statement marked with `preparedStatement(name)` (prepared.ts) is parsed once with
 * the wire protocol's Parse and Describe, then run with Bind and Execute. Its parameters and columns
 * go through the same PGlite serializers and parsers `query` uses. On the answer writer's batch
 * statement, planning alone was 1.2–1.4 ms of a 5 ms flush (server/bench/RESULTS.md, issue 29), in
 * the server's own thread.
 *
 * Outside a transaction only: Kysely's PGlite connection runs a transaction through PGlite's
 * exclusive transaction object, so inside one a marked statement runs unprepared, as any other.
 */
export class PGlitePreparedStatements {
  readonly #statements = new Map<string, PreparedStatement>();

  constructor(
    private readonly pglite: PGlite,
    private readonly serialize: typeof PGliteProtocol.serialize,
  ) {}

  /** `connection` with marked statements prepared, and told when a transaction begins and ends. */
  wrap(connection: DatabaseConnection): PreparingConnection {
    return new PreparingConnection(connection, this);
  }

  async execute<R>(name: string, query: CompiledQuery): Promise<QueryResult<R>> {
    return this.pglite.runExclusive(async () => {
      const statement = this.#statements.get(name) ?? (await this.#prepare(name, query.sql));
      const values = query.parameters.map((value, i) => {
        if (value === null || value === undefined) return null;
        const serializer = this.pglite.serializers[statement.parameterTypes[i] ?? 0];
        return serializer ? serializer(value) : String(value);
      });
      const { messages } = await this.pglite.execProtocol(
        concat([this.serialize.bind({ statement: name, values }), this.serialize.execute({}), this.serialize.sync()]),
        {},
      );
      const rows: R[] = [];
      for (const message of messages) {
        if (message.name !== 'dataRow') continue;
        const cells = (message as unknown as { fields: (string | null)[] }).fields;
        const row: Record<string, unknown> = {};
        statement.fields.forEach((field, i) => {
          const cell = cells[i] ?? null;
          const parser = this.pglite.parsers[field.dataTypeID];
          row[field.name] = cell === null || !parser ? cell : parser(cell, field.dataTypeID);
        });
        rows.push(row as R);
      }
      return { rows };
    });
  }

  async #prepare(name: string, text: string): Promise<PreparedStatement> {
    const { messages } = await this.pglite.execProtocol(
      concat([
        this.serialize.parse({ name, text }),
        this.serialize.describe({ type: 'S', name }),
        this.serialize.sync(),
      ]),
      {},
    );
    const parameters = messages.find((message) => message.name === 'parameterDescription') as unknown as
      | { dataTypeIDs: number[] }
      | undefined;
    const description = messages.find((message) => message.name === 'rowDescription') as unknown as
      | { fields: { name: string; dataTypeID: number }[] }
      | undefined;
    const statement = {
      parameterTypes: parameters?.dataTypeIDs ?? [],
      fields: (description?.fields ?? []).map(({ name: field, dataTypeID }) => ({ name: field, dataTypeID })),
    };
    this.#statements.set(name, statement);
    return statement;
  }
}

class PreparingConnection implements DatabaseConnection {
  inTransaction = false;

  constructor(
    readonly inner: DatabaseConnection,
    private readonly prepared: PGlitePreparedStatements,
  ) {}

  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const name = this.inTransaction ? undefined : preparedName(query.sql);
    return name ? this.prepared.execute<R>(name, query) : this.inner.executeQuery<R>(query);
  }

  streamQuery<R>(query: CompiledQuery, chunkSize: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(query, chunkSize);
  }
}

export type { PreparingConnection };

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
