import type { Slide } from '@pollkit/contracts';
import { type Numbering, optionMentions, paraphraseScores, slideNamedAt, wordsOf } from './evidence.js';
import { LIMITS, MOVE_CUES, MOVE_FILLERS, OTHER_ACTIONS, TARGET_PREPOSITIONS } from './lexicon.js';
import { clauseText, phraseAt } from './phrases.js';
import type { ClauseAction } from './targets.js';
import { InstructionError, type Token } from './tokens.js';

/** What a clause of people's writing may not hold: a second jump, or an action skip logic cannot take. */

function refuse(text: string, expected: string, reason: InstructionError['reason']): never {
  throw new InstructionError(text, expected, undefined, reason);
}

/**
 * Words after an action that say another jump ("… -> the lunch q comfort 1-2 -> straight to HR")
 * would be dropped: a clause holds one rule, so they are refused, never left out.
 */
export function refuseSecondRule(tokens: readonly Token[], action: ClauseAction): void {
  for (let at = action.to; at < tokens.length; at++) {
    const token = tokens[at] as Token;
    let next = at + 1;
    while (next < tokens.length && MOVE_FILLERS.includes((tokens[next] as Token).value)) next++;
    const jump =
      token.value === '->' || (MOVE_CUES.includes(token.value) && phraseAt(tokens, next, TARGET_PREPOSITIONS) > 0);
    if (jump) {
      refuse(
        clauseText(tokens, at, tokens.length),
        'one rule per sentence or line: write the second on its own',
        'unreadable',
      );
    }
  }
}

/** "ping the CS team an email", "show them a review link": actions skip logic cannot take. */
export function refuseOtherActions(tokens: readonly Token[], text: string, slides: readonly Slide[]): void {
  const labels = optionMentions(tokens, 0, tokens.length, slides);
  const labelWords = new Set(
    slides.flatMap((slide) => ('options' in slide ? slide.options.flatMap((option) => wordsOf(option.label)) : [])),
  );
  for (let at = 0; at < tokens.length; at++) {
    if (labels.some((mention) => at >= mention.from && at < mention.to) || labelWords.has((tokens[at] as Token).value))
      continue;
    const limit = phraseAt(tokens, at, LIMITS);
    if (limit > 0) {
      // "in under 10 seconds": the words that lead up to the limit belong to it.
      let start = at;
      const leads = ['in', 'under', 'within', 'less', 'than', 'over', 'more'];
      for (;;) {
        const before = tokens[start - 1];
        const numberLed = before?.kind === 'number' && leads.includes(tokens[start - 2]?.value ?? '');
        if (before && (leads.includes(before.value) || numberLed)) start--;
        else break;
      }
      refuse(
        clauseText(tokens, start, tokens.length),
        'a condition on the answer itself: a rule cannot test how fast, how often or on what device someone answered, nor be undone by "unless"',
        'unsupported_action',
      );
    }
    const length = phraseAt(tokens, at, OTHER_ACTIONS);
    if (length === 0) continue;
    refuse(
      text,
      'a jump to a slide or the end: skip logic cannot email, notify, show messages or award points',
      'unsupported_action',
    );
  }
}

/**
 * "If they rate their confidence 4 or 5, skip the tour question", with a grid between the two: one
 * rule cannot skip the tour alone, and jumping past it would skip the grid as well. Refused unless
 * every slide passed over is named among the skipped ("skip the grid and the tour question").
 */
export function refuseSkippingUnnamed(
  tokens: readonly Token[],
  action: ClauseAction,
  tested: Slide,
  slides: readonly Slide[],
  numbering: Numbering,
): void {
  if (action.destination.kind !== 'after') return;
  const passed = slides.slice(slides.indexOf(tested) + 1, slides.indexOf(action.destination.slide));
  const words = wordsOf(clauseText(tokens, action.from, action.to));
  const named = paraphraseScores(words, slides);
  const numbered = new Set<Slide>();
  for (let at = action.from; at < action.to; at++) {
    const found = slideNamedAt(tokens, at, slides, numbering);
    if (found && 'slide' in found) numbered.add(found.slide);
  }
  const unnamed = passed.filter((slide) => !named.has(slide) && !numbered.has(slide) && slide.kind !== 'content');
  if (unnamed.length === 0) return;
  refuse(
    clauseText(tokens, action.from, action.to),
    `where to go: skipping "${action.destination.slide.text}" from "${tested.text}" would also skip ${unnamed.map((slide) => `"${slide.text}"`).join(', ')}; say which slide they see next ("go to …")`,
    'ambiguous',
  );
}
