import type { ImportDeckFormat } from '@pollkit/contracts';
import type { Bank } from './bank.js';
import { readAiken } from './formats/aiken.js';
import { readGift } from './formats/gift.js';
import { readKahootXlsx } from './formats/kahoot-xlsx.js';
import { readMoodleXml } from './formats/moodle-xml.js';

/** The formats read into a question bank (`pollkit` is read by the contract's own schema). */
export type BankFormat = Exclude<ImportDeckFormat, 'pollkit'>;

/** A file's bytes, read by its format's reader. Runs in the bank-reader thread (bank-reader-thread.ts). */
export function readBank(format: BankFormat, source: Uint8Array): Bank | Promise<Bank> {
  const text = () => Buffer.from(source.buffer, source.byteOffset, source.byteLength).toString('utf8');
  switch (format) {
    case 'gift':
      return readGift(text());
    case 'aiken':
      return readAiken(text());
    case 'moodle_xml':
      return readMoodleXml(text());
    case 'kahoot_xlsx':
      return readKahootXlsx(source);
  }
}
