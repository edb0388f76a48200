import { type ClauseScope, wordsOf } from './evidence.js';
import {
  BACKWARD_WORDS,
  CONDITION_OPENERS,
  MOVE_CUES,
  MOVE_FILLERS,
  NO_OP_PHRASES,
  SKIP_REMARKS,
  TARGET_PREPOSITIONS,
} from './lexicon.js';
import { clauseText, hasPhrase, phraseAt } from './phrases.js';
import { type ClauseAction, endAt, endsOrTargets, skippedSlides, slideTarget, targetAt } from './targets.js';
import { InstructionError, type Token } from './tokens.js';

/**
 * Where a clause sends a respondent, as people write it: "end the survey", "they're done", "go
 * straight to the improve question", "skip the laptop question", "-> Q4", "route to item 6". The
 * target is a slide named by number, id, quoted text or a paraphrase of its text, "the next
 * question", or the end.
 */

const SUBJECT_BEFORE_SKIP = new Set(
  wordsOf(
    'if who that they he she someone somebody anyone people respondents students pupils folks customers users person respondent student user customer',
  ),
);

const SKIP_VERBS = new Set(['skip', 'skips', 'jump', 'jumps', 'pass', 'passes', 'bypass', 'bypasses', 'bypassing']);

/** Verbs that move only when a modal precedes them ("should get the grid", "can see"). */
const MODAL_MOVES = new Set([
  'get',
  'gets',
  'see',
  'sees',
  'take',
  'takes',
  'taken',
  'land',
  'lands',
  'put',
  'puts',
  'ask',
  'show',
]);

const MODALS = new Set(['should', 'can', 'will', 'must', 'may', 'could', 'would', 'just', 'and', 'then']);

/** Verbs whose object is who moves, before where to: "send everyone who ticked X on to the grid". */
const SENDING_VERBS = new Set([
  'send',
  'sends',
  'route',
  'routes',
  'take',
  'takes',
  'bring',
  'move',
  'direct',
  'redirect',
  'put',
  'pop',
  'push',
  'get',
  'forward',
]);

/** Whether a move verb at `at` is a condition's word instead: "if someone skips Q3", "Q5 skipped". */
function movesHere(tokens: readonly Token[], at: number): boolean {
  const word = (tokens[at] as Token).value;
  const before = tokens[at - 1]?.value ?? '';
  const after = tokens[at + 1]?.value ?? '';
  if (word === 'skipped' || word === 'skipping') return false;
  if (word === 'skip' || word === 'skips') {
    if (
      SUBJECT_BEFORE_SKIP.has(before) &&
      !['can', 'could', 'should', 'will', 'may', 'must'].includes(tokens[at - 2]?.value ?? '') &&
      !['to', 'ahead', 'straight', 'directly', 'them', 'him', 'her'].includes(after)
    ) {
      return false;
    }
  }
  if (MODAL_MOVES.has(word)) {
    if (word === 'land' || word === 'lands') return ['on', 'in', 'at'].includes(after);
    if (['take', 'takes', 'taken', 'put', 'puts', 'ask', 'show'].includes(word)) {
      // "take them to", "ask them which tool": who moves, then where; "take the headset" is a choice.
      return [
        'them',
        'him',
        'her',
        'people',
        'everyone',
        'to',
        'straight',
        'directly',
        'on',
        'along',
        'right',
        'kindly',
      ].includes(after);
    }
    return MODALS.has(before);
  }
  return true;
}

/**
 * The action of tokens [from, to) of a clause, or undefined when it has none. Throws an
 * InstructionError when the action's target is not a slide of the poll, or sends back.
 */
export function findAction(scope: ClauseScope, from: number, to: number): ClauseAction | undefined {
  const { tokens } = scope;
  const remarks: [number, number][] = [];
  let remark: ClauseAction | undefined;
  for (let at = from; at < to; at++) {
    const token = tokens[at] as Token;
    if (token.value === '->' || (token.value === ':' && at > from && endsOrTargets(scope, at + 1, to))) {
      // "laptop==own -> skip extras": the arrow leads to an action of its own.
      // "-> default sequence", "-> continue sequentially": no jump at all.
      if (hasPhrase(tokens, at + 1, to, NO_OP_PHRASES)) return undefined;
      // "-> just end it", "-> straight to Q4": past the fillers to the action's own words.
      let lead = at + 1;
      while (lead < to && MOVE_FILLERS.includes((tokens[lead] as Token).value)) lead++;
      const leads = MOVE_CUES.includes(tokens[lead]?.value ?? '') || endAt(tokens, lead, to) > 0;
      const inner = leads ? findAction(scope, lead, to) : undefined;
      if (inner) return withCondition(tokens, at, to, { ...inner, from: at, remarks });
      return withCondition(tokens, at, to, {
        ...targetAt(scope, at + 1, to, at),
        remarks,
      });
    }
    if (token.kind !== 'word') continue;
    const ending = endAt(tokens, at, to);
    if (ending > 0)
      return withCondition(tokens, at, to, { destination: { kind: 'end' }, from: at, to: at + ending, remarks });
    const skipRemark = phraseAt(tokens, at, SKIP_REMARKS);
    if (skipRemark > 0) {
      const skipped = skippedSlides(scope, at + skipRemark, to);
      if (skipped) {
        remarks.push([at, skipped.to]);
        remark ??= { ...skipped, from: at, remarks };
        at = skipped.to - 1;
        continue;
      }
    }
    if (!MOVE_CUES.includes(token.value) || !movesHere(tokens, at)) continue;
    let next = at + 1;
    for (let filler = phraseAt(tokens, next, MOVE_FILLERS); filler > 0; filler = phraseAt(tokens, next, MOVE_FILLERS)) {
      next += filler;
    }
    const back = phraseAt(tokens, next, BACKWARD_WORDS);
    if (back > 0) {
      throw new InstructionError(
        clauseText(tokens, next, to),
        'a slide after the one the rule tests: jumps go forward only, a respondent cannot be sent back',
        undefined,
        'backward_jump',
      );
    }
    // "go from the plan question straight to …": where they come from says nothing more.
    if (tokens[next]?.value === 'from') {
      for (let look = next + 1; look < Math.min(to, next + 10); look++) {
        const to2 = phraseAt(tokens, look, TARGET_PREPOSITIONS);
        if (to2 > 0) {
          next = look;
          break;
        }
      }
    }
    const preposition = phraseAt(tokens, next, TARGET_PREPOSITIONS);
    if (preposition > 0) {
      return withCondition(tokens, at, to, {
        ...targetAt(scope, next + preposition, to, at),
        remarks,
      });
    }
    // "route them past the laptop and extras questions to …": any move past slides skips them.
    const passing = tokens[next]?.value === 'past';
    if (SKIP_VERBS.has(token.value) || passing) {
      if (passing) next++;
      const skipped = skippedSlides(scope, next, to);
      // "take them past the rating questions to …": what they pass need not name one slide; where they land does.
      if (!skipped && passing) {
        for (let look = next; look < Math.min(to, next + 12); look++) {
          if ([',', ';', 'if', 'when'].includes((tokens[look] as Token).value)) break;
          const onto = phraseAt(tokens, look, TARGET_PREPOSITIONS);
          if (onto > 0) {
            const passed: [number, number] = [next, look];
            return withCondition(tokens, at, to, {
              ...targetAt(scope, look + onto, to, at),
              remarks: [...remarks, passed],
            });
          }
        }
      }
      if (skipped) {
        // "skip the laptop question and go straight to extras", "…and onto the buddy one": the later target decides.
        // "…, straight to Y", "… and be taken to Y", "… and onto Y": where they go after what they skip.
        let look = skipped.to;
        while (
          look < to &&
          [',', 'and', 'then', 'be', 'taken', 'sent', ...MOVE_FILLERS].includes((tokens[look] as Token).value)
        )
          look++;
        const onto = phraseAt(tokens, look, TARGET_PREPOSITIONS);
        if (onto > 0 && look > skipped.to - 1) {
          return withCondition(tokens, at, to, { ...targetAt(scope, look + onto, to, at), remarks });
        }
        const later = findAction(scope, skipped.to, to);
        if (later && later.destination.kind !== 'after')
          return { ...later, from: at, remarks: [...remarks, ...(later.remarks ?? [])] };
        return withCondition(tokens, at, to, { ...skipped, from: at, remarks });
      }
      // "skip everything and just see the thanks slide": what is skipped is said by where they go.
      const later = findAction(scope, next, to);
      if (later && later.destination.kind !== 'after') {
        return { ...later, from: at, remarks: [...remarks, [at, later.from], ...(later.remarks ?? [])] };
      }
      // Nothing after it reads as an action: scanning on from here would find nothing more (and would
      // cost a search per "skip" again, exponential in a run of them).
      if (!later) return remark;
    }
    if (SENDING_VERBS.has(token.value)) {
      // "send everyone who ticked the workshops on to the grid": who moves, then where to.
      for (let look = next + 1; look < to; look++) {
        const prep = phraseAt(tokens, look, TARGET_PREPOSITIONS);
        if (prep === 0 || tokens[look - 1]?.value === 'up') continue;
        const found = slideTarget(scope, look + prep, to);
        if (found) return { ...found, from: at, conditionFrom: next, conditionTo: look, remarks };
      }
    }
    if (
      [
        'go',
        'goes',
        'head',
        'heads',
        'route',
        'routes',
        'routed',
        'send',
        'sent',
        'get',
        'see',
        'sees',
        'gets',
        'ask',
        'show',
        'land',
        'lands',
      ].includes(token.value)
    ) {
      const direct = slideTarget(scope, next, to);
      if (direct) return withCondition(tokens, at, to, { ...direct, from: at, remarks });
    }
  }
  return remark;
}

/** Whether a clause's action, once found, is followed by its condition ("… for anyone who …"). */
function withCondition(tokens: readonly Token[], at: number, to: number, action: ClauseAction): ClauseAction {
  for (let look = action.to; look < to; look++) {
    const opener = phraseAt(tokens, look, CONDITION_OPENERS);
    if (opener > 0) return { ...action, from: Math.min(action.from, at), conditionFrom: look + opener };
  }
  return { ...action, from: Math.min(action.from, at) };
}

/** Whether a clause says nothing changes ("otherwise carry on as normal", "continue sequentially"). */
export function saysNothingChanges(tokens: readonly Token[]): boolean {
  return hasPhrase(tokens, 0, tokens.length, NO_OP_PHRASES);
}

/**
 * Whether a clause says someone goes somewhere ("kindly take them on to …") though no action was
 * read from it: such a clause is refused, never passed over as chatter.
 */
export function saysAMove(tokens: readonly Token[], from: number): boolean {
  for (let at = from; at < tokens.length; at++) {
    if (!MOVE_CUES.includes((tokens[at] as Token).value) || !movesHere(tokens, at)) continue;
    let next = at + 1;
    for (let filler = phraseAt(tokens, next, MOVE_FILLERS); filler > 0; filler = phraseAt(tokens, next, MOVE_FILLERS))
      next += filler;
    if (tokens[next]?.value === 'past' || phraseAt(tokens, next, TARGET_PREPOSITIONS) > 0) return true;
  }
  return false;
}
