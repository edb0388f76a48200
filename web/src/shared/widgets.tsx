import type { ParticipantSlide, Slide } from '@pollkit/sdk/live';
import { useEffect, useState } from 'preact/hooks';
import { formatNumber, t } from './i18n.js';
import type { ServerClock } from './net.js';

/**
 * Whole seconds left on a quiz slide, counted on the server's clock from the slide's start, so a
 * participant who joins late sees the time that is really left. `role="timer"` is the ARIA role of a
 * countdown (screen readers do not announce every tick).
 */
export function Countdown({
  startedAt,
  limitSec,
  clock,
  onExpired,
}: {
  startedAt: string;
  limitSec: number;
  clock: ServerClock;
  onExpired?: () => void;
}) {
  const deadline = Date.parse(startedAt) + limitSec * 1000;
  // Never more than the limit: the clock estimate may trail the server's by a fraction of a second.
  const left = Math.min(limitSec, useSecondsLeft(deadline, clock));
  useEffect(() => {
    if (left === 0) onExpired?.();
  }, [left === 0]);
  return (
    <div class={`countdown${left <= 5 ? ' countdown-low' : ''}`} role="timer" aria-label={t('common.countdown.label')}>
      {formatNumber(left)}
    </div>
  );
}

function useSecondsLeft(deadline: number, clock: ServerClock): number {
  const secondsLeft = () => Math.max(0, Math.ceil((deadline - clock.now()) / 1000));
  const [left, setLeft] = useState(secondsLeft);
  useEffect(() => {
    setLeft(secondsLeft());
    const timer = setInterval(() => setLeft(secondsLeft()), 200);
    return () => clearInterval(timer);
  }, [deadline]);
  return left;
}

/** A slide's (or an option's) media: images shown (the re-hosted WebP when there is one), the rest linked. */
export function MediaView({ media, alt }: { media: Slide['media']; alt: string }) {
  if (!media) return null;
  if (media.type === 'image') {
    return (
      <img
        class="media"
        src={media.storedUrl ?? media.url}
        alt={alt}
        width={media.width}
        height={media.height}
        loading="lazy"
      />
    );
  }
  return (
    <a class="media-link" href={media.url} target="_blank" rel="noopener noreferrer">
      {t(media.type === 'link' ? 'common.media.openLink' : 'common.media.watchVideo')}
    </a>
  );
}

export function kindLabel(slide: Slide | ParticipantSlide): string {
  switch (slide.kind) {
    case 'multiple_choice':
      return t(slide.type === 'multiple' ? 'common.kind.multipleChoiceMultiple' : 'common.kind.multipleChoice');
    case 'quiz':
      return t('common.kind.quiz');
    case 'scale':
      return t('common.kind.scale');
    case 'ranking':
      return t('common.kind.ranking');
    case 'open_ended':
      return t('common.kind.openEnded');
    case 'qa':
      return t('common.kind.qa');
    case 'content':
      return '';
  }
}

/** The theme's logo, as the server wrote it into the page (docs/themes.md); null without one. */
function themeLogo(): { url: string; alt: string; width: number; height: number } | null {
  try {
    const { logo } = JSON.parse(document.getElementById('pollkit-page')?.textContent ?? '') as { logo?: unknown };
    if (typeof logo !== 'object' || logo === null) return null;
    const { url, alt, width, height } = logo as Record<string, unknown>;
    if (typeof url !== 'string' || !/^https?:\/\//.test(url) || typeof alt !== 'string') return null;
    if (typeof width !== 'number' || typeof height !== 'number') return null;
    return { url, alt, width, height };
  } catch {
    return null;
  }
}
const logo = themeLogo();

/**
 * The top bar's brand: the theme's logo where it has one, else `name` (Pollkit's, on the audience
 * page: an integrator's audience sees its logo alone); `title` (the deck's) is shown either way.
 */
export function Brand({ name, title }: { name?: string; title?: string }) {
  if (!logo) return <span class="brand">{title ?? name}</span>;
  return (
    <span class="brand">
      <img class="brand-logo" src={logo.url} alt={logo.alt} width={logo.width} height={logo.height} />
      {title === undefined ? null : <span class="brand-text">{title}</span>}
    </span>
  );
}
