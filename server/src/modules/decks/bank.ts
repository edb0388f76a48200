/**
 * What a question-bank reader (formats/*.ts) makes of a file, before the deck service gives it ids,
 * re-hosts its images and applies the poll's limits: one entry per question, in file order, skipped
 * ones included. Readers are pure functions of the file's text (or bytes): no database, no network.
 */

/** Why a question did not become a slide. The contract's `deckSkipReasons` lists the same. */
export type SkipReason =
  /** A kind Pollkit has no slide for: matching, numerical, Cloze, drag and drop, calculated… */
  | 'unsupported_kind'
  /** Its only content is audio (or video) Pollkit cannot show. */
  | 'audio'
  /** Past the 100-slide limit of a poll (decided by the service, never by a reader). */
  | 'slide_limit'
  /** It cannot be read: no answer block, an unclosed brace, invalid XML, an ANSWER naming no option… */
  | 'malformed';

/** How a question was changed to fit a slide. The contract's `deckChangeReasons` lists the same. */
type ChangeReason =
  /** Short-answer accepted answers (or numerical tolerances…) dropped: an open-ended slide has none. */
  | 'answers_dropped'
  /** Partial-credit weights (`%50%`, fraction="33.3") reduced to correct (> 0) or not. */
  | 'weights_simplified'
  /** Text or a label cut to the poll's length limits. */
  | 'text_truncated'
  /** Options past the 50-option limit dropped. */
  | 'options_dropped'
  /** An embedded file that is not a decodable image (or one too large) left out. */
  | 'media_dropped'
  /** Option labels that were the same text made distinct, or empty labels filled in. */
  | 'labels_changed';

export interface BankChange {
  reason: ChangeReason;
  /** One sentence for a person: what was changed and why. */
  message: string;
}

/**
 * An image of the file: embedded (Moodle XML `<file encoding="base64">`) as raw bytes, or linked by
 * its http(s) address (`<img src="https://…">`, as Pollkit's own Moodle XML export writes them).
 */
export type BankImage =
  | {
      bytes: Buffer;
      /** The file name the source gave it, if any. */
      name?: string;
    }
  | { url: string; name?: string };

export interface BankOption {
  /** Plain text: markup removed, entities decoded, escapes resolved, whitespace collapsed. */
  label: string;
  image?: BankImage;
}

/**
 * A question that becomes a slide:
 * - `choice`: a `quiz` slide when `correct` names at least one option, else `multiple_choice`
 *   (`multiple`: the format says several answers may be chosen);
 * - `open_ended`: essays and short answers;
 * - `content`: a description, text without answers.
 */
export type BankSlide =
  | {
      kind: 'choice';
      text: string;
      options: BankOption[];
      /** Indexes into `options` of the correct ones; empty when none is correct. */
      correct: number[];
      multiple: boolean;
      image?: BankImage;
    }
  | { kind: 'open_ended'; text: string; image?: BankImage }
  | { kind: 'content'; text: string; image?: BankImage };

export interface BankQuestion {
  /** 1, 2, 3… in file order, skipped questions included. */
  number: number;
  /** The question's name in the file (GIFT `::Name::`, Moodle XML `<name>`), if it has one. */
  name?: string;
  /** The 1-based line where the question starts, for text formats (and XML, where known). */
  line?: number;
  /** Exactly one of `slide` and `skipped` is set. */
  slide?: BankSlide;
  skipped?: { reason: SkipReason; message: string };
  changes: BankChange[];
}

export interface Bank {
  questions: BankQuestion[];
}

/**
 * A file refused whole (422 `validation_failed`): not the format at all, or hostile (an XML
 * document declaring entities). `problems` name each thing wrong, with its line where known.
 */
export class BankRefused extends Error {
  constructor(
    message: string,
    readonly problems: readonly { line?: number; message: string }[] = [],
  ) {
    super(message);
    this.name = 'BankRefused';
  }
}

/**
 * The most questions a file may hold: ten polls' worth. Reading is linear, but a file of 2 MiB can
 * hold 200,000 tiny questions, each a line of the report; a bank that large is split first.
 */
export const MAX_BANK_QUESTIONS = 1000;

/** Refuses the file once its questions pass MAX_BANK_QUESTIONS: called by each reader as it adds one. */
export function refusePastQuestionLimit(questions: readonly BankQuestion[]): void {
  if (questions.length <= MAX_BANK_QUESTIONS) return;
  const first = questions[MAX_BANK_QUESTIONS];
  throw new BankRefused(
    `The file holds more than ${MAX_BANK_QUESTIONS} questions; split it into files of at most ${MAX_BANK_QUESTIONS}.`,
    [{ ...(first?.line ? { line: first.line } : {}), message: `Question ${MAX_BANK_QUESTIONS + 1} starts here.` }],
  );
}
