import { InstructionError, type RefusalReason, type Token, writtenText } from './tokens.js';

/**
 * Finding the grammar's phrases in a clause's tokens, and quoting a clause as the user wrote it.
 */

/** The longest phrase of `phrases` starting at token `at`, in words; 0 when none does. */
export function phraseAt(tokens: readonly Token[], at: number, phrases: readonly string[]): number {
  let best = 0;
  for (const phrase of phrases) {
    const words = phrase.split(' ');
    if (words.length > best && words.every((word, index) => tokens[at + index]?.value === word)) best = words.length;
  }
  return best;
}

/** Whether any phrase of `phrases` is in tokens [from, to). */
export function hasPhrase(tokens: readonly Token[], from: number, to: number, phrases: readonly string[]): boolean {
  for (let at = from; at < to; at++) if (phraseAt(tokens, at, phrases) > 0) return true;
  return false;
}

/** The words of tokens [from, to) as written, for messages. */
export function clauseText(tokens: readonly Token[], from: number, to: number): string {
  const written = writtenText(tokens, from, to);
  if (written !== undefined) return written.replace(/[\s,;:]+$/, '');
  return tokens
    .slice(from, to)
    .map((token) => (token.kind === 'quoted' ? `"${token.value}"` : token.value))
    .join(' ')
    .replace(/\s+([,.;:!?)])/g, '$1')
    .replace(/\(\s+/g, '(');
}

/** Where the first of `phrases` stands in tokens [from, to); `from` when none does. */
export function firstAt(tokens: readonly Token[], from: number, to: number, phrases: readonly string[]): number {
  for (let at = from; at < to; at++) if (phraseAt(tokens, at, phrases) > 0) return at;
  return from;
}

export function refuseWords(
  tokens: readonly Token[],
  from: number,
  to: number,
  expected: string,
  reason: RefusalReason,
): never {
  // Words past the end of the clause quote nothing: the whole clause is quoted instead.
  const words = clauseText(tokens, from, to) || clauseText(tokens, 0, tokens.length);
  throw new InstructionError(words, expected, undefined, reason);
}
