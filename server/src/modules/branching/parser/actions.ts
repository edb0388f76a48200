import type { Slide } from '@pollkit/contracts';
import { ACTION_EXPECTED, ENDINGS, MOVE_ADVERBS, MOVE_TO, MOVE_VERBS } from './lexicon.js';
import { readSlide } from './references.js';
import { ACTION_STARTS, ENDING_VERBS, TO_END_VERBS } from './strict-lexicon.js';
import type { Action, Condition, Cursor } from './tokens.js';

export function startsAction(p: Cursor): boolean {
  const token = p.peek();
  return token?.kind === 'word' && ACTION_STARTS.includes(token.value);
}

export function readAction(p: Cursor): Action {
  const what = ENDINGS;
  const ends = ENDING_VERBS;
  const toEnd = TO_END_VERBS;
  if (
    p.acceptAny([
      ...ends.flatMap((verb) => [...what.flatMap((noun) => [`${verb} the ${noun}`, `${verb} ${noun}`]), `${verb} it`]),
      ...ends,
      ...toEnd.flatMap((verb) => [`${verb} the end`, `${verb} end`]),
    ])
  ) {
    p.acceptAny([...what.flatMap((noun) => [`of the ${noun}`, `of ${noun}`]), 'there', 'right away', 'early']);
    return { action: 'end' };
  }
  const verb = p.acceptAny(MOVE_VERBS);
  if (!verb) return p.fail(ACTION_EXPECTED);
  p.acceptAny(MOVE_ADVERBS);
  if (p.acceptAny(MOVE_TO)) {
    p.acceptAny(['the end']) && p.fail(ACTION_EXPECTED);
    return { action: 'skip_to', slideId: readSlide(p).id };
  }
  if (verb === 'skip') {
    // "skip Q3": past it, to the slide after it (the end, after the last).
    const skipped = readSlide(p);
    const next = p.slides[p.slides.indexOf(skipped) + 1];
    const action: Action = next ? { action: 'skip_to', slideId: next.id } : { action: 'end' };
    SKIPPED.set(action, skipped);
    return action;
  }
  return p.fail(`"to" and a slide after "${verb}", as in "${verb} to Q4"`);
}

/** The slide a "skip Q3" action passes over, kept to check it against the condition's slide. */
const SKIPPED = new WeakMap<Action, Slide>();

/** Jumps go forward: a target at or before the condition's slide is refused at its words (`at`). */
export function forward(p: Cursor, condition: Condition, action: Action, at: number): void {
  const skipped = SKIPPED.get(action);
  const passed = skipped ? p.slides.slice(p.slides.indexOf(condition.slide) + 1, p.slides.indexOf(skipped)) : [];
  if (skipped && passed.length > 0 && p.slides.indexOf(skipped) > p.slides.indexOf(condition.slide)) {
    // "If confidence is 4 or 5, skip the tour question" with the grid between: skipping the tour
    // alone is not a jump, and jumping past it would skip the grid too. Which was meant is not guessed.
    p.at = at;
    p.fail(
      `where to go: "skip" ${skipped.id} from ${condition.slide.id} would also skip ${passed.map((slide) => slide.id).join(', ')}; write "go to" the slide they should see next`,
      'ambiguous',
    );
  }
  if (action.action !== 'skip_to') return;
  const from = p.slides.indexOf(condition.slide);
  const to = p.slides.findIndex((slide) => slide.id === action.slideId);
  if (to > from) return;
  const end = p.at;
  p.at = at;
  // Point at the slide's own words, past the verb ("skip to Q1" quotes "Q1").
  p.acceptAny(MOVE_VERBS);
  p.acceptAny([...MOVE_ADVERBS, 'back']);
  p.acceptAny(MOVE_TO);
  const quoted = p.at < end ? p.at : at;
  p.at = quoted;
  p.fail(
    `a slide after ${condition.slide.id}: jumps go forward only (a respondent who left ${condition.slide.id} cannot be sent back to it or before it)`,
    'backward_jump',
  );
}

/** Where an arrow points: a slide, or the end ("Yes -> Q4", "No -> end"). */
export function readTarget(p: Cursor): Action {
  if (startsAction(p)) return readAction(p);
  if (p.acceptAny(['the end', 'end'])) {
    p.acceptAny(ENDINGS.flatMap((noun) => [`of the ${noun}`, `of ${noun}`]));
    return { action: 'end' };
  }
  return { action: 'skip_to', slideId: readSlide(p).id };
}
