import { createCipheriv, createDecipheriv, hash, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Secrets the server must read back (webhook signing secrets: signing needs the secret itself, so
 * unlike API keys they cannot be stored as a hash), sealed with AES-256-GCM before they reach the
 * database. Sealed form: `v1.<key id>.<iv>.<ciphertext + tag>` (base64url), where the key id (the
 * first 8 hex digits of the key's SHA-256) says which key sealed it, so a changed key is reported as
 * such rather than as corrupt data.
 */
export class SecretSealer {
  readonly #key: Buffer;
  readonly keyId: string;
  /** Every key this sealer opens with, by id: the sealing key, and older keys still in use. */
  readonly #keys = new Map<string, Buffer>();

  /** Seals with `key`; opens what `key` or any of `olderKeys` sealed (a key can be replaced gradually). */
  constructor(key: Buffer, olderKeys: readonly Buffer[] = []) {
    for (const each of [key, ...olderKeys]) {
      if (each.length !== 32) throw new Error('A sealing key is 32 bytes');
      const id = keyIdOf(each);
      if (!this.#keys.has(id)) this.#keys.set(id, each);
    }
    this.#key = key;
    this.keyId = keyIdOf(key);
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return `v1.${this.keyId}.${iv.toString('base64url')}.${body.toString('base64url')}`;
  }

  /**
   * A 32-byte key for another use, derived from the sealing key by HKDF-SHA-256 with `purpose` as its
   * info: the same on every process that seals with the same key, never stored, and telling nothing
   * of the sealing key or of another purpose's key. The join challenge's HMAC key is one
   * (modules/live/join-challenge.ts).
   */
  deriveKey(purpose: string): Buffer {
    return Buffer.from(hkdfSync('sha256', this.#key, Buffer.alloc(0), `pollkit/${purpose}`, 32));
  }

  open(sealed: string): string {
    const [version, keyId, iv, body] = sealed.split('.');
    if (version !== 'v1' || !keyId || !iv || !body) throw new Error('Not a sealed secret');
    const key = this.#keys.get(keyId);
    if (!key) {
      throw new Error(
        `The secret was sealed with a key this server does not have (key id ${keyId}): was the key changed?`,
      );
    }
    const bytes = Buffer.from(body, 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(bytes.subarray(bytes.length - 16));
    return Buffer.concat([decipher.update(bytes.subarray(0, bytes.length - 16)), decipher.final()]).toString('utf8');
  }
}

/** A key's id, as sealed forms name it: the first 8 hex digits of its SHA-256. */
export function keyIdOf(key: Buffer): string {
  return hash('sha256', key, 'hex').slice(0, 8);
}

/** The id of the key that sealed `sealed` (`v1.<key id>.…`), or undefined when it is not a sealed secret. */
export function sealingKeyIdOf(sealed: string): string | undefined {
  const [version, keyId] = sealed.split('.', 2);
  return version === 'v1' && keyId ? keyId : undefined;
}

/** A new random 32-byte key, base64. */
export function newSealingKey(): string {
  return randomBytes(32).toString('base64');
}
