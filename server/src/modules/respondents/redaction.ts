import type { Redaction } from '../webhooks/index.js';

/** What a respondent's value is replaced by wherever it sits in stored text. */
export const ERASED = '[erased]';

/**
 * How stored text is rewritten without one respondent (docs/privacy.md, "What erasure reaches").
 * A stored text is about them when it holds one of their identifiers (voter ids, participant ids,
 * respondentIds) as JSON writes it; in such a text, every JSON string value equal to an identifier, a
 * name they joined with or a text they answered becomes "[erased]". Free text (a receiver's answer
 * kept in the delivery log) has the identifiers replaced wherever they occur, and the names and texts
 * where they occur as JSON strings.
 */
export function respondentRedaction(identifiers: string[], personalValues: string[]): Redaction {
  const ids = [...new Set(identifiers.filter((value) => value.length > 0))];
  const values = new Set([...ids, ...personalValues.filter((value) => value.length > 0)]);
  const needles = [...new Set(ids.flatMap((id) => [jsonEscaped(id)]))];
  const json = (text: string): string => {
    if (!needles.some((needle) => text.includes(needle))) return text;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return plain(text);
    }
    return JSON.stringify(redactValue(parsed, values));
  };
  const plain = (text: string): string => {
    let result = text;
    for (const value of values) result = result.replaceAll(JSON.stringify(value), JSON.stringify(ERASED));
    for (const id of ids) result = result.replaceAll(jsonEscaped(id), ERASED).replaceAll(id, ERASED);
    return result;
  };
  return { needles, json, text: plain };
}

/** The value with every string equal to one of `values` replaced, at any depth. */
function redactValue(value: unknown, values: Set<string>): unknown {
  if (typeof value === 'string') return values.has(value) ? ERASED : value;
  if (Array.isArray(value)) return value.map((item) => redactValue(item, values));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, redactValue(item, values)]));
  }
  return value;
}

/** A string as it appears inside a JSON string literal (without the quotes). */
function jsonEscaped(value: string): string {
  return JSON.stringify(value).slice(1, -1);
}
