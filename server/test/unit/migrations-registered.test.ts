import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { migrationProvider } from '../../src/db/migrations/index.js';

/**
 * Migrations are registered in code (db/migrations/index.ts), not read from the folder: a file left
 * out of the registry would never run, and nothing else would say so until a query met a missing
 * table. Every migration file is registered under its own name, in order, each with an `up`.
 */
const folder = join(import.meta.dirname, '..', '..', 'src', 'db', 'migrations');

describe('the migrations registry', () => {
  it('registers every migration file of the folder under its name, in order', async () => {
    const files = readdirSync(folder)
      .filter((file) => /^\d{4}_[a-z0-9_]+\.ts$/.test(file))
      .map((file) => file.replace(/\.ts$/, ''))
      .sort();
    const registered = await migrationProvider.getMigrations();
    expect(files.length).toBeGreaterThan(0);
    expect(Object.keys(registered)).toEqual(files);
    for (const [name, migration] of Object.entries(registered)) expect(typeof migration.up, name).toBe('function');
  });
});
