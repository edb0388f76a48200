import {
  type DeckImportReport,
  type Media,
  type PollContent,
  pollLimits,
  Slide,
  validationDetails,
} from '@pollkit/contracts';
import type { Bank, BankChange, BankImage, BankQuestion, BankSlide } from './bank.js';

export type ImageStore = (image: BankImage) => Promise<{ media?: Media } | { dropped: string }>;

/**
 * A question bank as a poll's content: ids given, the poll's limits applied, each image resolved by
 * `storeImage` (or left out), and what became of each question reported. Every slide is checked
 * against the contract's `Slide` schema on its own, so one question the schema refuses is skipped
 * as malformed and the others still import.
 */
export async function contentOfBank(
  bank: Bank,
  /**
   * Re-hosts an image: `{ media }`; `{}` when it would be (a dry run, which stores nothing);
   * `{ dropped }` with why when it cannot be (not an image, too large, over the budget).
   */
  storeImage: ImageStore,
): Promise<{ content: PollContent; report: DeckImportReport }> {
  const questions: Slide[] = [];
  const report: DeckImportReport = { imported: 0, skipped: [], changed: [] };
  const slideIds = new SlideIds(bank);
  for (const question of bank.questions) {
    const place = placeOf(question);
    if (question.skipped || !question.slide) {
      report.skipped.push({
        ...place,
        reason: question.skipped?.reason ?? 'malformed',
        message: question.skipped?.message ?? `Question ${question.number} cannot be read`,
      });
      continue;
    }
    if (questions.length >= pollLimits.slides) {
      report.skipped.push({
        ...place,
        reason: 'slide_limit',
        message: `Question ${question.number} is past the ${pollLimits.slides}-slide limit of a poll`,
      });
      continue;
    }
    const slideId = slideIds.of(question);
    const changes: BankChange[] = [...question.changes];
    const draft = await slideOf(slideId, question.slide, changes, storeImage);
    if (typeof draft === 'string') {
      report.skipped.push({ ...place, reason: 'malformed', message: `Question ${question.number} ${draft}` });
      continue;
    }
    const parsed = Slide.safeParse(draft);
    if (!parsed.success) {
      const details = validationDetails(parsed.error.issues);
      const first = Object.entries(details.fieldErrors)[0];
      const why = first ? `${first[0]}: ${first[1]?.[0]}` : (details.formErrors[0] ?? 'it does not fit a slide');
      report.skipped.push({ ...place, reason: 'malformed', message: `Question ${question.number}: ${why}` });
      continue;
    }
    questions.push(parsed.data);
    report.imported += 1;
    for (const change of changes) report.changed.push({ ...place, slideId, ...change });
  }
  return { content: { questions }, report };
}

/** What a slide id may be (the contract's `ClientId`). */
const CLIENT_ID = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Slide ids: a question's name when it is one an id may be and no other question has it (GIFT and
 * Moodle XML exports name each question after its slide, so ids survive a round trip through
 * them), else `q<number>`, made unique.
 */
class SlideIds {
  private readonly used = new Set<string>();
  private readonly named: ReadonlySet<string>;

  constructor(bank: Bank) {
    const counts = new Map<string, number>();
    for (const { name } of bank.questions) {
      if (name !== undefined && CLIENT_ID.test(name) && name !== '__proto__') {
        counts.set(name, (counts.get(name) ?? 0) + 1);
      }
    }
    this.named = new Set([...counts].filter(([, count]) => count === 1).map(([name]) => name));
  }

  of(question: BankQuestion): string {
    let id = question.name !== undefined && this.named.has(question.name) ? question.name : `q${question.number}`;
    for (let suffix = 2; this.used.has(id) || (id !== question.name && this.named.has(id)); suffix++) {
      id = `q${question.number}-${suffix}`;
    }
    this.used.add(id);
    return id;
  }
}

function placeOf(question: BankQuestion) {
  return {
    number: question.number,
    ...(question.name ? { name: question.name } : {}),
    ...(question.line ? { line: question.line } : {}),
  };
}

const OPTION_IDS = 'abcdefghijklmnopqrstuvwxyz';

/** `a`…`z`, then `a1`…: short ids a person can read in the report and in skip logic. */
function optionId(index: number): string {
  const letter = OPTION_IDS[index % OPTION_IDS.length] as string;
  const round = Math.floor(index / OPTION_IDS.length);
  return round === 0 ? letter : `${letter}${round}`;
}

/** The slide's JSON before the schema reads it, or why the question cannot be one. */
async function slideOf(
  id: string,
  bankSlide: BankSlide,
  changes: BankChange[],
  storeImage: ImageStore,
): Promise<Record<string, unknown> | string> {
  const text = fitted(bankSlide.text, pollLimits.textLength, 'The question text', changes);
  if (text === '' && !bankSlide.image) return 'has no text';
  const media = await mediaOf(bankSlide.image, 'the question', storeImage, changes);
  // A question that is only its image keeps a slide: the text a slide requires names it.
  const base = { id, text: text === '' ? (bankSlide.image?.name ?? 'Image') : text, ...(media ? { media } : {}) };
  if (bankSlide.kind === 'open_ended') return { ...base, kind: 'open_ended' };
  if (bankSlide.kind === 'content') return { ...base, kind: 'content' };

  let sourceOptions = bankSlide.options;
  if (sourceOptions.length > pollLimits.options) {
    changes.push({
      reason: 'options_dropped',
      message: `${sourceOptions.length - pollLimits.options} options past the ${pollLimits.options}-option limit were left out`,
    });
    sourceOptions = sourceOptions.slice(0, pollLimits.options);
  }
  if (sourceOptions.length < 2) return 'has fewer than two options';
  const options: Record<string, unknown>[] = [];
  let relabelled = 0;
  for (const [index, option] of sourceOptions.entries()) {
    let label = fitted(option.label, pollLimits.labelLength, `Option ${index + 1}'s label`, changes);
    const optionMedia = await mediaOf(option.image, `option ${index + 1}`, storeImage, changes);
    if (label === '') {
      // Named from the file, not from what was stored, so a dry run names it as the import does.
      label = option.image ? `Image ${index + 1}` : `Option ${index + 1}`;
      relabelled += 1;
    }
    options.push({ id: optionId(index), label, ...(optionMedia ? { media: optionMedia } : {}) });
  }
  // Labels that read the same (often once markup is gone: `**this**` and `*this*`) are told apart,
  // or a quiz could not be answered.
  const seen = new Map<string, number>();
  let repeated = 0;
  for (const option of options) {
    const label = option.label as string;
    const count = (seen.get(label) ?? 0) + 1;
    seen.set(label, count);
    if (count > 1) {
      option.label = `${label} (${count})`;
      repeated += 1;
    }
  }
  if (repeated > 0) {
    changes.push({
      reason: 'labels_changed',
      message: `${repeated} option${repeated === 1 ? '' : 's'} reading the same as an earlier one numbered, as "(2)"`,
    });
  }
  if (relabelled > 0) {
    changes.push({
      reason: 'labels_changed',
      message: `${relabelled} option${relabelled === 1 ? '' : 's'} without text named by position`,
    });
  }
  const correct = bankSlide.correct.filter((index) => index < options.length);
  if (correct.length > 0) {
    return {
      ...base,
      kind: 'quiz',
      options,
      correctOptionIds: correct.map((index) => optionId(index)),
    };
  }
  if (bankSlide.correct.length > 0) return 'has its correct answers only among options past the limit';
  return { ...base, kind: 'multiple_choice', type: bankSlide.multiple ? 'multiple' : 'single', options };
}

/** Text cut to `max` characters (an ellipsis ending it), with the change noted. */
function fitted(text: string, max: number, what: string, changes: BankChange[]): string {
  const characters = Array.from(text);
  if (characters.length <= max) return text;
  changes.push({ reason: 'text_truncated', message: `${what} was cut to ${max} characters` });
  return `${characters.slice(0, max - 1).join('')}…`;
}

async function mediaOf(
  image: BankImage | undefined,
  where: string,
  storeImage: ImageStore,
  changes: BankChange[],
): Promise<Media | undefined> {
  if (!image) return undefined;
  const stored = await storeImage(image);
  if ('dropped' in stored) {
    const name = image.name ? ` (${image.name})` : '';
    changes.push({ reason: 'media_dropped', message: `The image of ${where}${name} was left out: ${stored.dropped}` });
    return undefined;
  }
  return stored.media;
}
