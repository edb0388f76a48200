import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, PGliteDialect } from 'kysely';
import { migrateToLatest } from '../../src/db/database.js';
import type { Database } from '../../src/db/schema.js';

/**
 * A migrated embedded database that every in-memory test server starts as a copy of
 * (`pgliteTemplate` of db/database.ts), instead of running every migration again. Made once and
 * kept in the temporary folder under a name holding a hash of the migrations and PGlite's
 * version: a changed migration makes a new template, never a stale one.
 */

const MIGRATIONS_DIR = resolve(fileURLToPath(import.meta.url), '../../../src/db/migrations');

let template: Promise<Blob> | undefined;

/** The template's data directory (a tar, as PGlite's `dumpDataDir` writes it). */
export function pgliteTemplate(): Promise<Blob> {
  template ??= loadOrMake();
  return template;
}

/**
 * Lays a copy of the template where the server keeps an embedded database on disk (`DATA_DIR/pglite`,
 * db/database.ts), for tests whose subject is not the first start: PGlite's initdb and every
 * migration on disk cost 3-5 s of CPU a server, a copy about one. A first start that creates the
 * database is entry-point.test.ts's subject.
 */
export async function seedEmbeddedDatabase(dataDir: string): Promise<void> {
  const clusterDir = join(dataDir, 'pglite');
  await mkdir(clusterDir, { recursive: true });
  const pglite = new PGlite(clusterDir, { loadDataDir: await pgliteTemplate() });
  await pglite.waitReady;
  await pglite.close();
}

async function loadOrMake(): Promise<Blob> {
  const path = join(tmpdir(), `pollkit-pglite-template-${await templateKey()}.tar`);
  try {
    return new Blob([await readFile(path)]);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const pglite = new PGlite();
  const db = new Kysely<Database>({ dialect: new PGliteDialect({ pglite }) });
  try {
    await migrateToLatest(db);
    const dump = await pglite.dumpDataDir('none');
    // Written under a name of its own, then renamed: a worker reading meanwhile sees all or nothing.
    const partial = `${path}.${process.pid}.partial`;
    await writeFile(partial, new Uint8Array(await dump.arrayBuffer()));
    await rename(partial, path);
    return dump;
  } finally {
    await db.destroy();
    if (!pglite.closed) await pglite.close();
  }
}

async function templateKey(): Promise<string> {
  const hash = createHash('sha256');
  // pnpm installs each version under a path of its own (…/@electric-sql+pglite@0.5.16/…).
  hash.update(`${createRequire(import.meta.url).resolve('@electric-sql/pglite')}\n`);
  for (const name of (await readdir(MIGRATIONS_DIR)).sort()) {
    hash.update(`${name}\n`);
    hash.update(await readFile(join(MIGRATIONS_DIR, name)));
  }
  return hash.digest('hex').slice(0, 16);
}
