import { z } from 'zod';
import { LanguageInput } from './language.js';
import { Branching, Poll, PollContent, PollId, pollLimits, TextFilter } from './polls.js';
import { displayText, text } from './text.js';

/** Formats `POST /polls/import` reads (docs/decks.md). */
export const ImportDeckFormat = z.enum(['pollkit', 'gift', 'aiken', 'moodle_xml', 'kahoot_xlsx']).meta({
  id: 'ImportDeckFormat',
  description:
    '`pollkit`: a deck as `GET /polls/{id}/deck` downloads it; `gift`, `aiken`, `moodle_xml`: Moodle’s question ' +
    'formats; `kahoot_xlsx`: Kahoot’s quiz spreadsheet template (its `source` is base64).',
});
export type ImportDeckFormat = z.infer<typeof ImportDeckFormat>;

/** Formats `GET /polls/{id}/deck` writes. */
export const ExportDeckFormat = z.enum(['pollkit', 'gift', 'aiken', 'moodle_xml', 'qti']).meta({
  id: 'ExportDeckFormat',
  description:
    '`pollkit`: every slide and the skip logic, exactly; `gift`, `aiken`, `moodle_xml`: for Moodle and other ' +
    'quiz tools; `qti`: an IMS QTI 2.1 content package (zip).',
});
export type ExportDeckFormat = z.infer<typeof ExportDeckFormat>;

/** The largest decoded `source` an import reads: 2 MiB; past it, `413 payload_too_large`. */
export const DECK_SOURCE_MAX_BYTES = 2 * 1024 * 1024;
/** The import route's body limit: room for a 2 MiB file as base64 in JSON. */
export const DECK_IMPORT_BODY_LIMIT_BYTES = 4 * 1024 * 1024;
/** Imports per minute per credential, on top of the general limit: each parses a file of up to 2 MiB. */
export const DECK_IMPORTS_PER_MINUTE = 20;

/** Why a question of an imported file did not become a slide. */
export const deckSkipReasons = ['unsupported_kind', 'audio', 'slide_limit', 'malformed'] as const;
/** How a question of an imported file was changed to fit a slide. */
export const deckChangeReasons = [
  'answers_dropped',
  'weights_simplified',
  'text_truncated',
  'options_dropped',
  'media_dropped',
  'labels_changed',
] as const;

const QuestionPlace = {
  number: z.number().int().min(1).describe('The question’s position in the file, 1-based, skipped ones counted.'),
  name: z.string().optional().describe('The question’s name in the file (GIFT `::Name::`, Moodle XML `<name>`).'),
  line: z.number().int().min(1).optional().describe('The line it starts on, for text formats and XML.'),
};

export const DeckImportSkip = z
  .object({
    ...QuestionPlace,
    reason: z
      .enum(deckSkipReasons)
      .describe(
        '`unsupported_kind`: a kind Pollkit has no slide for (matching, numerical, Cloze…); `audio`: its only ' +
          'content is audio; `slide_limit`: past the 100-slide limit; `malformed`: it cannot be read.',
      ),
    message: z.string(),
  })
  .meta({ id: 'DeckImportSkip' });

export const DeckImportChange = z
  .object({
    ...QuestionPlace,
    slideId: z.string().describe('The slide it became.'),
    reason: z
      .enum(deckChangeReasons)
      .describe(
        '`answers_dropped`: a short answer’s accepted answers (an open-ended slide has none); `weights_simplified`: ' +
          'partial-credit weights made correct (> 0) or not; `text_truncated`: cut to the length limits; ' +
          '`options_dropped`: options past 50; `media_dropped`: an embedded file that is not a usable image; ' +
          '`labels_changed`: options without text named by position, options reading the same numbered `(2)`.',
      ),
    message: z.string(),
  })
  .meta({ id: 'DeckImportChange' });

export const DeckImportReport = z
  .object({
    imported: z.number().int().min(0).describe('Questions that became slides.'),
    skipped: z.array(DeckImportSkip),
    changed: z.array(DeckImportChange),
  })
  .meta({ id: 'DeckImportReport', description: 'What became of each question of the file.' });

const ImportTitle = displayText().trim().min(1).max(pollLimits.titleLength);

export const ImportDeckInput = z
  .strictObject({
    format: ImportDeckFormat,
    source: text()
      .min(1)
      .describe(
        'The file: its text for every format but `kahoot_xlsx`, whose bytes are sent as base64. At most 2 MiB ' +
          'once decoded (`413 payload_too_large`).',
      ),
    title: ImportTitle.optional().describe(
      'The poll’s title. Default: the deck’s own (a `pollkit` deck), else "Imported <format> deck".',
    ),
    dryRun: z
      .boolean()
      .default(false)
      .describe('Read the file and answer what would be created (200 `{ content, report }`); create nothing.'),
  })
  .meta({ id: 'ImportDeckInput' });

export const ImportedDeck = z
  .object({ poll: Poll, report: DeckImportReport })
  .meta({ id: 'ImportedDeck', description: 'The draft poll created (201).' });
export const DeckImportPreview = z
  .object({ content: PollContent, branching: Branching.nullable(), report: DeckImportReport })
  .meta({ id: 'DeckImportPreview', description: 'What an import would create (`dryRun: true`, 200).' });

export const DeckImportResult = z.union([ImportedDeck, DeckImportPreview]).meta({ id: 'DeckImportResult' });

/**
 * Pollkit’s own deck file (`format: pollkit`): the poll’s content, skip logic and settings, versioned
 * so that a later version of the file can still be read. docs/deck.schema.json is generated from it.
 */
export const DeckDocument = z
  .strictObject({
    format: z.literal('pollkit.deck'),
    version: z.literal(1).describe('Bumped when a change would make an older reader misread the file.'),
    title: ImportTitle,
    language: LanguageInput.optional(),
    textFilter: TextFilter.optional(),
    maxRespondents: z.number().int().min(1).max(1_000_000).nullable().optional(),
    content: PollContent,
    branching: Branching.nullable().default(null),
  })
  .meta({
    id: 'DeckDocument',
    description: 'A Pollkit deck as a file: what `GET /polls/{id}/deck` downloads and `POST /polls/import` reads.',
  });
export type DeckDocument = z.output<typeof DeckDocument>;

export const ExportDeckInput = z
  .strictObject({
    id: PollId,
    format: ExportDeckFormat.default('pollkit'),
  })
  .meta({ id: 'ExportDeckInput' });

export type ImportDeckInput = z.input<typeof ImportDeckInput>;
export type ImportedDeck = z.output<typeof ImportedDeck>;
export type DeckImportPreview = z.output<typeof DeckImportPreview>;
export type DeckImportReport = z.output<typeof DeckImportReport>;
export type ExportDeckInput = z.input<typeof ExportDeckInput>;
