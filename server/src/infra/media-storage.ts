import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { access, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';

/**
 * Where re-hosted media files live. Names are content addresses chosen by the server
 * (`<sha256>.webp`), so a file never changes once written; an object-storage implementation
 * (S3 and the like) maps `put` to an upload, `get` to a download stream and `exists` to a HEAD.
 */
export interface MediaStorage {
  put(name: string, bytes: Buffer): Promise<void>;
  /** The file's bytes as a stream, or undefined when there is no such file. */
  get(name: string): Promise<Readable | undefined>;
  exists(name: string): Promise<boolean>;
  close(): Promise<void>;
}

/** Only names the server itself makes: no separators, no dots beyond the extension. */
export const MEDIA_FILE_NAME = /^[0-9a-f]{64}\.webp$/;

function assertName(name: string): void {
  if (!MEDIA_FILE_NAME.test(name)) throw new Error(`Invalid media file name: ${name}`);
}

/** Files in one directory (by default `DATA_DIR/media`), created on first write. */
export class LocalDiskMediaStorage implements MediaStorage {
  constructor(
    readonly dir: string,
    private readonly options: { removeOnClose?: boolean } = {},
  ) {}

  async put(name: string, bytes: Buffer): Promise<void> {
    assertName(name);
    await mkdir(this.dir, { recursive: true });
    // Write then rename: a reader never sees half a file, and two writers of the same name (the
    // same content) simply replace one another.
    const temp = join(this.dir, `.${name}.${randomBytes(6).toString('hex')}.tmp`);
    try {
      await writeFile(temp, bytes);
      await rename(temp, join(this.dir, name));
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
  }

  async get(name: string): Promise<Readable | undefined> {
    if (!MEDIA_FILE_NAME.test(name)) return undefined;
    if (!(await this.exists(name))) return undefined;
    return createReadStream(join(this.dir, name));
  }

  async exists(name: string): Promise<boolean> {
    if (!MEDIA_FILE_NAME.test(name)) return false;
    try {
      await access(join(this.dir, name));
      return true;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    if (this.options.removeOnClose) await rm(this.dir, { recursive: true, force: true });
  }
}
