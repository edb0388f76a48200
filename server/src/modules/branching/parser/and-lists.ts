import type { BranchCondition, Slide } from '@pollkit/contracts';
import { normaliseText } from './evidence.js';
import { InstructionError } from './tokens.js';

/**
 * "If they chose Phone and Email on channels": on a slide where several options can be ticked,
 * options joined by "and" may mean all of them (which a rule cannot test) or any of them (which it
 * can). Read as "any of" it would send the people who ticked one of them too, so it is refused; "or",
 * "either" or "any of" say which.
 */
export function refuseAndAsAnyOf(
  conditions: readonly BranchCondition[],
  sources: readonly string[],
  slides: readonly Slide[],
): void {
  conditions.forEach((condition, index) => {
    const { slideId, operator, value } = condition.if;
    if (operator !== 'includes' || !Array.isArray(value)) return;
    const slide = slides.find((candidate) => candidate.id === slideId);
    if (slide?.kind !== 'multiple_choice' || slide.type !== 'multiple') return;
    const source = normaliseText(sources[index] ?? '');
    if (/\b(?:or|either|any of|one of|whichever)\b/.test(source)) return;
    const places = slide.options
      .filter((option) => value.includes(option.id))
      .map((option) => ({ label: normaliseText(option.label), at: source.indexOf(normaliseText(option.label)) }))
      .filter((place) => place.at >= 0)
      .sort((a, b) => a.at - b.at);
    for (let i = 1; i < places.length; i++) {
      const before = places[i - 1] as (typeof places)[number];
      const between = source.slice(before.at + before.label.length, (places[i] as (typeof places)[number]).at);
      if (/^[\s,'"“”‘’]*(?:and|&|plus)[\s'"“”‘’]*$/.test(between)) {
        throw new InstructionError(
          sources[index] ?? '',
          `"or" between the options of "${slide.text}", where several can be ticked: a rule can send those who ticked any of them ("Phone or Email"), not only those who ticked all of them`,
          undefined,
          'all_of',
        );
      }
    }
  });
}
