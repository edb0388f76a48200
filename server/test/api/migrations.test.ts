import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { type DatabaseHandle, migrateToLatest, openDatabase } from '../../src/db/database.js';
import { migrationProvider } from '../../src/db/migrations/index.js';

/**
 * Bringing the schema up to date (db/database.ts): a second start finds it migrated with one query;
 * anything else still goes through Kysely's Migrator, which migrates or says what is wrong.
 */
describe('migrateToLatest', () => {
  let handle: DatabaseHandle | undefined;
  afterEach(async () => {
    await handle?.close();
    handle = undefined;
  });

  it('applies every migration once, then finds nothing to do', async () => {
    handle = await openDatabase({ databaseUrl: 'memory://', dataDir: '.' });
    const names = Object.keys(await migrationProvider.getMigrations());
    expect(await migrateToLatest(handle.db)).toEqual(names);
    expect(await migrateToLatest(handle.db)).toEqual([]);
    const { rows } = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(handle.db);
    expect(rows.map((row) => row.name)).toEqual([...names].sort());
  });

  it('refuses a database that holds a migration this code does not know, as the Migrator does', async () => {
    handle = await openDatabase({ databaseUrl: 'memory://', dataDir: '.' });
    await migrateToLatest(handle.db);
    await sql`insert into kysely_migration (name, timestamp) values ('9999_from_a_newer_version', '2026-01-01T00:00:00Z')`.execute(
      handle.db,
    );
    await expect(migrateToLatest(handle.db)).rejects.toThrow(/9999_from_a_newer_version/);
  });
});
