import type { BranchCondition, Slide } from '@pollkit/contracts';

/**
 * A rule in the poll's own words, for the draft's report and the refusal of two readings: each
 * slide by its text, each option by its label ("If “Which plan are you on?” is “Free”, skip to
 * “How satisfied are you with our support?”"), so a host can check what was understood.
 */

const OPERATOR_WORDS: Record<BranchCondition['if']['operator'], string> = {
  equals: 'is',
  not_equals: 'is not',
  includes: 'is any of',
  greater_than: 'is above',
  less_than: 'is below',
  at_least: 'is at least',
  at_most: 'is at most',
  answered: 'is answered',
  not_answered: 'is left blank',
};

function quoted(text: string): string {
  return `“${text}”`;
}

function valueWords(slide: Slide | undefined, value: BranchCondition['if']['value']): string {
  if (value === undefined) return '';
  const label = (id: string) =>
    quoted(slide && 'options' in slide ? (slide.options.find((option) => option.id === id)?.label ?? id) : id);
  if (Array.isArray(value)) return ` ${value.map(label).join(', ')}`;
  return typeof value === 'number' ? ` ${value}` : ` ${label(value)}`;
}

export function describeRule(condition: BranchCondition, slides: readonly Slide[]): string {
  const slide = slides.find((candidate) => candidate.id === condition.if.slideId);
  const subject = slide ? quoted(slide.text) : condition.if.slideId;
  const ranked = slide?.kind === 'ranking' && condition.if.operator === 'equals' ? ' ranked first' : '';
  const test = `${OPERATOR_WORDS[condition.if.operator]}${valueWords(slide, condition.if.value)}${ranked}`;
  if (condition.then.action === 'end') return `If ${subject} ${test}, end the poll`;
  const targetId = condition.then.slideId;
  const target = slides.find((candidate) => candidate.id === targetId);
  return `If ${subject} ${test}, skip to ${target ? quoted(target.text) : targetId}`;
}
