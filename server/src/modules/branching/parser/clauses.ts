import { END_VERBS, MOVE_CUES, NUMBER_WORDS, TYPOS } from './lexicon.js';

/**
 * An instruction as people write it, cut into the clauses that each say at most one thing: what the
 * grammar of people.ts reads, one clause at a time. Before cutting, what carries no meaning for
 * skip logic goes: emoji and pictographs, decoration (bullets, stars, em dashes), comments after
 * `//`. Shorthand is spelled out: `s3` is "slide 3", `a|b` and `a/b` are "a or b", `⇒` is an arrow.
 */

export interface Clause {
  /** The clause's text, trimmed. */
  text: string;
  /** Whether it opened its line or sentence (a rule's heading such as "Q2:" only stands there). */
  opensSentence: boolean;
  /** A reason given for a rule ("Because only Engineering gets equipment, …"): never a rule itself. */
  reason?: boolean;
}

/**
 * A reason before the rule, up to its comma: "Because …,", "Since …,", "So that …,", "Given that …,",
 * "To keep it short,". Its words name slides and options too, so they must not count as the condition.
 */
const LEADING_REASON =
  /^((?:(?:firstly|secondly|thirdly|first|second|third|finally|lastly|also|and|but|then)\b,?\s*)?(?:because|since|given that|seeing as|so that|in order to|as (?!for\b|to\b|far\b|regards\b|soon\b|long\b|well\b)|to (?:keep|make|save|avoid|help|reduce|spare|cut))\b[^,]*),\s*/i;
/** A reason after the rule: ", because …", ", since …", ", as we would rather …", ", so that …". */
const TRAILING_REASON =
  /,\s*((?:because|since|so that|as (?:we|they|i|it|this|that|these|those|there|he|she|you|their|our))\b.*)$/i;

const NUMBER_NAMES = NUMBER_WORDS.join('|');
/** "a one", "an eight": a rating said in words (not "a one-off", "one's"). */
const NUMBER_WORD_RATING = new RegExp(`\\b(a|an)\\s+(${NUMBER_NAMES})\\b(?![-'’])`, 'gi');
/** "1 or a two", "1, two or three": the rest of a list of ratings begun in digits. */
const NUMBER_WORD_AFTER = new RegExp(
  `(\\d)(\\s*(?:,|or|and|to|-)\\s*(?:(?:a|an)\\s+)?)(${NUMBER_NAMES})\\b(?![-'’])`,
  'gi',
);
const digitOf = (word: string) => String(NUMBER_WORDS.indexOf(word.toLowerCase()) + 1);

/** "Should they…" at the start of a sentence or after "and": the formal "if they…". */
const SHOULD_AS_IF =
  /(^|[.;:!?]\s+|,\s*|\band\s+|\bbut\s+)should\s+(?=(?:they|he|she|anyone|anybody|someone|somebody|any|a|an|the|their|those|people|respondents|participants|students|customers|colleagues)\b)/gim;

const PICTOGRAPHS =
  /\p{Extended_Pictographic}|\u{200D}|[\u{FE0E}\u{FE0F}\u{20E3}]|[\u{1F1E6}-\u{1F1FF}]|[\u{1F3FB}-\u{1F3FF}]/gu;

/** The instruction without decoration, with shorthand spelled out, on the lines it was written on. */
export function cleanInstruction(instruction: string): string {
  return (
    instruction
      .replace(PICTOGRAPHS, ' ')
      // Config-file shorthand: "# comment", "goto", "else:", "when x in {a, b}", "4..6", "== null".
      .replace(/(^|\s)#(?=\s)[^\n]*/g, '$1')
      .replace(/\n[ \t]*(?=(?:goto|go to|then)\s*:?\s)/gi, ' ')
      .replace(/\b(?:goto|then)\s*:/gi, ' -> ')
      .replace(/\bgoto\b/gi, ' -> ')
      .replace(/^([ \t]*(?:[-*•][ \t]+)?)when\s*:?\s/gim, '$1if ')
      .replace(/^([ \t]*(?:[-*•][ \t]+)?)else\s*:\s*/gim, '$1otherwise ')
      .replace(/\s*(?:==|=|\bis)\s*(?:null|none|nil|empty|blank|undefined)\b/gi, ' is blank')
      .replace(/==/g, '=')
      .replace(
        /\s*(?:∈|\bin)\s*[{([]([^})\]\n]*)[})\]]/g,
        (_all, members: string) => ` = ${members.split(/\s*,\s*/).join(' or ')}`,
      )
      .replace(/\b(?:in\s+)?(\d+)\s*\.\.\s*(\d+)/g, '$1-$2')
      .replace(/\brank\s*#?\s*1\s*=\s*/gi, 'ranked first = ')
      // "Should they choose Lyon, …", "and should anyone leave it blank": a condition, as "if".
      .replace(SHOULD_AS_IF, '$1if ')
      .replace(/\b\p{L}+\b/gu, (word) => TYPOS[word.toLowerCase()] ?? word)
      // "didnt", "doesnt": the apostrophe left out.
      .replace(/\b(did|does|do|is|was|were|are|has|have|had|could|would|should)nt\b/gi, '$1 not')
      // "a one or a two", "a nine or a ten": ratings written as words.
      .replace(NUMBER_WORD_RATING, (_all, article: string, word: string) => `${article} ${digitOf(word)}`)
      .replace(
        NUMBER_WORD_AFTER,
        (_all, before: string, joint: string, word: string) => `${before}${joint}${digitOf(word)}`,
      )
      .replace(
        NUMBER_WORD_AFTER,
        (_all, before: string, joint: string, word: string) => `${before}${joint}${digitOf(word)}`,
      )
      // "0–10", "1—3": a range, before dashes become commas.
      .replace(/(\d)\s*[–—]\s*(\d)/g, '$1-$2')
      // "9/10", "7 out of 7": the scale, not a second rating.
      .replace(/(\d+)\s*\/\s*(\d+)/g, (_all, n: string, m: string) =>
        Number(m) === Number(n) + 1 ? `${n} or ${m}` : `${n} out of ${m}`,
      )
      .replace(/\/\/[^\n]*/g, ' ')
      // Bullets and list numbers at the start of a line: "- plan=free: end", "1) …", "2. …".
      .replace(/^[ \t]*(?:[-*•·▪►>]+|\(?\d{1,2}[).](?!\d))[ \t]+/gm, '')
      .replace(/[—–]/g, ', ')
      .replace(/⇒|⟶|➡|➔|=>/g, ' -> ')
      .replace(/…/g, ' ')
      .replace(/`/g, '"')
      // Country initials are not the pronoun "us": "the US capital".
      .replace(/\bU\.?S\.?A?\b(?!\.\w)/g, 'United States')
      .replace(/\bU\.?K\.?\b/g, 'United Kingdom')
      // "no/unsure", "dissat|vdis": either of them. A slash between digits is left ("9/10").
      .replace(/(?<=\p{L})\s*[|/]\s*(?=\p{L})/gu, ' or ')
      // "s3" and "S5" are slides 3 and 5; "p2" page 2.
      .replace(/\b[sS](\d{1,3})\b/g, 'slide $1')
      // "aspects.catering": an id and what follows, as two words.
      .replace(/(?<=\p{L})\.(?=\p{L}{2})/gu, ' ')
      // Characters the tokenizer has no use for become spaces.
      .replace(/[^\p{L}\p{N}\s"“”'‘’<>=≤≥≠;,.:+()?!#&_\-→]/gu, ' ')
  );
}

/** Words that start a new clause inside a sentence ("…, otherwise end"; "…, if they say No, …"). */
const CLAUSE_STARTS =
  /(?:,\s*|\s+)(?=(?:and\s+)?otherwise\b)|[,:]\s*(?=(?:or\s+)?else\b)|:\s*(?=(?:if|when|whenever|anyone|anybody|everyone|people|those|respondents)\b)|,\s*(?=(?:and\s+)?(?:if|when|whenever)\b)|\s+(?=and\s+(?:if|when)\b)|,\s*(?=(?:but\s+)?(?:everyone|everybody|anyone|anybody)\s+else\b)|,\s*(?=(?:all\s+)?the\s+others\b)|,\s*(?=and\s+(?:\p{L}+\s+)?(?:who|that)\s)|,\s*(?=[\p{L}_]+\s*(?:=|!=|<=|>=|<|>)\s*[\p{L}\p{N}"'])|,\s*(?=and\s+(?:those|anyone|anybody|everyone|people|respondents|participants|whoever)\b)/giu;

/**
 * The clauses of a cleaned instruction: its lines, its sentences (a full stop that ends a word of
 * one letter, as in "D.C.", ends none), its semicolons, and inside a sentence the places where a new
 * rule starts ("otherwise", ", if", "and if", "everyone else").
 */
export function splitClauses(cleaned: string): Clause[] {
  const clauses: Clause[] = [];
  for (const line of cleaned.split(/\n+/)) {
    // A full stop ends a sentence, except the last of initials ("Washington, D.C.").
    for (const sentence of line.split(/(?<!\.\p{L})[.!?]+(?=\s|$)|;/u)) {
      let first = true;
      let rest = sentence.trim();
      const leading = LEADING_REASON.exec(rest);
      if (leading && !saysAMove(leading[1] as string)) {
        clauses.push({ text: (leading[1] as string).trim(), opensSentence: true, reason: true });
        rest = rest.slice(leading[0].length);
        first = false;
      }
      let trailing = TRAILING_REASON.exec(rest);
      if (trailing && saysAMove(trailing[1] as string)) trailing = null;
      if (trailing) rest = rest.slice(0, trailing.index);
      for (const part of rest.split(CLAUSE_STARTS)) {
        const text = part.trim().replace(/^[,:\s]+|[,:\s]+$/g, '');
        if (text) clauses.push({ text, opensSentence: first });
        first = false;
      }
      if (trailing) clauses.push({ text: (trailing[1] as string).trim(), opensSentence: false, reason: true });
    }
  }
  return clauses;
}

/** Whether words say where someone goes: then they hold a rule, and are not set aside as a reason. */
function saysAMove(text: string): boolean {
  return text
    .toLowerCase()
    .split(/[^\p{L}-]+/u)
    .some((word) => MOVE_CUES.includes(word) || END_VERBS.includes(word));
}
