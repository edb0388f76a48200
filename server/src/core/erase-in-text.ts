/** What a respondent's value is replaced by wherever it sits in stored text. */
export const ERASED = '[erased]';

/**
 * A rewriter of free text (a receiver's answer kept in the delivery log) without a respondent: every
 * JSON string literal equal to one of `values`, and every one of `ids` standing as a whole token (not
 * inside a longer word, address or id; a full stop may end it), becomes the marker. One alternation,
 * longest first, so that one value inside another is not half-replaced, and one pass, so that the
 * marker is never searched again (docs/privacy.md, "Only their own records").
 */
export function eraserOfText(values: Iterable<string>, ids: Iterable<string>): (text: string) => string {
  const alternatives = [
    ...[...new Set(values)]
      .filter((value) => value.length > 0)
      .map((value) => ({ source: escapeRegExp(JSON.stringify(value)), replacement: JSON.stringify(ERASED) })),
    ...[...new Set(ids)]
      .filter((id) => id.length > 0)
      .map((id) => ({ source: `(?<![\\w@+-]|\\w\\.)${escapeRegExp(id)}(?![\\w@+-]|\\.\\w)`, replacement: ERASED })),
  ].sort((a, b) => b.source.length - a.source.length);
  if (alternatives.length === 0) return (text) => text;
  const pattern = new RegExp(alternatives.map((alternative) => `(${alternative.source})`).join('|'), 'gu');
  return (text) =>
    text.replace(pattern, (...match: unknown[]) => {
      const index = match.slice(1, alternatives.length + 1).findIndex((group) => group !== undefined);
      return alternatives[index]?.replacement ?? ERASED;
    });
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
