import type { Leaderboard, SlideResult } from '@pollkit/sdk/live';
import type { ComponentChildren } from 'preact';
import { formatNumber, formatScore, t, tx } from './i18n.js';

/**
 * A slide's results as both pages draw them: bars for choices, averages and distributions for
 * scales, the order of a ranking, a word cloud or the newest answers for open questions, the
 * questions of a Q&A board. Plain HTML and CSS widths: no chart library, and screen readers read
 * the numbers as text.
 */
export function ResultView({
  result,
  mine,
  render,
}: {
  result: SlideResult;
  mine?: readonly string[] | undefined;
  /** An open-ended slide's `render`: `cloud` draws its words, `list` its newest answers; unknown: both. */
  render?: 'cloud' | 'list' | undefined;
}) {
  switch (result.kind) {
    case 'multiple_choice':
    case 'quiz':
      return (
        <ChoiceBars
          options={result.options.map((option) => ({
            ...option,
            correct: 'correct' in option ? option.correct : undefined,
            mine: mine?.includes(option.id) ?? false,
          }))}
          total={result.totalAnswers}
        />
      );
    case 'scale':
      return <ScaleView result={result} />;
    case 'ranking':
      return <RankingView result={result} />;
    case 'open_ended':
      return <OpenEndedView result={result} render={render} />;
    case 'qa':
      return <QuestionList questions={result.questions} />;
    case 'content':
      return null;
  }
}

interface ChoiceBar {
  id: string;
  label: string;
  count: number;
  percentage: number;
  correct?: boolean | undefined;
  mine?: boolean;
}

function ChoiceBars({ options, total }: { options: readonly ChoiceBar[]; total: number }) {
  return (
    <div class="results">
      <ul class="bars">
        {options.map((option) => (
          <li
            key={option.id}
            class={`bar${option.correct ? ' bar-correct' : ''}${option.mine ? ' bar-mine' : ''}`}
            data-option-id={option.id}
          >
            <span class="bar-label">
              <span class="bar-text">{option.label}</span>
              {option.correct ? <span class="tag tag-correct">{t('results.tag.correct')}</span> : null}
              {option.mine ? <span class="tag">{t('results.tag.yours')}</span> : null}
            </span>
            <span class="bar-track" aria-hidden="true">
              <span class="bar-fill" style={{ width: `${option.percentage}%` }} />
            </span>
            <span class="bar-count" data-count={option.count}>
              {formatNumber(option.count)}{' '}
              <span class="muted">{t('results.share', { share: Math.round(option.percentage) / 100 })}</span>
            </span>
          </li>
        ))}
      </ul>
      <p class="muted total" data-total={total}>
        {t('results.answers', { count: total })}
      </p>
    </div>
  );
}

type ScaleResult = Extract<SlideResult, { kind: 'scale' }>;

function Distribution({ distribution }: { distribution: ScaleResult['distribution'] }) {
  const most = Math.max(1, ...distribution.map((entry) => entry.count));
  return (
    <ol class="distribution" aria-label={t('results.distribution.label')}>
      {distribution.map((entry) => (
        <li key={entry.value} title={t('results.distribution.title', { value: entry.value, count: entry.count })}>
          <span class="track">
            <span class="column" style={{ height: `${(entry.count / most) * 100}%` }} />
          </span>
          <span class="value">{formatNumber(entry.value)}</span>
          <span class="count">{formatNumber(entry.count)}</span>
        </li>
      ))}
    </ol>
  );
}

function average(value: number | null): string {
  return value === null
    ? t('results.none')
    : formatNumber(value, { minimumFractionDigits: 1, maximumFractionDigits: 1 });
}

function ScaleView({ result }: { result: ScaleResult }) {
  if (result.statements.length === 0) {
    return (
      <div class="results">
        <p class="average">
          {tx('results.average', {
            value: <strong data-average={result.average ?? ''}>{average(result.average)}</strong>,
          })}
        </p>
        <Distribution distribution={result.distribution} />
        <p class="muted total" data-total={result.totalAnswers}>
          {t('results.answers', { count: result.totalAnswers })}
        </p>
      </div>
    );
  }
  return (
    <div class="results">
      <ul class="statements">
        {result.statements.map((statement) => (
          <li key={statement.id} data-statement-id={statement.id}>
            <span class="statement-text">{statement.text}</span>
            <strong class="statement-average" data-average={statement.average ?? ''}>
              {average(statement.average)}
            </strong>
            <Distribution distribution={statement.distribution} />
          </li>
        ))}
      </ul>
      <p class="muted total" data-total={result.totalAnswers}>
        {t('results.answers', { count: result.totalAnswers })}
      </p>
    </div>
  );
}

function RankingView({ result }: { result: Extract<SlideResult, { kind: 'ranking' }> }) {
  const ranked = [...result.options].sort((a, b) => b.score - a.score);
  const top = Math.max(1, ...ranked.map((option) => option.score));
  return (
    <div class="results">
      <ol class="ranking-result">
        {ranked.map((option) => (
          <li key={option.id} data-option-id={option.id}>
            <span class="bar-label">{option.label}</span>
            <span class="bar-track" aria-hidden="true">
              <span class="bar-fill" style={{ width: `${(option.score / top) * 100}%` }} />
            </span>
            <span class="bar-count">
              {option.averageRank === null
                ? t('results.none')
                : t('results.ranking.averagePlace', { place: option.averageRank })}
            </span>
          </li>
        ))}
      </ol>
      <p class="muted total" data-total={result.totalAnswers}>
        {t('results.answers', { count: result.totalAnswers })}
      </p>
    </div>
  );
}

function OpenEndedView({
  result,
  render,
}: {
  result: Extract<SlideResult, { kind: 'open_ended' }>;
  render: 'cloud' | 'list' | undefined;
}) {
  const most = Math.max(1, ...result.words.map((word) => word.count));
  return (
    <div class="results" data-render={render ?? 'both'}>
      {render !== 'list' && result.words.length > 0 ? (
        <ul class="cloud" aria-label={t('results.cloud.label')}>
          {result.words.map((word) => (
            <li key={word.word} style={{ fontSize: `${1 + (word.count / most) * 1.8}em` }} data-count={word.count}>
              {word.word}
            </li>
          ))}
        </ul>
      ) : null}
      {render !== 'cloud' ? (
        <ul class="recent">
          {result.recent.slice(0, 8).map((answer) => (
            <li key={`${answer.createdAt}${answer.text}`}>{answer.text}</li>
          ))}
        </ul>
      ) : null}
      <p class="muted total" data-total={result.totalAnswers}>
        {t('results.answers', { count: result.totalAnswers })}
      </p>
    </div>
  );
}

export interface BoardQuestion {
  id: string;
  text: string;
  upvotes: number;
}

/** The approved questions, most upvoted first; `action` adds a control to each (an upvote button). */
export function QuestionList({
  questions,
  action,
  empty = t('results.questions.empty'),
}: {
  questions: readonly BoardQuestion[];
  action?: (question: BoardQuestion) => ComponentChildren;
  empty?: string;
}) {
  if (questions.length === 0) return <p class="muted">{empty}</p>;
  return (
    <ul class="questions">
      {questions.map((question) => (
        <li key={question.id} data-question-id={question.id}>
          <span class="question-text">{question.text}</span>
          <span class="upvotes">
            <span aria-hidden="true">▲ {formatNumber(question.upvotes)}</span>
            <span class="visually-hidden">{t('results.questions.upvotes', { count: question.upvotes })}</span>
          </span>
          {action?.(question)}
        </li>
      ))}
    </ul>
  );
}

export function LeaderboardView({ leaderboard }: { leaderboard: Leaderboard }) {
  return (
    <ol class="leaderboard">
      {leaderboard.top.map((entry) => (
        <li key={entry.participantId} class={entry.participantId === leaderboard.you?.participantId ? 'you' : ''}>
          <span class="rank">{formatNumber(entry.rank)}</span>
          <span class="name">{entry.name ?? t('results.leaderboard.anonymous')}</span>
          <span class="score">{formatScore(entry.score)}</span>
        </li>
      ))}
    </ol>
  );
}
