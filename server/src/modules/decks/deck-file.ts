import type { Branching, Language, PollContent, SlideKind, TextFilter } from '@pollkit/contracts';

/**
 * What a deck writer (the `write…` functions in formats/) is given and gives back. Writers are pure functions of
 * the poll: no database, no network.
 */
export interface DeckToWrite {
  pollId: string;
  title: string;
  language: Language;
  /** The poll's content as the API answers it (defaults applied). */
  content: PollContent;
  branching: Branching | null;
  /** The poll's settings a Pollkit deck file carries (other formats have no place for them). */
  settings?: { textFilter: TextFilter; maxRespondents: number | null };
}

/** A slide the format cannot hold: left out of the file and named in `Pollkit-Deck-Skipped`. */
export interface SkippedSlide {
  /** 1-based position in the deck. */
  number: number;
  slideId: string;
  kind: SlideKind;
  /** One sentence: why this format cannot hold it. */
  message: string;
}

export interface DeckFile {
  /** The file: text for text formats, bytes for packages. */
  body: string | Uint8Array;
  skipped: SkippedSlide[];
}
