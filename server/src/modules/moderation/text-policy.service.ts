import type { Poll, Slide, TextFilter } from '@pollkit/contracts';
import type { Kysely } from 'kysely';
import { ApiError } from '../../core/api-error.js';
import type { Database } from '../../db/schema.js';
import { storedFilterTerms } from '../workspaces/workspaces.service.js';
import type { FilterTerms, FilterTermsCache } from './filter-terms-cache.js';
import { maskText, type ScanOptions, scanText } from './text-filter.js';

/**
 * The text filter as the rest of the server uses it (docs/moderation.md): which mode applies to a
 * text, what is stored, what is shown. Stored text is never rewritten: masking happens where text is
 * shown, with the workspace's lists as they are now, so a term added later masks old answers too.
 */

export interface ModerationDeps {
  db: Kysely<Database>;
  filterTerms: FilterTermsCache;
}

/** A text as others are shown it, and whether the filter found anything in it. */
export interface TextView {
  text: string;
  flagged: boolean;
}

/** What becomes of a text written under a mode: stored as it is, or held for review. */
export type TextVerdict = 'accept' | 'hold';

export class TextPolicy {
  readonly #options: ScanOptions;

  /**
   * `language`: the poll's, which decides the language-local terms (French "con", Portuguese "porra")
   * when a text's own words do not tell its language (text-filter.ts).
   */
  constructor(
    readonly mode: TextFilter,
    terms: FilterTerms,
    language?: string,
  ) {
    this.#options = { ...terms, ...(language === undefined ? {} : { language }) };
  }

  /** Whether the filter finds a vulgar word (whatever the mode: the owner's raw views say so even when off). */
  flagged(text: string): boolean {
    return scanText(text, this.#options).flagged;
  }

  /** The text as the audience, the presenter and exports show it: masked unless the mode is `off`. */
  view(text: string): TextView {
    const scan = scanText(text, this.#options);
    if (!scan.flagged || this.mode === 'off') return { text, flagged: scan.flagged };
    return { text: maskText(text, scan.spans), flagged: true };
  }

  shown(text: string): string {
    return this.view(text).text;
  }

  /**
   * A text being written (`field` names it in the error): refused under `block`, held under `review`
   * when flagged, else accepted; with whether it is flagged (what webhooks carry). A participant's
   * name has no review queue, so `review` refuses a flagged name as `block` does.
   */
  check(text: string, field: string, kind: 'answer' | 'name' = 'answer'): { flagged: boolean; verdict: TextVerdict } {
    const flagged = this.flagged(text);
    if (!flagged || this.mode === 'off' || this.mode === 'mask') return { flagged, verdict: 'accept' };
    if (this.mode === 'review' && kind === 'answer') return { flagged, verdict: 'hold' };
    throw contentRejected(field);
  }
}

/** The refusal: it names the field, never the word. */
function contentRejected(field: string): ApiError {
  return new ApiError(
    'content_rejected',
    field === 'name'
      ? 'This name contains a word this poll does not accept; choose another'
      : 'This text contains a word this poll does not accept; rephrase it',
    { field },
  );
}

/** The mode of a slide's texts: its own `textFilter`, else the poll's. */
export function slideTextFilter(poll: Poll, slide: Slide | undefined): TextFilter {
  return (slide && 'textFilter' in slide ? slide.textFilter : undefined) ?? poll.textFilter;
}

/** The workspace's compiled lists (cached; invalidated by `PATCH /workspace`). */
function filterTermsOf(deps: ModerationDeps, workspaceId: string): Promise<FilterTerms> {
  return deps.filterTerms.get(workspaceId, () => storedFilterTerms(deps.db, workspaceId));
}

/** Whether the filter flags a text, with the workspace's lists (the owner's raw views, whatever the mode). */
export async function flaggerOf(deps: ModerationDeps, workspaceId: string): Promise<(text: string) => boolean> {
  const policy = new TextPolicy('off', await filterTermsOf(deps, workspaceId));
  return (text) => policy.flagged(text);
}

/** The policy of a slide's texts (open-ended answers, Q&A questions). */
export async function slideTextPolicy(
  deps: ModerationDeps,
  workspaceId: string,
  poll: Poll,
  slide: Slide | undefined,
): Promise<TextPolicy> {
  return new TextPolicy(slideTextFilter(poll, slide), await filterTermsOf(deps, workspaceId), poll.language);
}

/** The policy of the poll's participants' names: the poll's own mode. */
export async function namePolicy(deps: ModerationDeps, workspaceId: string, poll: Poll): Promise<TextPolicy> {
  return new TextPolicy(poll.textFilter, await filterTermsOf(deps, workspaceId), poll.language);
}

/** Every slide's policy of a poll at once, for reads that show several slides (results, exports). */
export async function pollTextPolicies(
  deps: ModerationDeps,
  workspaceId: string,
  poll: Poll,
): Promise<{ forSlide: (slide: Slide | undefined) => TextPolicy; names: TextPolicy }> {
  const terms = await filterTermsOf(deps, workspaceId);
  return {
    forSlide: (slide) => new TextPolicy(slideTextFilter(poll, slide), terms, poll.language),
    names: new TextPolicy(poll.textFilter, terms, poll.language),
  };
}
