import type { Kysely } from 'kysely';
import { type Config, parseConfig, resolveDataDir } from '../config.js';
import { type DatabaseHandle, migrateToLatest, openDatabase } from '../db/database.js';
import type { Database } from '../db/schema.js';

/**
 * Opens the database the server would open with the same environment (DATABASE_URL, DATA_DIR),
 * brings its schema up to date, runs `work`, and always closes it again: an embedded database
 * stays locked until it is closed.
 */
export async function withDatabase<T>(
  env: Record<string, string | undefined>,
  work: (db: Kysely<Database>, database: DatabaseHandle, config: Config) => Promise<T>,
  onMigrated: (migrations: string[]) => void,
): Promise<T> {
  const config = parseConfig(env);
  const database = await openDatabase({
    databaseUrl: config.DATABASE_URL,
    dataDir: resolveDataDir(config.DATA_DIR),
    // One command runs one statement at a time.
    poolSize: 1,
  });
  try {
    const applied = await migrateToLatest(database.db);
    if (applied.length > 0) onMigrated(applied);
    return await work(database.db, database, config);
  } finally {
    await database.close();
  }
}
