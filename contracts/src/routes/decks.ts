import { z } from 'zod';
import { defineRoute } from '../route.js';
import {
  DECK_IMPORT_BODY_LIMIT_BYTES,
  DECK_IMPORTS_PER_MINUTE,
  DeckImportResult,
  ExportDeckInput,
  ImportDeckInput,
} from '../schemas/decks.js';

const SKIPPED_HEADER =
  'The slides the format cannot hold, left out of the file: `<number> <slideId> <kind>` for each, comma-separated; ' +
  'absent when none was left out.';

export const importDeck = defineRoute({
  method: 'POST',
  path: '/polls/import',
  tags: ['polls'],
  summary: 'Import a deck',
  description:
    'Creates a draft poll from a question bank: a Pollkit deck file, Moodle GIFT, Aiken or Moodle XML, or ' +
    'Kahoot’s spreadsheet template. Choices with a correct answer become `quiz` slides, without one ' +
    '`multiple_choice`; essays and short answers `open_ended`; descriptions `content`. `report` says what became ' +
    'of each question, with its number, name and line: skipped (a kind Pollkit lacks, audio, past the slide ' +
    'limit, unreadable) or changed. A file that cannot be read at all is refused (`422`); one with errors imports ' +
    'what it can. Images embedded in Moodle XML are re-hosted as `POST /media` does. With `dryRun: true`, nothing ' +
    'is created and the answer (200) is what would be. Bodies up to 4 MiB; a limit of its own per minute. ' +
    'See docs/decks.md.',
  auth: 'workspace',
  reachesOut: true,
  scope: 'polls:write',
  successStatus: 201,
  alternateSuccess: { status: 200, description: '`dryRun: true`: what the import would create (`DeckImportPreview`).' },
  bodyLimitBytes: DECK_IMPORT_BODY_LIMIT_BYTES,
  rateLimitPerMinute: DECK_IMPORTS_PER_MINUTE,
  input: ImportDeckInput,
  output: DeckImportResult,
  // A Pollkit deck's media are resolved as `POST /polls` resolves them, and can fail as they do.
  errors: [
    'validation_failed',
    'payload_too_large',
    'media_not_allowed',
    'media_fetch_failed',
    'media_too_large',
    'unsupported_media',
  ],
});

export const exportDeck = defineRoute({
  method: 'GET',
  path: '/polls/{id}/deck',
  tags: ['polls'],
  summary: 'Download the deck as a file',
  description:
    'The poll’s slides as a file other tools read: `pollkit` (default; every slide and the skip logic, which ' +
    '`POST /polls/import` reads back exactly), `gift`, `aiken`, `moodle_xml`, or `qti` (an IMS QTI 2.1 package). ' +
    'A slide the format cannot hold is left out and named in the `Pollkit-Deck-Skipped` header (and in ' +
    '`report.json` inside the QTI package). Results are not part of it. See docs/decks.md.',
  auth: 'workspace',
  scope: 'polls:read',
  successStatus: 200,
  format: 'file',
  files: {
    pollkit: { contentType: 'application/json; charset=utf-8', headers: { 'Pollkit-Deck-Skipped': SKIPPED_HEADER } },
    gift: { contentType: 'text/plain; charset=utf-8', headers: { 'Pollkit-Deck-Skipped': SKIPPED_HEADER } },
    aiken: { contentType: 'text/plain; charset=utf-8', headers: { 'Pollkit-Deck-Skipped': SKIPPED_HEADER } },
    moodle_xml: { contentType: 'application/xml; charset=utf-8', headers: { 'Pollkit-Deck-Skipped': SKIPPED_HEADER } },
    qti: { contentType: 'application/zip', binary: true, headers: { 'Pollkit-Deck-Skipped': SKIPPED_HEADER } },
  },
  input: ExportDeckInput,
  output: z.string().describe('The file.'),
  errors: ['not_found', 'validation_failed'],
});
