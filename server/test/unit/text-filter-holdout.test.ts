/**
 * The text filter against the holdout phrase set (server/test/fixtures/text-filter/holdout.json):
 * 155 phrases in seven languages written blind — by a writer who had seen neither the filter nor the
 * dev sets it was tuned on — and scored once, when the filter was done (docs/moderation.md gives the
 * score). Never tune the filter on these: add a phrase that fails to the dev sets instead, and keep
 * this file as the measure of what the filter does with text nobody tuned it for.
 *
 * A flagged phrase is caught when the filter flags it and the masked text no longer holds the term
 * as typed; a clean phrase must come back unchanged. `borderline` phrases are not scored.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { maskFlagged } from '../../src/modules/moderation/text-filter.js';

interface Phrase {
  text: string;
  language: string;
  field: string;
  expect: 'flagged' | 'clean' | 'borderline';
  terms?: string[];
}

const holdout = JSON.parse(
  readFileSync(new URL('../fixtures/text-filter/holdout.json', import.meta.url), 'utf8'),
) as Phrase[];

function score(withLanguage: boolean) {
  let flagged = 0;
  let caught = 0;
  const misses: string[] = [];
  const altered: string[] = [];
  for (const phrase of holdout) {
    const result = maskFlagged(phrase.text, withLanguage ? { language: phrase.language } : {});
    if (phrase.expect === 'flagged') {
      flagged += 1;
      const hidden = (phrase.terms ?? []).every((term) => !result.text.includes(term));
      if (result.flagged && hidden) caught += 1;
      else misses.push(`[${phrase.language}] ${phrase.text} → ${result.text}`);
    } else if (phrase.expect === 'clean' && result.text !== phrase.text) {
      altered.push(`[${phrase.language}] ${phrase.text} → ${result.text}`);
    }
  }
  return { flagged, caught, rate: caught / flagged, misses, altered };
}

describe('the text filter on the holdout phrases', () => {
  for (const withLanguage of [true, false]) {
    it(`catches ≥ 95 % of the flagged and alters no clean phrase (${withLanguage ? 'the poll’s language' : 'no language'})`, () => {
      const result = score(withLanguage);
      console.log(
        `holdout, ${withLanguage ? 'with language' : 'no language'}: caught ${result.caught}/${result.flagged} ` +
          `(${(result.rate * 100).toFixed(1)} %), clean altered ${result.altered.length}`,
      );
      for (const miss of result.misses) console.log(`  missed: ${miss}`);
      for (const line of result.altered) console.log(`  altered: ${line}`);
      expect(result.rate).toBeGreaterThanOrEqual(0.95);
      expect(result.altered).toEqual([]);
    });
  }
});
