import type { Slide } from '@pollkit/contracts';

/**
 * Wording shared by refusals: how an option the poll lacks is answered, with the options it has.
 */

/** The labels of `options`, each in quotes, joined by commas: `"Phone", "Email"`. */
export function quotedLabels(options: readonly { label: string }[]): string {
  return options.map((option) => `"${option.label}"`).join(', ');
}

/**
 * What a refusal expects where an option `slide` lacks was written: `an option of "How did you
 * contact us?": "Phone", "Email"` (`lead` goes before the labels: "one of "). A slide without
 * options is named alone.
 */
export function anOptionOf(slide: Slide, lead = ''): string {
  if (!('options' in slide)) return `an option of "${slide.text}"`;
  return `an option of "${slide.text}": ${lead}${quotedLabels(slide.options)}`;
}
