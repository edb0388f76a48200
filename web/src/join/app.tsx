import type { LiveAnswer, ParticipantSlide } from '@pollkit/sdk/live';
import { useEffect, useState } from 'preact/hooks';
import { LeaderboardView, plural, QuestionList, ResultView } from '../shared/results.js';
import { useView } from '../shared/store.js';
import { Countdown, kindLabel, MediaView } from '../shared/widgets.js';
import { ChoiceForm, RankingForm, ScaleForm, TextForm } from './answer-forms.js';
import { type Completion, isLinkCode, type JoinController, type SeenQuiz, type View } from './controller.js';

export function JoinApp({ controller }: { controller: JoinController }) {
  const view = useView(controller);
  return (
    <>
      <header class="topbar">
        <span class="brand">Pollkit</span>
        {view.phase === 'live' ? (
          <span class="me">
            <span data-testid="me-name">{view.name ?? 'You'}</span>
            {scoreShown(view) ? (
              <span class="score" data-testid="score" data-score={view.score}>
                {view.score} pts
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
      Reconnecting…
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
        void controller.join(pin.replace(/\s/g, ''), name.trim() || undefined);
      }}
    >
      <h1>Join a session</h1>
      {byLink ? null : (
        <label class="field">
          <span>PIN</span>
          <input
            name="pin"
            inputMode="numeric"
            autoComplete="off"
            pattern="[0-9 ]*"
            maxLength={7}
            placeholder="123456"
            value={pin}
            required
            onInput={(event) => setPin((event.currentTarget as HTMLInputElement).value)}
          />
        </label>
      )}
      <label class="field">
        <span>
          Your name <span class="muted">(optional, shown on the leaderboard)</span>
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
      <button type="submit" class="primary" disabled={joining}>
        {joining ? 'Joining…' : 'Join'}
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
        <h1>You’re in!</h1>
        <p>Waiting for the presenter to start. Keep this page open.</p>
      </section>
    );
  }
  return (
    <section class="card slide" data-slide-id={slide.id} data-kind={slide.kind}>
      {selfPaced && state.progress ? <WalkProgressBar step={state.progress.step} of={state.progress.of} /> : null}
      <p class="eyebrow">
        {[kindLabel(slide), selfPaced ? '' : `${state.slideIndex + 1} / ${state.slideCount}`]
          .filter(Boolean)
          .join(' · ')}
      </p>
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
          label="Your answer"
          submitLabel="Send"
        />
      );
      break;
    case 'qa':
      return <QaBody view={view} slide={slide} controller={controller} />;
    case 'content':
      return selfPaced ? <WalkNav view={view} controller={controller} label="Next" /> : null;
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
        <WalkNav view={view} controller={controller} label={timeUp ? 'Next' : 'Skip'} />
      ) : null}
    </>
  );
}

/** Self-paced: "3 of 7", the participant's place on their path as far as the skip logic has decided it. */
function WalkProgressBar({ step, of }: { step: number; of: number }) {
  return (
    <div class="walk-progress" data-testid="progress" data-step={step} data-of={of}>
      <span class="walk-count">
        {step} of {of}
      </span>
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
function WalkNav({ view, controller, label }: { view: View; controller: JoinController; label: 'Next' | 'Skip' }) {
  const status = view.advance;
  const answering = view.answer.kind === 'sending' || view.answer.kind === 'queued';
  const moving = status.kind === 'sending' || status.kind === 'queued';
  return (
    <div class={`walk-nav walk-nav-${label.toLowerCase()}`}>
      <button
        type="button"
        class={label === 'Next' ? 'primary' : 'secondary'}
        disabled={answering || moving}
        onClick={() => controller.advance()}
      >
        {label}
      </button>
      <div aria-live="polite" class="status-line">
        {status.kind === 'queued' ? (
          <p class="status status-warn" data-testid="advance-queued">
            Not sent yet: the connection is down. You will move on as soon as it is back.
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
      <h1>You’re done. Thank you!</h1>
      {completion ? (
        <dl class="tally" data-testid="tally">
          <div>
            <dt>Answered</dt>
            <dd data-testid="answered-count">{completion.answerCount}</dd>
          </div>
          <div>
            <dt>Skipped</dt>
            <dd data-testid="skipped-count">{completion.skippedCount}</dd>
          </div>
        </dl>
      ) : null}
      {completion && completion.score !== null ? (
        <>
          <p class="final-score" data-testid="final-score">
            Your score: <strong>{completion.score}</strong>
            {completion.rank !== null ? (
              <>
                {' '}
                · rank <strong>#{completion.rank}</strong>
              </>
            ) : null}
          </p>
          <QuizOutcomes outcomes={completion.quiz ?? []} quizzes={view.quizzes} />
        </>
      ) : sawQuiz ? (
        <p class="status" data-testid="scores-later">
          Scores appear when the session ends.
        </p>
      ) : null}
      <p class="muted">Keep this page open: the results appear here when the session ends.</p>
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
              {right ? '✓ Right' : '✗ Not this time'}
              {outcome.points !== undefined ? ` · ${plural(outcome.points, 'point')}` : ''}
            </span>
            {right ? null : <span class="muted">The answer: {outcome.correctOptionIds.map(label).join(', ')}</span>}
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
        ✓ Answer received
      </p>
    );
  } else if (status.kind === 'sending') {
    line = <p class="status">Sending…</p>;
  } else if (status.kind === 'queued') {
    line = (
      <p class="status status-warn" data-testid="answer-queued">
        Not sent yet: the connection is down. Your answer will be sent as soon as it is back.
      </p>
    );
  } else if (status.kind === 'refused') {
    line = <p class="status status-error">{status.message}</p>;
  } else if (timeUp) {
    line = (
      <p class="status status-warn" data-testid="time-up">
        Time’s up!
      </p>
    );
  } else if (closed) {
    line = (
      <p class="status status-warn" data-testid="locked">
        Answers are closed for this slide.
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
          Correct!
        </p>
      ) : (
        <p class="status status-error" data-testid="quiz-outcome">
          Not this time.
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
          You are <strong>#{you.rank}</strong> with {you.score} points
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
            ✓ Question sent{slide.moderated ? ': the presenter will review it' : ''}.
          </p>
          <button type="button" class="secondary" onClick={() => controller.askAnother()}>
            Ask another question
          </button>
        </div>
      ) : (
        <>
          <TextForm
            key={`${slide.id}-${view.asked}`}
            slide={slide}
            disabled={closed || status.kind === 'sending' || status.kind === 'queued'}
            onAnswer={(answer) => controller.submit(answer)}
            label="Your question"
            submitLabel="Ask"
          />
          <AnswerStatusLine view={view} closed={closed} timeUp={false} />
        </>
      )}
      {selfPaced ? <WalkNav view={view} controller={controller} label={view.asked > 0 ? 'Next' : 'Skip'} /> : null}
      <h2>Questions</h2>
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
                    {done ? 'Upvoted' : 'Upvote'}
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
      <h1>That’s the end. Thank you!</h1>
      <p class="muted">{plural(summary.participantCount, 'participant')} took part.</p>
      {you ? (
        <p class="final-score" data-testid="final-score">
          Your score: <strong>{you.score}</strong> · rank <strong>#{you.rank}</strong>
        </p>
      ) : null}
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

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((id) => b.includes(id));
}
