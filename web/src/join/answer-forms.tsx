import type { LiveAnswer, ParticipantSlide } from '@pollkit/sdk/live';
import { useRef, useState } from 'preact/hooks';
import { formatNumber, t } from '../shared/i18n.js';
import { MediaView } from '../shared/widgets.js';

/**
 * One form per answerable kind. Each renders native inputs (radio buttons, checkboxes, text areas),
 * so the keyboard and screen readers work as they do everywhere, styled as large touch targets.
 * `disabled`: locked, time up, answered or sending.
 */
interface FormProps<K extends ParticipantSlide['kind']> {
  slide: Extract<ParticipantSlide, { kind: K }>;
  disabled: boolean;
  onAnswer: (answer: LiveAnswer) => void;
  /** What this participant sent, to show it again after a reload. */
  sent: LiveAnswer | undefined;
}

export function ChoiceForm({ slide, disabled, onAnswer, sent }: FormProps<'multiple_choice' | 'quiz'>) {
  const multiple = slide.kind === 'multiple_choice' && slide.type === 'multiple';
  const [chosen, setChosen] = useState<string[]>(sent?.optionIds ?? []);
  const toggle = (id: string) =>
    setChosen(multiple ? (chosen.includes(id) ? chosen.filter((c) => c !== id) : [...chosen, id]) : [id]);
  return (
    <form
      class="answer-form"
      onSubmit={(event) => {
        event.preventDefault();
        if (chosen.length > 0) onAnswer({ slideId: slide.id, optionIds: chosen });
      }}
    >
      <fieldset disabled={disabled}>
        <legend class="visually-hidden">{slide.text}</legend>
        <div class="choices">
          {slide.options.map((option) => (
            <label key={option.id} class={`choice${chosen.includes(option.id) ? ' chosen' : ''}`}>
              <input
                type={multiple ? 'checkbox' : 'radio'}
                name={`slide-${slide.id}`}
                value={option.id}
                checked={chosen.includes(option.id)}
                onChange={() => toggle(option.id)}
              />
              <span>{option.label}</span>
              <MediaView media={option.media} alt="" />
            </label>
          ))}
        </div>
        <button type="submit" class="primary" disabled={chosen.length === 0}>
          {t('join.answer.send')}
        </button>
      </fieldset>
    </form>
  );
}

function Ratings({
  name,
  label,
  min,
  max,
  value,
  onChange,
}: {
  name: string;
  label: string;
  min: number;
  max: number;
  value: number | undefined;
  onChange: (value: number) => void;
}) {
  const values = Array.from({ length: max - min + 1 }, (_, index) => min + index);
  return (
    <div class="ratings" role="radiogroup" aria-label={label}>
      {values.map((rating) => (
        <label key={rating} class={`rating${value === rating ? ' chosen' : ''}`}>
          <input type="radio" name={name} value={rating} checked={value === rating} onChange={() => onChange(rating)} />
          <span>{formatNumber(rating)}</span>
        </label>
      ))}
    </div>
  );
}

export function ScaleForm({ slide, disabled, onAnswer, sent }: FormProps<'scale'>) {
  const [single, setSingle] = useState<number | undefined>(sent?.scaleValue);
  const [perStatement, setPerStatement] = useState<Record<string, number>>(sent?.scaleValues ?? {});
  const hasStatements = slide.statements.length > 0;
  const complete = hasStatements
    ? slide.statements.every((s) => perStatement[s.id] !== undefined)
    : single !== undefined;
  const labels =
    slide.minLabel || slide.maxLabel ? (
      <p class="scale-labels muted">
        <span>{t('join.scale.endLabel', { value: slide.min, label: slide.minLabel ?? '' })}</span>
        <span>{t('join.scale.endLabel', { value: slide.max, label: slide.maxLabel ?? '' })}</span>
      </p>
    ) : null;
  return (
    <form
      class="answer-form"
      onSubmit={(event) => {
        event.preventDefault();
        if (!complete) return;
        onAnswer(
          hasStatements
            ? { slideId: slide.id, scaleValues: perStatement }
            : { slideId: slide.id, scaleValue: single as number },
        );
      }}
    >
      <fieldset disabled={disabled}>
        <legend class="visually-hidden">{slide.text}</legend>
        {labels}
        {hasStatements ? (
          slide.statements.map((statement) => (
            <div key={statement.id} class="statement">
              <p class="statement-text">{statement.text}</p>
              <Ratings
                name={`${slide.id}-${statement.id}`}
                label={statement.text}
                min={slide.min}
                max={slide.max}
                value={perStatement[statement.id]}
                onChange={(value) => setPerStatement({ ...perStatement, [statement.id]: value })}
              />
            </div>
          ))
        ) : (
          <Ratings
            name={slide.id}
            label={slide.text}
            min={slide.min}
            max={slide.max}
            value={single}
            onChange={setSingle}
          />
        )}
        <button type="submit" class="primary" disabled={!complete}>
          {t('join.answer.send')}
        </button>
      </fieldset>
    </form>
  );
}

/**
 * Ranking: drag an item by its handle (mouse, touch or pen: pointer events, which work on phones
 * where HTML drag and drop does not), or move it with its ▲/▼ buttons (keyboard, screen readers).
 */
export function RankingForm({ slide, disabled, onAnswer, sent }: FormProps<'ranking'>) {
  const [order, setOrder] = useState<string[]>(sent?.rankingOrder ?? slide.options.map((option) => option.id));
  const [dragging, setDragging] = useState<string | undefined>();
  const list = useRef<HTMLOListElement>(null);
  const labelOf = (id: string) => slide.options.find((option) => option.id === id)?.label ?? id;
  const move = (id: string, to: number) => {
    const rest = order.filter((other) => other !== id);
    rest.splice(Math.max(0, Math.min(rest.length, to)), 0, id);
    setOrder(rest);
  };
  const onPointerMove = (event: PointerEvent) => {
    if (!dragging || !list.current) return;
    const items = [...list.current.querySelectorAll<HTMLElement>('li')];
    let to = items.length - 1;
    for (const [index, item] of items.entries()) {
      const box = item.getBoundingClientRect();
      if (event.clientY < box.top + box.height / 2) {
        to = index;
        break;
      }
    }
    if (order.indexOf(dragging) !== to) move(dragging, to);
  };
  return (
    <form
      class="answer-form"
      onSubmit={(event) => {
        event.preventDefault();
        onAnswer({ slideId: slide.id, rankingOrder: order });
      }}
    >
      <fieldset disabled={disabled}>
        <legend class="visually-hidden">{slide.text}</legend>
        <p class="muted">{t('join.ranking.hint')}</p>
        <ol class="ranking" ref={list} onPointerMove={onPointerMove}>
          {order.map((id, index) => (
            <li key={id} class={dragging === id ? 'dragging' : ''} data-option-id={id}>
              <span
                class="handle"
                aria-hidden="true"
                onPointerDown={(event) => {
                  if (disabled) return;
                  (event.currentTarget as HTMLElement).releasePointerCapture?.(event.pointerId);
                  setDragging(id);
                  const stop = () => {
                    setDragging(undefined);
                    removeEventListener('pointerup', stop);
                    removeEventListener('pointercancel', stop);
                  };
                  addEventListener('pointerup', stop);
                  addEventListener('pointercancel', stop);
                }}
              >
                ⠿
              </span>
              <span class="place">{formatNumber(index + 1)}</span>
              <span class="ranking-label">{labelOf(id)}</span>
              <button
                type="button"
                class="icon"
                aria-label={t('join.ranking.moveUp', { label: labelOf(id) })}
                disabled={index === 0}
                onClick={() => move(id, index - 1)}
              >
                ▲
              </button>
              <button
                type="button"
                class="icon"
                aria-label={t('join.ranking.moveDown', { label: labelOf(id) })}
                disabled={index === order.length - 1}
                onClick={() => move(id, index + 1)}
              >
                ▼
              </button>
            </li>
          ))}
        </ol>
        <button type="submit" class="primary">
          {t('join.answer.send')}
        </button>
      </fieldset>
    </form>
  );
}

export function TextForm({
  slide,
  disabled,
  onAnswer,
  label,
  submitLabel,
}: Omit<FormProps<'open_ended' | 'qa'>, 'sent'> & { label: string; submitLabel: string }) {
  const [text, setText] = useState('');
  const maxLength = slide.kind === 'open_ended' ? slide.maxLength : 5000;
  return (
    <form
      class="answer-form"
      onSubmit={(event) => {
        event.preventDefault();
        if (text.trim() !== '') onAnswer({ slideId: slide.id, text: text.trim() });
      }}
    >
      <fieldset disabled={disabled}>
        <label class="field">
          <span>{label}</span>
          <textarea
            rows={3}
            maxLength={maxLength}
            value={text}
            onInput={(event) => setText((event.currentTarget as HTMLTextAreaElement).value)}
          />
        </label>
        <p class="muted counter" aria-live="off">
          {t('join.text.counter', { length: text.length, max: maxLength })}
        </p>
        <button type="submit" class="primary" disabled={text.trim() === ''}>
          {submitLabel}
        </button>
      </fieldset>
    </form>
  );
}
