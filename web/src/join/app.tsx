import type { LiveAnswer, ParticipantSlide } from '@pollkit/sdk/live';
import { useEffect, useState } from 'preact/hooks';
import { formatList, formatNumber, formatScore, t, tx } from '../shared/i18n.js';
import { LanguagePicker } from '../shared/language-picker.js';
import { LeaderboardView, QuestionList, ResultView } from '../shared/results.js';
import { useView } from '../shared/store.js';
import { Brand, Countdown, kindLabel, MediaView } from '../shared/widgets.js';
import { ChoiceForm, RankingForm, ScaleForm, TextForm } from './answer-forms.js';
import { type Completion, isLinkCode, type JoinController, type SeenQuiz, type View } from './controller.js';

export function JoinApp({ controller }: { controller: JoinController }) {
  const view = useView(controller);
  return (
    <>
      <header class="topbar">
        <Brand name="Pollkit" />
        {view.phase === 'live' ? (
          <span class="me">
            <span class="me-name" data-testid="me-name">
              {view.name ?? t('join.me.defaultName')}
            </span>
            {scoreShown(view) ? (
              <span class="score" data-testid="score" data-score={view.score}>
                {t('join.me.score', { score: view.score })}
              </span>
            ) : null}
            <ConnectionBadge connected={view.connected || view.summary !== undefined} />
          </span>
        ) : null}
      </header>
      <main class="page narrow">
        {view.phase === 'live' ? (
          <Live view={view} controller={controller} />
        ) : (
          <JoinForm view={view} controller={controller} />
        )}
      </main>
      <LanguagePicker />
    </>
  );
}

/**
 * A self-paced participant's score stays 0 until the session shows scores (at the end, or on
 * completion): "0 pts" on the way would read as a verdict, so it is shown only once it is real.
 */
function scoreShown(view: View): boolean {
  if (view.state?.pace !== 'audience' || view.summary) return true;
  return view.completion !== undefined && view.completion.score !== null;
}

function ConnectionBadge({ connected }: { connected: boolean }) {
  // Shown only after a moment: a reconnection that takes a blink is not worth a flash.
  const [shown, setShown] = useState(false);
  useEffect(() => {
    if (connected) return setShown(false);
    const timer = setTimeout(() => setShown(true), 1500);
    return () => clearTimeout(timer);
  }, [connected]);
  if (connected || !shown) return null;
  return (
    <span class="badge badge-warn" role="status" data-testid="reconnecting">
      {t('common.reconnecting')}
    </span>
  );
}

function JoinForm({ view, controller }: { view: View; controller: JoinController }) {
  const [pin, setPin] = useState(view.pin);
  const [name, setName] = useState('');
  const joining = view.phase === 'joining';
  // A join link carries its code: nothing to type but a name.
  const byLink = isLinkCode(view.pin);
  return (
    <form
      class="card join"
      onSubmit={(event) => {
        event.preventDefault();
        void controller.join(asciiDigits(pin).replace(/\s/g, ''), name.trim() || undefined);
      }}
    >
      <h1>{t('join.form.heading')}</h1>
      {byLink ? null : (
        <label class="field">
          <span>{t('join.form.pinLabel')}</span>
          <input
            name="pin"
            inputMode="numeric"
            autoComplete="off"
            pattern={PIN_PATTERN}
            maxLength={7}
            placeholder={t('join.form.pinPlaceholder')}
            value={pin}
            required
            onInput={(event) => setPin((event.currentTarget as HTMLInputElement).value)}
          />
        </label>
      )}
      <label class="field">
        <span>
          {t('join.form.nameLabel')} <span class="muted">{t('join.form.nameHint')}</span>
        </span>
        <input
          name="name"
          maxLength={40}
          autoComplete="nickname"
          value={name}
          onInput={(event) => setName((event.currentTarget as HTMLInputElement).value)}
        />
      </label>
      {view.formError ? (
        <p class="error" role="alert">
          {view.formError}
        </p>
      ) : null}
      {view.checking ? (
        <p class="muted" role="status" data-testid="join-checking">
          {t('join.form.checking')}
        </p>
      ) : null}
      <button type="submit" class="primary" disabled={joining}>
        {t(joining ? 'join.form.joining' : 'join.form.join')}
      </button>
    </form>
  );
}

function Live({ view, controller }: { view: View; controller: JoinController }) {
  if (view.summary) return <Ended view={view} />;
  const state = view.state;
  const slide = state?.slide;
  if (view.lost) {
    return (
      <section class="card" role="alert">
        <p>{view.lost}</p>
      </section>
    );
  }
  const selfPaced = state?.pace === 'audience';
  if (selfPaced && (state.completed || view.completion)) return <Completed view={view} />;
  if (!state || !slide) {
    return (
      <section class="card waiting" data-testid="waiting">
        <h1>{t('join.waiting.heading')}</h1>
        <p>{t('join.waiting.text')}</p>
      </section>
    );
  }
  return (
    <section class="card slide" data-slide-id={slide.id} data-kind={slide.kind}>
      {selfPaced && state.progress ? <WalkProgressBar step={state.progress.step} of={state.progress.of} /> : null}
      <p class="eyebrow">{eyebrow(kindLabel(slide), selfPaced ? undefined : state)}</p>
      <h1>{slide.text}</h1>
      <MediaView media={slide.media} alt="" />
      <SlideBody view={view} slide={slide} controller={controller} />
    </section>
  );
}

function SlideBody({ view, slide, controller }: { view: View; slide: ParticipantSlide; controller: JoinController }) {
  const state = view.state!;
  const [timeUp, setTimeUp] = useState(false);
  useEffect(() => setTimeUp(false), [slide.id, state.slideStartedAt]);
  const status = view.answer;
  const answered = status.kind === 'received';
  const busy = status.kind === 'sending' || status.kind === 'queued';
  const closed = state.locked || timeUp;
  const disabled = closed || answered || busy;
  const onAnswer = (answer: LiveAnswer) => controller.submit(answer);
  const sent = view.mine[slide.id];
  const selfPaced = state.pace === 'audience';

  const countdown =
    slide.kind === 'quiz' && state.slideStartedAt && !state.resultsVisible ? (
      <Countdown
        startedAt={state.slideStartedAt}
        limitSec={slide.timeLimitSec}
        clock={controller.clock}
        onExpired={() => setTimeUp(true)}
      />
    ) : null;

  let form = null;
  switch (slide.kind) {
    case 'multiple_choice':
    case 'quiz':
      form = <ChoiceForm key={slide.id} slide={slide} disabled={disabled} onAnswer={onAnswer} sent={sent} />;
      break;
    case 'scale':
      form = <ScaleForm key={slide.id} slide={slide} disabled={disabled} onAnswer={onAnswer} sent={sent} />;
      break;
    case 'ranking':
      form = <RankingForm key={slide.id} slide={slide} disabled={disabled} onAnswer={onAnswer} sent={sent} />;
      break;
    case 'open_ended':
      form = answered ? null : (
        <TextForm
          key={slide.id}
          slide={slide}
          disabled={disabled}
          onAnswer={onAnswer}
          label={t('join.answer.label')}
          submitLabel={t('join.answer.send')}
        />
      );
      break;
    case 'qa':
      return <QaBody view={view} slide={slide} controller={controller} />;
    case 'content':
      return selfPaced ? <WalkNav view={view} controller={controller} step="next" /> : null;
  }

  return (
    <>
      {countdown}
      {state.resultsVisible && view.results ? (
        <Results view={view} />
      ) : (
        <>
          {form}
          <AnswerStatusLine view={view} closed={closed} timeUp={timeUp} />
        </>
      )}
      {selfPaced && !answered ? (
        // Time up on a quiz, there is nothing left to do here but move on.
        <WalkNav view={view} controller={controller} step={timeUp ? 'next' : 'skip'} />
      ) : null}
    </>
  );
}

/** Self-paced: "3 of 7", the participant's place on their path as far as the skip logic has decided it. */
function WalkProgressBar({ step, of }: { step: number; of: number }) {
  return (
    <div class="walk-progress" data-testid="progress" data-step={step} data-of={of}>
      <span class="walk-count">{t('join.walk.progress', { step, total: of })}</span>
      <span class="walk-track" aria-hidden="true">
        <span class="walk-fill" style={{ width: `${Math.min(100, (step / Math.max(1, of)) * 100)}%` }} />
      </span>
    </div>
  );
}

/**
 * Self-paced: the button that moves on without an answer: Next past a content slide (or a Q&A slide
 * after asking), Skip past an answerable one. Like an answer, it waits for the network when offline.
 */
function WalkNav({ view, controller, step }: { view: View; controller: JoinController; step: 'next' | 'skip' }) {
  const status = view.advance;
  const answering = view.answer.kind === 'sending' || view.answer.kind === 'queued';
  const moving = status.kind === 'sending' || status.kind === 'queued';
  return (
    <div class={`walk-nav walk-nav-${step}`}>
      <button
        type="button"
        class={step === 'next' ? 'primary' : 'secondary'}
        disabled={answering || moving}
        onClick={() => controller.advance()}
      >
        {t(step === 'next' ? 'join.walk.next' : 'join.walk.skip')}
      </button>
      <div aria-live="polite" class="status-line">
        {status.kind === 'queued' ? (
          <p class="status status-warn" data-testid="advance-queued">
            {t('join.walk.queued')}
          </p>
        ) : status.kind === 'refused' ? (
          <p class="status status-error">{status.message}</p>
        ) : null}
      </div>
    </div>
  );
}

/**
 * Self-paced: the end of the participant's walk. Score, rank and the right quiz answers when the
 * session shows them on completion; otherwise they come with the summary, when the session ends.
 */
function Completed({ view }: { view: View }) {
  const completion = view.completion;
  const sawQuiz = Object.keys(view.quizzes).length > 0;
  return (
    <section class="card completed" data-testid="completed">
      <h1>{t('join.completed.heading')}</h1>
      {completion ? (
        <dl class="tally" data-testid="tally">
          <div>
            <dt>{t('join.completed.answered')}</dt>
            <dd data-testid="answered-count">{formatNumber(completion.answerCount)}</dd>
          </div>
          <div>
            <dt>{t('join.completed.skipped')}</dt>
            <dd data-testid="skipped-count">{formatNumber(completion.skippedCount)}</dd>
          </div>
        </dl>
      ) : null}
      {completion && completion.score !== null ? (
        <>
          <FinalScore score={completion.score} rank={completion.rank} />
          <QuizOutcomes outcomes={completion.quiz ?? []} quizzes={view.quizzes} />
        </>
      ) : sawQuiz ? (
        <p class="status" data-testid="scores-later">
          {t('join.completed.scoresLater')}
        </p>
      ) : null}
      <p class="muted">{t('join.completed.keepOpen')}</p>
    </section>
  );
}

type QuizOutcome = Pick<NonNullable<Completion['quiz']>[number], 'slideId' | 'optionIds' | 'correctOptionIds'> & {
  points?: number;
};

/** Each quiz slide the participant answered: right or not, and the right answer when it was not. */
function QuizOutcomes({ outcomes, quizzes }: { outcomes: readonly QuizOutcome[]; quizzes: Record<string, SeenQuiz> }) {
  if (outcomes.length === 0) return null;
  return (
    <ul class="quiz-outcomes" data-testid="quiz-outcomes">
      {outcomes.map((outcome) => {
        const quiz = quizzes[outcome.slideId];
        const right = sameSet(outcome.optionIds, outcome.correctOptionIds);
        const label = (id: string) => quiz?.options.find((option) => option.id === id)?.label ?? id;
        return (
          <li key={outcome.slideId} class={right ? 'right' : 'wrong'} data-slide-id={outcome.slideId}>
            <span class="quiz-question">{quiz?.text ?? outcome.slideId}</span>
            <span class={`status ${right ? 'status-ok' : 'status-error'}`} data-testid="quiz-verdict">
              {outcome.points === undefined
                ? t(right ? 'join.outcome.right' : 'join.outcome.wrong')
                : t(right ? 'join.outcome.rightPoints' : 'join.outcome.wrongPoints', { points: outcome.points })}
            </span>
            {right ? null : (
              <span class="muted">
                {tx('join.outcome.answer', { answers: <bdi>{formatList(outcome.correctOptionIds.map(label))}</bdi> })}
              </span>
            )}
          </li>
        );
      })}
    </ul>
  );
}

function AnswerStatusLine({ view, closed, timeUp }: { view: View; closed: boolean; timeUp: boolean }) {
  const status = view.answer;
  let line: preact.JSX.Element | null = null;
  if (status.kind === 'received') {
    line = (
      <p class="status status-ok" data-testid="answer-received">
        {t('join.answer.received')}
      </p>
    );
  } else if (status.kind === 'sending') {
    line = <p class="status">{t('join.answer.sending')}</p>;
  } else if (status.kind === 'queued') {
    line = (
      <p class="status status-warn" data-testid="answer-queued">
        {t('join.answer.queued')}
      </p>
    );
  } else if (status.kind === 'refused') {
    line = <p class="status status-error">{status.message}</p>;
  } else if (timeUp) {
    line = (
      <p class="status status-warn" data-testid="time-up">
        {t('join.answer.timeUp')}
      </p>
    );
  } else if (closed) {
    line = (
      <p class="status status-warn" data-testid="locked">
        {t('join.answer.closed')}
      </p>
    );
  }
  return (
    <div aria-live="polite" class="status-line">
      {line}
    </div>
  );
}

function Results({ view }: { view: View }) {
  const results = view.results!;
  const mine = view.mine[results.slideId];
  const you = results.leaderboard?.you;
  const quizOutcome =
    results.results.kind === 'quiz' && mine?.optionIds ? (
      sameSet(
        mine.optionIds,
        results.results.options.filter((option) => option.correct).map((option) => option.id),
      ) ? (
        <p class="status status-ok" data-testid="quiz-outcome">
          {t('join.quiz.correct')}
        </p>
      ) : (
        <p class="status status-error" data-testid="quiz-outcome">
          {t('join.quiz.wrong')}
        </p>
      )
    ) : null;
  return (
    <div data-testid="results">
      {quizOutcome}
      <ResultView
        result={results.results}
        mine={mine?.optionIds}
        render={view.state?.slide?.kind === 'open_ended' ? view.state.slide.render : undefined}
      />
      {you ? (
        <p class="your-rank" data-testid="rank">
          {tx('join.results.rank', { rank: <strong>{t('common.rank', { rank: you.rank })}</strong>, score: you.score })}
        </p>
      ) : null}
    </div>
  );
}

function QaBody({
  view,
  slide,
  controller,
}: {
  view: View;
  slide: Extract<ParticipantSlide, { kind: 'qa' }>;
  controller: JoinController;
}) {
  const status = view.answer;
  const closed = view.state!.locked;
  const selfPaced = view.state!.pace === 'audience';
  return (
    <>
      {status.kind === 'received' ? (
        <div class="status-line" aria-live="polite">
          <p class="status status-ok" data-testid="answer-received">
            {t(slide.moderated ? 'join.qa.sentModerated' : 'join.qa.sent')}
          </p>
          <button type="button" class="secondary" onClick={() => controller.askAnother()}>
            {t('join.qa.askAnother')}
          </button>
        </div>
      ) : (
        <>
          <TextForm
            key={`${slide.id}-${view.asked}`}
            slide={slide}
            disabled={closed || status.kind === 'sending' || status.kind === 'queued'}
            onAnswer={(answer) => controller.submit(answer)}
            label={t('join.qa.label')}
            submitLabel={t('join.qa.ask')}
          />
          <AnswerStatusLine view={view} closed={closed} timeUp={false} />
        </>
      )}
      {selfPaced ? <WalkNav view={view} controller={controller} step={view.asked > 0 ? 'next' : 'skip'} /> : null}
      <h2>{t('join.qa.heading')}</h2>
      <QuestionList
        questions={view.board ?? []}
        action={
          slide.allowUpvotes
            ? (question) => {
                const done = view.upvoted.includes(question.id);
                return (
                  <button
                    type="button"
                    class="secondary upvote"
                    aria-pressed={done}
                    disabled={done}
                    onClick={() => void controller.upvote(question.id)}
                  >
                    {t(done ? 'join.qa.upvoted' : 'join.qa.upvote')}
                  </button>
                );
              }
            : undefined
        }
      />
    </>
  );
}

function Ended({ view }: { view: View }) {
  const summary = view.summary!;
  const you = summary.leaderboard?.you;
  return (
    <section class="card ended" data-testid="ended">
      <h1>{t('join.ended.heading')}</h1>
      <p class="muted">{t('common.participantsTookPart', { count: summary.participantCount })}</p>
      {you ? <FinalScore score={you.score} rank={you.rank} /> : null}
      {summary.leaderboard ? <LeaderboardView leaderboard={summary.leaderboard} /> : null}
      {view.state?.pace === 'audience' ? (
        <QuizOutcomes outcomes={endedQuizOutcomes(view)} quizzes={view.quizzes} />
      ) : null}
    </section>
  );
}

/**
 * Self-paced: which quiz answers were right, once the session ended — from the completion when it
 * said (`on_completion`), else from the summary's quiz results and this device's own answers.
 */
function endedQuizOutcomes(view: View): QuizOutcome[] {
  if (view.completion?.quiz) return view.completion.quiz;
  return (view.summary?.slides ?? []).flatMap((result) => {
    const chosen = result.kind === 'quiz' ? view.mine[result.slideId]?.optionIds : undefined;
    if (result.kind !== 'quiz' || !chosen) return [];
    const correct = result.options.filter((option) => option.correct).map((option) => option.id);
    return correct.length > 0 ? [{ slideId: result.slideId, optionIds: chosen, correctOptionIds: correct }] : [];
  });
}

/** "Your score: 1000 · rank #1", the numbers in bold. */
function FinalScore({ score, rank }: { score: number; rank: number | null }) {
  const strongScore = <strong>{formatScore(score)}</strong>;
  return (
    <p class="final-score" data-testid="final-score">
      {rank === null
        ? tx('join.score.final', { score: strongScore })
        : tx('join.score.finalRanked', { score: strongScore, rank: <strong>{t('common.rank', { rank })}</strong> })}
    </p>
  );
}

/** The slide's kind and, live, its place in the deck: "Quiz · 3 / 7". */
function eyebrow(kind: string, place: { slideIndex: number; slideCount: number } | undefined): string {
  if (!place) return kind;
  const position = { number: place.slideIndex + 1, count: place.slideCount };
  return kind ? t('join.slide.eyebrow', { kind, ...position }) : t('join.slide.position', position);
}

/** A PIN's digits as typed on any keyboard (Arabic-Indic, Persian, full-width), as the ASCII ones the API takes. */
const PIN_PATTERN = '[0-9\u0660-\u0669\u06F0-\u06F9\uFF10-\uFF19 \u3000]*';
function asciiDigits(text: string): string {
  return text.replace(/[\u0660-\u0669\u06F0-\u06F9\uFF10-\uFF19]/g, (digit) => String(digit.charCodeAt(0) & 0xf));
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((id) => b.includes(id));
}
