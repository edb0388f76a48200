import { createHash } from 'node:crypto';
import {
  contract,
  DECK_SOURCE_MAX_BYTES,
  DeckDocument,
  type DeckDocument as DeckDocumentType,
  type DeckImportPreview,
  type DeckImportReport,
  type ExportDeckFormat,
  type ImportDeckFormat,
  type ImportDeckInput,
  type ImportedDeck,
  type Media,
  type Poll,
  validationDetails,
} from '@pollkit/contracts';
import type { z } from 'zod';
import { ApiError } from '../../core/api-error.js';
import type { FileDownload } from '../../core/file-download.js';
import { loadSharp } from '../../infra/sharp.js';
import { MEDIA_FILES_PATH, storeImageBytes } from '../media/media.service.js';
import { MAX_INLINE_INGESTIONS } from '../polls/poll-media.js';
import { createPoll, getPoll, type PollWriteDeps } from '../polls/polls.service.js';
import { type Bank, BankRefused } from './bank.js';
import { bankReaders } from './bank-readers.js';
import { contentOfBank, type ImageStore } from './bank-to-content.js';
import type { DeckFile, DeckToWrite } from './deck-file.js';
import { writeAiken } from './formats/aiken-writer.js';
import { writeGift } from './formats/gift-writer.js';
import { writeMoodleXml } from './formats/moodle-xml-writer.js';
import { writeQti } from './formats/qti-writer.js';

/** What imports and exports need: what saving a poll needs (images are re-hosted as `POST /media` does). */
export type DecksDeps = PollWriteDeps;

type ImportInput = z.output<typeof ImportDeckInput>;

/** What a file held, read: a poll's content with its report, plus a Pollkit deck's own settings. */
interface ReadDeck {
  content: DeckDocumentType['content'];
  branching: DeckDocumentType['branching'];
  report: DeckImportReport;
  settings: Pick<DeckDocumentType, 'language' | 'textFilter' | 'maxRespondents'> & { title?: string };
}

const FORMAT_NAMES: Record<ImportDeckFormat, string> = {
  pollkit: 'Pollkit',
  gift: 'GIFT',
  aiken: 'Aiken',
  moodle_xml: 'Moodle XML',
  kahoot_xlsx: 'Kahoot',
};

/** `POST /polls/import`: the file read, then one draft poll created from it (as `POST /polls` would). */
export async function importDeck(deps: DecksDeps, workspaceId: string, input: ImportInput): Promise<ImportedDeck> {
  const deck = await readDeck(deps, input, { store: true });
  if (deck.content.questions.length === 0 && input.format !== 'pollkit') {
    // An empty draft would be a poll nobody asked for; the report says why nothing came of the file.
    const problems = deck.report.skipped.map((skip) => `question ${skip.number}: ${skip.message}`);
    throw invalidSource(
      'No question of the file could be imported',
      problems.length > 0 ? problems : ['The file holds no question'],
    );
  }
  const poll: Poll = await createPoll(deps, workspaceId, {
    title: input.title ?? deck.settings.title ?? `Imported ${FORMAT_NAMES[input.format]} deck`,
    content: deck.content,
    branching: deck.branching,
    ...(deck.settings.language !== undefined ? { language: deck.settings.language } : {}),
    ...(deck.settings.textFilter !== undefined ? { textFilter: deck.settings.textFilter } : {}),
    ...(deck.settings.maxRespondents !== undefined ? { maxRespondents: deck.settings.maxRespondents } : {}),
  });
  return { poll, report: deck.report };
}

/** `POST /polls/import` with `dryRun: true`: what would be created; nothing is stored, images included. */
export async function previewImport(deps: DecksDeps, input: ImportInput): Promise<DeckImportPreview> {
  const deck = await readDeck(deps, input, { store: false });
  return { content: deck.content, branching: deck.branching, report: deck.report };
}

async function readDeck(deps: DecksDeps, input: ImportInput, { store }: { store: boolean }): Promise<ReadDeck> {
  const source = decodedSource(input);
  if (input.format === 'pollkit') return readPollkitDeck(source.toString('utf8'));
  let bank: Bank;
  try {
    bank = await bankReaders.read(input.format, source);
  } catch (error) {
    if (error instanceof BankRefused) throw refusedFile(error);
    if (error instanceof ApiError) throw error;
    // Readers refuse what they understand to be wrong with BankRefused; anything else a file made
    // one of them (or a library under it, such as exceljs) throw is still the file's doing, and an
    // answer about the file, never a 500.
    const why = error instanceof Error ? error.message : String(error);
    throw invalidSource(`The file cannot be read as ${FORMAT_NAMES[input.format]}: ${why}`);
  }
  const { content, report } = await contentOfBank(bank, imageStore(deps, store));
  return { content, branching: null, report, settings: {} };
}

/**
 * The file's bytes: the text as UTF-8, or base64 decoded for a binary format. Measured before
 * anything reads it, so an oversized file costs no parsing.
 */
function decodedSource(input: ImportInput): Buffer {
  if (input.format !== 'kahoot_xlsx') {
    const bytes = Buffer.from(input.source, 'utf8');
    if (bytes.length > DECK_SOURCE_MAX_BYTES) throw tooLarge(bytes.length);
    return bytes;
  }
  const base64 = input.source.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(base64) || base64.length % 4 === 1) {
    throw invalidSource('`source` must be the file’s bytes as base64 for `kahoot_xlsx`');
  }
  // Checked from the length before decoding: 4 characters carry 3 bytes.
  if (Math.floor((base64.length * 3) / 4) > DECK_SOURCE_MAX_BYTES + 2) {
    throw tooLarge(Math.floor((base64.length * 3) / 4));
  }
  const bytes = Buffer.from(base64, 'base64');
  if (bytes.length > DECK_SOURCE_MAX_BYTES) throw tooLarge(bytes.length);
  return bytes;
}

function tooLarge(bytes: number): ApiError {
  return new ApiError(
    'payload_too_large',
    `The file is ${bytes} bytes; an import reads at most ${DECK_SOURCE_MAX_BYTES} (2 MiB)`,
    { maxBytes: DECK_SOURCE_MAX_BYTES },
  );
}

function invalidSource(message: string, problems: readonly string[] = [message]): ApiError {
  return new ApiError('validation_failed', message, { fieldErrors: { source: [...problems] }, formErrors: [] });
}

function refusedFile(error: BankRefused): ApiError {
  const problems = error.problems.map((problem) =>
    problem.line ? `line ${problem.line}: ${problem.message}` : problem.message,
  );
  // The readers' messages name the format already ("The file is not Moodle XML: …").
  return invalidSource(error.message, problems.length > 0 ? problems : [error.message]);
}

/** A Pollkit deck file: read exactly, or refused with every problem named by its path in the file. */
function readPollkitDeck(text: string): ReadDeck {
  let json: unknown;
  try {
    json = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    throw invalidSource(`The file is not JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (typeof json === 'object' && json !== null && 'version' in json && json.version !== 1) {
    throw invalidSource(
      `This server reads version 1 of the Pollkit deck format; the file is version ${String(json.version)}`,
    );
  }
  const parsed = DeckDocument.safeParse(json);
  if (!parsed.success) {
    const details = validationDetails(parsed.error.issues);
    const problems = [
      ...details.formErrors,
      ...Object.entries(details.fieldErrors).flatMap(([path, messages]) =>
        (messages ?? []).map((message) => `${path}: ${message}`),
      ),
    ];
    throw invalidSource(`The file is not a valid Pollkit deck: ${problems[0] ?? 'see details'}`, problems);
  }
  const deck = parsed.data;
  return {
    content: deck.content,
    branching: deck.branching,
    report: { imported: deck.content.questions.length, skipped: [], changed: [] },
    settings: {
      title: deck.title,
      ...(deck.language !== undefined ? { language: deck.language } : {}),
      ...(deck.textFilter !== undefined ? { textFilter: deck.textFilter } : {}),
      ...(deck.maxRespondents !== undefined ? { maxRespondents: deck.maxRespondents } : {}),
    },
  };
}

/**
 * Embedded images re-hosted as `POST /media` does, at most MAX_INLINE_INGESTIONS distinct ones per
 * import (each costs a decode and an encode; the budget counts linked images too, which the save
 * fetches); the same image twice is stored once. A dry run only reads each embedded image's header,
 * to report the ones that would be left out. A linked image is kept by its address: the save
 * resolves it as `POST /polls` resolves inline media (one this server stored is kept as stored).
 */
function imageStore(deps: DecksDeps, store: boolean): ImageStore {
  const seen = new Map<string, ReturnType<ImageStore>>();
  return (image) => {
    const key = 'url' in image ? `url ${image.url}` : createHash('sha256').update(image.bytes).digest('hex');
    const known = seen.get(key);
    if (known) return known;
    if (seen.size >= MAX_INLINE_INGESTIONS) {
      return Promise.resolve({ dropped: `an import takes at most ${MAX_INLINE_INGESTIONS} distinct images` });
    }
    const result = 'url' in image ? Promise.resolve({ media: linkedImage(deps, image.url) }) : embedded(image.bytes);
    seen.set(key, result);
    return result;
  };

  async function embedded(bytes: Buffer): ReturnType<ImageStore> {
    if (bytes.length > deps.config.MEDIA_MAX_BYTES) {
      return { dropped: `it is larger than ${deps.config.MEDIA_MAX_BYTES} bytes` };
    }
    if (!store) {
      const problem = await imageProblem(deps, bytes);
      return problem ? { dropped: problem } : {};
    }
    try {
      return { media: await storeImageBytes(deps, bytes) };
    } catch (error) {
      // The image's own fault (not an image, too many pixels): left out and reported. Anything
      // else (storage failing) is the server's, and fails the import.
      // Worded as a dry run words it (storing speaks of URLs, which an embedded image has none of).
      if (error instanceof ApiError && error.status < 500) {
        return { dropped: (await imageProblem(deps, bytes)) ?? lowerFirst(error.message) };
      }
      throw error;
    }
  }
}

/** A linked image as inline media: with its stored copy named when this server stored it. */
function linkedImage(deps: DecksDeps, url: string): Media {
  const storedHere = url.startsWith(`${deps.media.baseUrl()}${MEDIA_FILES_PATH}/`);
  return storedHere ? { type: 'image', url, storedUrl: url } : { type: 'image', url };
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}

/** What storing would refuse, from the header alone (a dry run stores nothing); undefined if nothing. */
async function imageProblem(deps: DecksDeps, bytes: Buffer): Promise<string | undefined> {
  const sharp = await loadSharp();
  try {
    const { width, height } = await sharp(bytes, { limitInputPixels: false }).metadata();
    if (!width || !height) return 'it is not an image the server can decode';
    if (width * height > deps.config.MEDIA_MAX_PIXELS) {
      return `the image has more than ${deps.config.MEDIA_MAX_PIXELS} pixels`;
    }
    return undefined;
  } catch {
    return 'it is not an image the server can decode';
  }
}

const EXPORT_FILES: Record<ExportDeckFormat, { suffix: string; write: (deck: DeckToWrite) => DeckFile }> = {
  pollkit: { suffix: 'deck.json', write: writePollkitDeck },
  gift: { suffix: 'gift.txt', write: writeGift },
  aiken: { suffix: 'aiken.txt', write: writeAiken },
  moodle_xml: { suffix: 'moodle.xml', write: writeMoodleXml },
  qti: { suffix: 'qti.zip', write: writeQti },
};

/** `GET /polls/{id}/deck`: the poll as a file of the format asked, with the slides it could not hold named. */
export async function exportDeck(
  deps: DecksDeps,
  workspaceId: string,
  input: { id: string; format: ExportDeckFormat },
): Promise<FileDownload> {
  const { contentType } = contract.polls.exportDeck.files[input.format];
  const poll = await getPoll(deps, workspaceId, input.id);
  const { suffix, write } = EXPORT_FILES[input.format];
  const file = write({
    pollId: poll.id,
    title: poll.title,
    language: poll.language,
    content: poll.content,
    branching: poll.branching,
    settings: { textFilter: poll.textFilter, maxRespondents: poll.maxRespondents },
  });
  const headers: Record<string, string> = {};
  if (file.skipped.length > 0) {
    headers['pollkit-deck-skipped'] = file.skipped
      .map((slide) => `${slide.number} ${slide.slideId} ${slide.kind}`)
      .join(', ');
  }
  return { filename: `poll-${poll.id}-${suffix}`, contentType, headers, chunks: [file.body] };
}

/** Pollkit's own deck: every slide, the skip logic and the poll's settings, as `DeckDocument` reads them. */
function writePollkitDeck(deck: DeckToWrite): DeckFile {
  const document: DeckDocumentType = {
    format: 'pollkit.deck',
    version: 1,
    title: deck.title,
    language: deck.language,
    ...(deck.settings ?? {}),
    content: deck.content,
    branching: deck.branching,
  };
  return { body: `${JSON.stringify(document, null, 2)}\n`, skipped: [] };
}
