import { type Poll, pollLimits, type Slide } from '@pollkit/contracts';
import { ApiError } from '../../core/api-error.js';
import type { AnswerValue } from '../../db/schema.js';
import { normaliseText } from './tallies.js';

/**
 * Whether an answer fits its slide. Pure functions over the poll: the writer calls them before an
 * answer is queued, so a bad answer is refused with a 4xx and never reaches the database.
 */

export function assertTakesAnswers(poll: Poll): void {
  if (poll.status === 'draft') {
    throw new ApiError('poll_not_published', 'This poll is a draft; publish it before it takes answers');
  }
  if (poll.status === 'closed') throw new ApiError('poll_closed', 'This poll is closed and takes no more answers');
}

export function findSlide(poll: Poll, slideId: string): Slide {
  const slide = poll.content.questions.find((s) => s.id === slideId);
  if (!slide) throw new ApiError('not_found', `Slide '${slideId}' not found in this poll`);
  return slide;
}

function invalid(field: string, message: string): ApiError {
  return new ApiError('validation_failed', message, { fieldErrors: { [field]: [message] }, formErrors: [] });
}

/** The one field a response to this slide carries (multiple_choice and content slides take none). */
function responseFieldOf(slide: Exclude<Slide, { kind: 'multiple_choice' | 'content' }>): keyof ResponseFields {
  switch (slide.kind) {
    case 'quiz':
      return 'optionIds';
    case 'scale':
      return slide.statements.length > 0 ? 'scaleValues' : 'scaleValue';
    case 'ranking':
      return 'rankingOrder';
    case 'open_ended':
    case 'qa':
      return 'text';
  }
}

function assertKnownDistinctOptions(slide: Slide & { options: { id: string }[] }, optionIds: string[]): void {
  const known = new Set(slide.options.map((o) => o.id));
  for (const id of optionIds) {
    if (!known.has(id)) throw invalid('optionIds', `'${id}' is not an option of slide '${slide.id}'`);
  }
  if (new Set(optionIds).size !== optionIds.length) throw invalid('optionIds', 'Each option may be chosen once');
}

/** A vote (`POST /polls/{id}/votes`): multiple_choice slides only. */
export function voteValue(slide: Slide, optionIds: string[]): AnswerValue {
  if (slide.kind !== 'multiple_choice') {
    throw invalid(
      'slideId',
      slide.kind === 'content'
        ? `Slide '${slide.id}' is a content slide and takes no answers`
        : `Slide '${slide.id}' is a ${slide.kind} slide: send its answer to POST /polls/{id}/responses as \`${responseFieldOf(slide)}\``,
    );
  }
  assertKnownDistinctOptions(slide, optionIds);
  if (slide.type === 'single' && optionIds.length !== 1) {
    throw invalid('optionIds', `Slide '${slide.id}' takes exactly one option`);
  }
  return { optionIds };
}

const answerFields = ['scaleValue', 'scaleValues', 'rankingOrder', 'text', 'optionIds'] as const;

export interface ResponseFields {
  scaleValue?: number | undefined;
  scaleValues?: Record<string, number> | undefined;
  rankingOrder?: string[] | undefined;
  text?: string | undefined;
  optionIds?: string[] | undefined;
}

/** A response (`POST /polls/{id}/responses`): every answerable kind but multiple_choice. */
export function responseValue(slide: Slide, input: ResponseFields): AnswerValue {
  if (slide.kind === 'multiple_choice') {
    throw invalid('slideId', `Slide '${slide.id}' is multiple_choice: send votes to POST /polls/{id}/votes`);
  }
  if (slide.kind === 'content') throw invalid('slideId', `Slide '${slide.id}' is a content slide and takes no answers`);
  const expected = responseFieldOf(slide);
  const sent = answerFields.find((field) => input[field] !== undefined);
  if (sent !== undefined && sent !== expected) {
    throw invalid(sent, `Slide '${slide.id}' (${slide.kind}) takes \`${expected}\`, not \`${sent}\``);
  }

  switch (slide.kind) {
    case 'quiz': {
      const optionIds = input.optionIds ?? [];
      assertKnownDistinctOptions(slide, optionIds);
      return { optionIds };
    }
    case 'scale': {
      const inRange = (field: string, value: number) => {
        if (!Number.isInteger(value) || value < slide.min || value > slide.max) {
          throw invalid(field, `Ratings on slide '${slide.id}' are whole numbers from ${slide.min} to ${slide.max}`);
        }
      };
      if (slide.statements.length > 0) {
        const values = input.scaleValues;
        if (!values) throw invalid('scaleValues', `Slide '${slide.id}' has statements: send \`scaleValues\``);
        const statementIds = new Set(slide.statements.map((s) => s.id));
        for (const [id, value] of Object.entries(values)) {
          if (!statementIds.has(id))
            throw invalid(`scaleValues.${id}`, `'${id}' is not a statement of slide '${slide.id}'`);
          inRange(`scaleValues.${id}`, value);
        }
        // Own keys only: a statement id such as `constructor` must not find Object.prototype's member.
        const missing = [...statementIds].filter((id) => !Object.hasOwn(values, id));
        if (missing.length > 0) throw invalid('scaleValues', `Rate every statement; missing: ${missing.join(', ')}`);
        return { scaleValues: values };
      }
      if (input.scaleValue === undefined) throw invalid('scaleValue', `Slide '${slide.id}' takes \`scaleValue\``);
      inRange('scaleValue', input.scaleValue);
      return { scaleValue: input.scaleValue };
    }
    case 'ranking': {
      const order = input.rankingOrder ?? [];
      const optionIds = slide.options.map((o) => o.id);
      const isPermutation =
        order.length === optionIds.length &&
        new Set(order).size === order.length &&
        order.every((id) => optionIds.includes(id));
      if (!isPermutation) {
        throw invalid('rankingOrder', `Order every option of slide '${slide.id}' once: ${optionIds.join(', ')}`);
      }
      return { rankingOrder: order };
    }
    case 'open_ended':
    case 'qa': {
      const text = normaliseText(input.text ?? '');
      const max = slide.kind === 'open_ended' ? slide.maxLength : pollLimits.textLength;
      if (text.length === 0) throw invalid('text', 'The answer is empty');
      if (text.length > max) throw invalid('text', `Answers to slide '${slide.id}' are at most ${max} characters`);
      return { text };
    }
  }
}
