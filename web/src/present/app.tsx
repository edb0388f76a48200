import type { DeckSlide, Leaderboard, Session, SessionAction } from '@pollkit/sdk/live';
import { useEffect, useState } from 'preact/hooks';
import { direction, formatNumber, t, tx } from '../shared/i18n.js';
import { LeaderboardView, QuestionList, ResultView } from '../shared/results.js';
import { useView } from '../shared/store.js';
import { Brand, Countdown, kindLabel, MediaView } from '../shared/widgets.js';
import type { PresenterController, PresenterView } from './controller.js';

/**
 * The arrow keys in the reading direction, as slide tools have them: forward is → left to right and
 * ← right to left (Arabic, Hebrew), where the next slide lies; the glyphs on the buttons follow.
 */
const rtl = () => direction === 'rtl';
const forwardKey = () => (rtl() ? 'ArrowLeft' : 'ArrowRight');
const backKey = () => (rtl() ? 'ArrowRight' : 'ArrowLeft');
const forwardGlyph = () => (rtl() ? '←' : '→');
const backGlyph = () => (rtl() ? '→' : '←');

/**
 * The keys a presenter (or a presentation clicker, which sends PageUp/PageDown) drives the session
 * with: forward (→, ← right to left), PageDown or Space; back, PageUp; `r`, `l` (also by their place
 * on a keyboard that types no Latin letters).
 */
function useShortcuts(controller: PresenterController, session: Session | undefined) {
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (!session || event.altKey || event.ctrlKey || event.metaKey) return;
      const target = event.target as HTMLElement | null;
      if (target?.closest('input, textarea, select, [contenteditable]')) return;
      // Space on a button or a link presses it, as everywhere.
      if (event.key === ' ' && target?.closest('button, a, summary')) return;
      const action = shortcutAction(shortcutKey(event), session, controller.currentSlide()?.kind === 'content');
      if (!action) return;
      event.preventDefault();
      void controller.control(action);
    };
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, [controller, session]);
}

/** What a key means: `forward`, `back`, or the letter (`r`, `l`) of a Latin layout at that place. */
function shortcutKey(event: KeyboardEvent): string {
  const key = event.key;
  if (key === forwardKey() || key === 'PageDown' || key === ' ') return 'forward';
  if (key === backKey() || key === 'PageUp') return 'back';
  // Arabic, Hebrew, Cyrillic… layouts: the key where R is on a Latin keyboard.
  if (key.length === 1 && !/[a-z]/i.test(key) && /^Key[A-Z]$/.test(event.code)) return event.code.slice(3);
  return key;
}

/** `onContent`: the slide on screen is a content slide, which takes no answers to show or lock. */
function shortcutAction(key: string, session: Session, onContent: boolean): SessionAction | undefined {
  if (session.status === 'ended') return undefined;
  // A self-paced session has no slide to move: its one key starts it.
  if (session.pace === 'audience') {
    return key === 'forward' && session.status === 'pending' ? 'start' : undefined;
  }
  switch (key) {
    case 'forward':
      return session.status === 'pending' ? 'start' : 'next';
    case 'back':
      return session.status === 'active' ? 'prev' : undefined;
    case 'r':
    case 'R':
      if (session.status !== 'active' || onContent) return undefined;
      return session.resultsVisible ? 'hideResults' : 'showResults';
    case 'l':
    case 'L':
      if (session.status !== 'active' || onContent) return undefined;
      return session.locked ? 'unlock' : 'lock';
    default:
      return undefined;
  }
}

export function PresentApp({ controller }: { controller: PresenterController }) {
  const view = useView(controller);
  useShortcuts(controller, view.session);
  if (view.phase === 'failed') {
    return (
      <main class="page narrow">
        <section class="card" role="alert">
          <h1>{t('present.error.heading')}</h1>
          <p>{view.error}</p>
        </section>
      </main>
    );
  }
  const { session, deck } = view;
  if (view.phase === 'loading' || !session || !deck) {
    return (
      <main class="page narrow">
        <p class="muted">{t('present.loading')}</p>
      </main>
    );
  }
  if (session.pace === 'audience') return <SelfPaced view={view} controller={controller} />;
  const joinHost = new URL(session.joinUrl).host;
  // Joins move the throttled counts; the session event carries the count of its own moment.
  const participantCount = Math.max(view.counts?.participantCount ?? 0, session.participantCount);
  // Once ended, the PIN is released (another session may get it): no PIN, no QR code on screen.
  const ended = view.summary !== undefined || session.status === 'ended';
  return (
    <div class="presenter">
      <header class="topbar">
        <Brand title={deck.title} />
        {ended ? null : (
          <span class="join-hint">
            {tx('present.joinHint', {
              address: <strong class="address">{joinHost}/join</strong>,
              pin: (
                <strong class="pin" data-testid="pin">
                  {formatPin(session.pin)}
                </strong>
              ),
            })}
          </span>
        )}
        <span class="participants" data-testid="participant-count" data-count={participantCount}>
          {t('present.participants', { count: participantCount })}
        </span>
        {!view.connected && session.status !== 'ended' ? (
          <span class="badge badge-warn" role="status">
            {t('common.reconnecting')}
          </span>
        ) : null}
      </header>
      <main class="stage">
        <section class="screen" aria-live="polite">
          <Screen view={view} controller={controller} />
        </section>
        {ended ? null : (
          <aside class={`qr${session.status === 'pending' ? ' qr-large' : ''}`}>
            {view.qrCode ? (
              <img src={view.qrCode} alt={t('present.qr.alt', { url: session.joinUrl })} data-testid="qr" />
            ) : null}
            <p class="pin-large">{formatPin(session.pin)}</p>
          </aside>
        )}
      </main>
      <Controls view={view} controller={controller} />
    </div>
  );
}

function Screen({ view, controller }: { view: PresenterView; controller: PresenterController }) {
  const session = view.session!;
  if (view.summary || session.status === 'ended') {
    return (
      <div data-testid="ended">
        <h1>{t('present.ended.heading')}</h1>
        <p class="lead">
          {t('common.participantsTookPart', { count: view.summary?.participantCount ?? session.participantCount })}
        </p>
        {view.summary?.leaderboard ? (
          <ScreenLeaderboard leaderboard={view.summary.leaderboard} participantCount={view.summary.participantCount} />
        ) : null}
      </div>
    );
  }
  if (session.status === 'pending') {
    return (
      <div data-testid="waiting">
        <h1>{view.deck!.title}</h1>
        <p class="lead">
          {tx('present.waiting.join', {
            address: <bdi class="address">{session.joinUrl.replace(/^https?:\/\//, '')}</bdi>,
          })}
        </p>
        <p class="muted">{t('present.waiting.start', { key: forwardGlyph() })}</p>
      </div>
    );
  }
  const slide = controller.currentSlide();
  if (!slide) return null;
  return (
    <div class="slide" data-slide-id={slide.id} data-kind={slide.kind}>
      <p class="eyebrow">
        {slidePlace(kindLabel(slide), session.currentSlideIndex + 1, session.slideCount)}
        {session.locked ? <span class="badge">{t('present.slide.locked')}</span> : null}
        {session.resultsVisible ? <span class="badge">{t('present.slide.resultsShown')}</span> : null}
      </p>
      <h1 class="slide-text">{slide.text}</h1>
      <MediaView media={slide.media} alt="" />
      {slide.kind === 'quiz' && session.slideStartedAt && !session.resultsVisible ? (
        <Countdown startedAt={session.slideStartedAt} limitSec={slide.timeLimitSec} clock={controller.clock} />
      ) : null}
      <LiveResults view={view} slide={slide} controller={controller} />
    </div>
  );
}

/** The leaderboard on the big screen: headed, and saying when it shows only the top of a larger room. */
function ScreenLeaderboard({ leaderboard, participantCount }: { leaderboard: Leaderboard; participantCount: number }) {
  return (
    <section class="screen-leaderboard" aria-labelledby="leaderboard-heading">
      <h2 id="leaderboard-heading">
        {t('present.leaderboard.heading')}
        {participantCount > leaderboard.top.length ? (
          <span class="muted" data-testid="leaderboard-of">
            {' '}
            {t('present.leaderboard.topOf', { shown: leaderboard.top.length, count: participantCount })}
          </span>
        ) : null}
      </h2>
      <LeaderboardView leaderboard={leaderboard} />
    </section>
  );
}

/**
 * In place of counts and results when the host token's creator could not read answers
 * (`responses:read`): the stream carries none, and empty counts would read as a broken screen.
 */
function AnswersHidden() {
  return (
    <p class="status status-warn" data-testid="answers-hidden">
      {tx('present.answersHidden', { scope: <code>responses:read</code> })}
    </p>
  );
}

/** What the room sees as answers come in: live for every kind but quiz, whose answers wait for "show results". */
function LiveResults({
  view,
  slide,
  controller,
}: {
  view: PresenterView;
  slide: DeckSlide;
  controller: PresenterController;
}) {
  if (slide.kind === 'content') return null;
  if (view.deck?.answersVisible === false) return <AnswersHidden />;
  const counts = view.counts?.slideId === slide.id ? view.counts : undefined;
  const answerCount = counts?.answerCount ?? 0;
  const answers = (
    <p class="answer-count" data-testid="answer-count" data-count={answerCount}>
      {t(slide.kind === 'qa' ? 'present.qa.questions' : 'results.answers', { count: answerCount })}
    </p>
  );
  if (slide.kind === 'quiz') {
    const shown = view.results?.slideId === slide.id ? view.results.results : undefined;
    if (!shown) {
      // Before "show results" the room sees the choices and how many answered, never how they split.
      return (
        <>
          <p class="answer-count" data-testid="answer-count" data-count={answerCount}>
            {t('present.quiz.answersHidden', { count: answerCount })}
          </p>
          <ol class="quiz-options" data-testid="quiz-options">
            {slide.options.map((option) => (
              <li key={option.id} data-option-id={option.id}>
                {option.label}
              </li>
            ))}
          </ol>
        </>
      );
    }
    return (
      <>
        {answers}
        <ResultView result={shown} />
        {view.results?.leaderboard ? (
          <ScreenLeaderboard
            leaderboard={view.results.leaderboard}
            participantCount={Math.max(view.counts?.participantCount ?? 0, view.session?.participantCount ?? 0)}
          />
        ) : null}
      </>
    );
  }
  if (slide.kind === 'qa') {
    const board = counts?.results?.kind === 'qa' ? counts.results.questions : [];
    return (
      <>
        {slide.moderated ? (
          <p class="answer-count" data-testid="answer-count" data-count={answerCount}>
            {t('present.qa.askedApproved', { asked: answerCount, approved: board.length })}
          </p>
        ) : (
          answers
        )}
        <QuestionList questions={board} empty={slide.moderated ? t('present.qa.noApproved') : undefined} />
        {slide.moderated || counts?.pendingQuestions != null ? (
          <ModerationQueue view={view} controller={controller} />
        ) : null}
      </>
    );
  }
  return (
    <>
      {answers}
      {counts?.results ? <ResultView result={counts.results} render={renderOf(slide)} /> : null}
      {/* An open-ended slide under `textFilter: review`: the answers held until approved. */}
      {slide.kind === 'open_ended' && counts?.pendingQuestions != null ? (
        <ModerationQueue view={view} controller={controller} />
      ) : null}
    </>
  );
}

/**
 * The questions (moderated Q&A) or answers (text filter in `review`) waiting for the presenter's
 * decision. Closed by default: this screen is the room's, and a text is not for the room until approved.
 */
function ModerationQueue({ view, controller }: { view: PresenterView; controller: PresenterController }) {
  return (
    <details class="moderation" data-testid="moderation">
      <summary>
        {t('present.moderation.waiting', { count: view.pending.length })}{' '}
        <span class="muted">{t('present.moderation.hint')}</span>
      </summary>
      <ul class="questions">
        {view.pending.map((item) => (
          <li key={item.id} data-question-id={item.id}>
            <span class="question-text">{item.text}</span>
            <button type="button" class="secondary" onClick={() => void controller.moderate(item.id, 'approved')}>
              {t('present.moderation.approve')}
            </button>
            <button type="button" class="secondary" onClick={() => void controller.moderate(item.id, 'dismissed')}>
              {t('present.moderation.dismiss')}
            </button>
          </li>
        ))}
      </ul>
    </details>
  );
}

/** How an open-ended slide's answers are drawn: a word cloud, or the answers themselves. */
function renderOf(slide: DeckSlide | undefined): 'cloud' | 'list' | undefined {
  return slide?.kind === 'open_ended' ? slide.render : undefined;
}

function Controls({ view, controller }: { view: PresenterView; controller: PresenterController }) {
  const session = view.session!;
  const active = session.status === 'active';
  const act = (action: SessionAction, slideIndex?: number) => () => void controller.control(action, slideIndex);
  const disabled = view.busy;
  const [confirmingEnd, setConfirmingEnd] = useState(false);
  if (view.summary !== undefined || session.status === 'ended') {
    // Nothing left to move, show or lock: no controls that would look as if they did something.
    return (
      <footer class="controls">
        <p class="muted" role="status" data-testid="ended-controls">
          {t('present.controls.ended')}
        </p>
      </footer>
    );
  }
  // A content slide takes no answers: nothing to show or lock.
  const answerable = controller.currentSlide()?.kind !== 'content';
  return (
    <footer class="controls">
      {view.actionError ? (
        <p class="error" role="alert">
          {view.actionError}
        </p>
      ) : null}
      <div class="buttons" role="toolbar" aria-label={t('present.controls.label')}>
        {session.status === 'pending' ? (
          <button type="button" class="primary" onClick={act('start')} disabled={disabled}>
            {t('present.controls.start')} <kbd>{forwardGlyph()}</kbd>
          </button>
        ) : null}
        <button type="button" onClick={act('prev')} disabled={disabled || !active || session.currentSlideIndex === 0}>
          <kbd>{backGlyph()}</kbd> {t('present.controls.previous')}
        </button>
        <button
          type="button"
          onClick={act('next')}
          disabled={disabled || !active || session.currentSlideIndex >= session.slideCount - 1}
        >
          {t('present.controls.next')} <kbd>{forwardGlyph()}</kbd>
        </button>
        <label class="goto">
          <span>{t('present.controls.goto')}</span>
          <select
            disabled={disabled || !active}
            value={String(session.currentSlideIndex)}
            onChange={(event) => {
              const index = Number((event.currentTarget as HTMLSelectElement).value);
              if (index !== session.currentSlideIndex) void controller.control('goto', index);
            }}
          >
            {view.deck!.slides.map((slide, index) => (
              <option key={slide.id} value={String(index)}>
                {t('present.controls.gotoOption', { number: index + 1, title: isolate(slide.text.slice(0, 40)) })}
              </option>
            ))}
          </select>
        </label>
        {answerable ? (
          <>
            <button
              type="button"
              onClick={act(session.resultsVisible ? 'hideResults' : 'showResults')}
              disabled={disabled || !active}
              aria-pressed={session.resultsVisible}
            >
              {t(session.resultsVisible ? 'present.controls.hideResults' : 'present.controls.showResults')} <kbd>r</kbd>
            </button>
            <button
              type="button"
              onClick={act(session.locked ? 'unlock' : 'lock')}
              disabled={disabled || !active}
              aria-pressed={session.locked}
            >
              {t(session.locked ? 'present.controls.unlock' : 'present.controls.lock')} <kbd>l</kbd>
            </button>
          </>
        ) : null}
        <EndButton
          busy={disabled}
          confirming={confirmingEnd}
          setConfirming={setConfirmingEnd}
          controller={controller}
        />
      </div>
    </footer>
  );
}

/**
 * End, asked twice: ending is final (the PIN is released, the room sees the summary), and the button
 * sits beside Next on a laptop someone is presenting from.
 */
function EndButton({
  busy,
  confirming,
  setConfirming,
  controller,
}: {
  busy: boolean;
  confirming: boolean;
  setConfirming: (confirming: boolean) => void;
  controller: PresenterController;
}) {
  if (!confirming) {
    return (
      <button type="button" class="danger" onClick={() => setConfirming(true)} disabled={busy}>
        {t('present.controls.end')}
      </button>
    );
  }
  return (
    <span class="confirm-end">
      <span role="status">{t('present.controls.endConfirm')}</span>
      <button
        type="button"
        class="danger"
        disabled={busy}
        onClick={() => {
          setConfirming(false);
          void controller.control('end');
        }}
      >
        {t('present.controls.endNow')}
      </button>
      <button type="button" onClick={() => setConfirming(false)}>
        {t('present.controls.keepGoing')}
      </button>
    </span>
  );
}

/**
 * A self-paced session on the presenter's screen: no current slide, but where everybody is — how
 * many stand on each slide of the deck, how many finished — and every slide's results as they come
 * in. The join link and its QR code stay in view the whole time (people join whenever they like),
 * the PIN beside them when the session has one. The controls are Start and End.
 */
function SelfPaced({ view, controller }: { view: PresenterView; controller: PresenterController }) {
  const session = view.session!;
  const deck = view.deck!;
  const progress = view.progress;
  // Joins move the throttled figures; the session event carries the counts of its own moment.
  const participantCount = Math.max(progress?.participantCount ?? 0, session.participantCount);
  const completedCount = Math.max(progress?.completedCount ?? 0, session.completedCount);
  const link = session.joinUrl.replace(/^https?:\/\//, '');
  const ended = view.summary !== undefined || session.status === 'ended';
  const [confirmingEnd, setConfirmingEnd] = useState(false);
  return (
    <div class="presenter self-paced">
      <header class="topbar">
        <span class="brand-group">
          <Brand title={deck.title} /> <span class="badge">{t('present.selfPaced.badge')}</span>
        </span>
        <span class="participants" data-testid="participant-count" data-count={participantCount}>
          {t('present.participants', { count: participantCount })}
        </span>
        <span class="participants" data-testid="completed-count" data-count={completedCount}>
          {t('present.selfPaced.completed', { count: completedCount })}
        </span>
        {!view.connected && session.status !== 'ended' ? (
          <span class="badge badge-warn" role="status">
            {t('common.reconnecting')}
          </span>
        ) : null}
      </header>
      <main class={`stage${session.status === 'pending' ? ' stage-pending' : ''}`}>
        <section class="screen" aria-live="polite">
          {ended ? (
            <div data-testid="ended">
              <h1>{t('present.ended.heading')}</h1>
              <p class="lead">
                {t('present.selfPaced.tookPart', {
                  count: view.summary?.participantCount ?? session.participantCount,
                  completed: completedCount,
                })}
              </p>
              {view.summary?.leaderboard ? (
                <ScreenLeaderboard
                  leaderboard={view.summary.leaderboard}
                  participantCount={view.summary.participantCount}
                />
              ) : null}
              {view.summary ? <SummaryResults view={view} /> : null}
            </div>
          ) : session.status === 'pending' ? (
            <div data-testid="waiting">
              <h1>{deck.title}</h1>
              <p class="lead">{t('present.selfPaced.intro', { count: session.slideCount })}</p>
              <p class="muted">{t('present.selfPaced.start', { key: forwardGlyph() })}</p>
            </div>
          ) : deck.answersVisible === false ? (
            <AnswersHidden />
          ) : (
            <SelfPacedProgress view={view} participantCount={participantCount} completedCount={completedCount} />
          )}
        </section>
        {ended ? null : (
          <aside class="qr qr-large join-link">
            {view.qrCode ? (
              <img src={view.qrCode} alt={t('present.qr.alt', { url: session.joinUrl })} data-testid="qr" />
            ) : null}
            <p class="link-large address" data-testid="join-link">
              {link}
            </p>
            {session.pin ? (
              <p class="muted">
                {tx('present.selfPaced.orPin', {
                  pin: (
                    <strong class="pin" data-testid="pin">
                      {formatPin(session.pin)}
                    </strong>
                  ),
                  address: <bdi class="address">{new URL(session.joinUrl).host}/join</bdi>,
                })}
              </p>
            ) : null}
          </aside>
        )}
      </main>
      <footer class="controls">
        {view.actionError ? (
          <p class="error" role="alert">
            {view.actionError}
          </p>
        ) : null}
        <div class="buttons" role="toolbar" aria-label={t('present.controls.label')}>
          {session.status === 'pending' ? (
            <button type="button" class="primary" onClick={() => void controller.control('start')} disabled={view.busy}>
              {t('present.controls.start')} <kbd>{forwardGlyph()}</kbd>
            </button>
          ) : null}
          {session.status === 'ended' ? null : (
            <EndButton
              busy={view.busy}
              confirming={confirmingEnd}
              setConfirming={setConfirmingEnd}
              controller={controller}
            />
          )}
        </div>
      </footer>
    </div>
  );
}

/** Every answerable slide's final results (quiz answers revealed now), as the summary gives them. */
function SummaryResults({ view }: { view: PresenterView }) {
  const slides = new Map(view.deck?.slides.map((slide, index) => [slide.id, { slide, index }]));
  const results = view.summary!.slides.filter((result) => result.kind !== 'content');
  if (results.length === 0) return null;
  return (
    <>
      <h2 class="progress-heading">{t('present.selfPaced.results')}</h2>
      <div class="result-grid">
        {results.map((result) => {
          const known = slides.get(result.slideId);
          return (
            <article key={result.slideId} class="card result-card" data-slide-id={result.slideId}>
              {known ? <SlideTitle index={known.index} text={known.slide.text} /> : null}
              <ResultView result={result} render={renderOf(known?.slide)} />
            </article>
          );
        })}
      </div>
    </>
  );
}

/** Participants per slide in deck order (a bar each), then each slide's live results. */
function SelfPacedProgress({
  view,
  participantCount,
  completedCount,
}: {
  view: PresenterView;
  participantCount: number;
  completedCount: number;
}) {
  const deck = view.deck!;
  const figures = new Map(view.progress?.slides.map((slide) => [slide.slideId, slide]));
  const results = new Map(view.progress?.results.map((result) => [result.slideId, result]));
  const most = Math.max(1, participantCount);
  return (
    <div data-testid="progress-view">
      <h2 class="progress-heading">{t('present.selfPaced.progressHeading')}</h2>
      <ol class="slide-progress" data-testid="slide-progress">
        {deck.slides.map((slide, index) => {
          const here = figures.get(slide.id)?.participants ?? 0;
          const answers = figures.get(slide.id)?.answerCount ?? 0;
          return (
            <li key={slide.id} data-slide-id={slide.id} data-participants={here} data-answers={answers}>
              <span class="sp-index">{formatNumber(index + 1)}</span>
              <span class="sp-text">
                <span class="sp-title">{slide.text}</span>
                <span class="muted sp-kind">
                  {slide.kind === 'content'
                    ? t('common.kind.content')
                    : t('present.selfPaced.kindAnswers', { kind: kindLabel(slide), count: answers })}
                </span>
              </span>
              <span class="bar-track" aria-hidden="true">
                <span class="bar-fill" style={{ width: `${(here / most) * 100}%` }} />
              </span>
              <span class="sp-here" data-testid="slide-participants">
                {t('present.selfPaced.here', { count: here })}
              </span>
            </li>
          );
        })}
        <li class="sp-done" data-testid="done-row" data-completed={completedCount}>
          <span class="sp-index">✓</span>
          <span class="sp-text">
            <span class="sp-title">{t('present.selfPaced.completedRow')}</span>
          </span>
          <span class="bar-track" aria-hidden="true">
            <span class="bar-fill" style={{ width: `${(completedCount / most) * 100}%` }} />
          </span>
          <span class="sp-here">{t('present.selfPaced.done', { count: completedCount })}</span>
        </li>
      </ol>
      <h2 class="progress-heading">{t('present.selfPaced.resultsSoFar')}</h2>
      <div class="result-grid">
        {deck.slides.map((slide, index) => {
          if (slide.kind === 'content') return null;
          const result = results.get(slide.id);
          return (
            <article key={slide.id} class="card result-card" data-slide-id={slide.id}>
              <SlideTitle index={index} text={slide.text} />
              {slide.kind === 'quiz' ? (
                // Quiz answers are not put on a screen the room may see before the session ends.
                <p class="muted">
                  {t('present.selfPaced.quizHidden', { count: figures.get(slide.id)?.answerCount ?? 0 })}
                </p>
              ) : result && (figures.get(slide.id)?.answerCount ?? 0) > 0 ? (
                <ResultView result={result} render={renderOf(slide)} />
              ) : (
                <p class="muted">{t('present.selfPaced.noAnswers')}</p>
              )}
            </article>
          );
        })}
      </div>
    </div>
  );
}

/** A result card's heading: "3. Which coffee?", the slide's text isolated from the page's direction. */
function SlideTitle({ index, text }: { index: number; text: string }) {
  return <h3>{tx('present.slideTitle', { number: index + 1, title: <bdi>{text}</bdi> })}</h3>;
}

/** "Quiz · slide 3 of 7"; a content slide, only where it is. */
function slidePlace(kind: string, number: number, count: number): string {
  return kind ? t('present.slide.eyebrow', { kind, number, count }) : t('present.slide.position', { number, count });
}

/** Text in a direction of its own inside a message that cannot hold an element (an `<option>`): FSI … PDI. */
function isolate(text: string): string {
  return `\u2068${text}\u2069`;
}

/** "123 456"; a session without a PIN (joined by its link only) shows none. */
function formatPin(pin: string | null): string {
  return pin ? `${pin.slice(0, 3)} ${pin.slice(3)}` : '';
}
