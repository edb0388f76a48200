import type { ParticipantSlide, Slide } from '@pollkit/sdk/live';
import { useEffect, useState } from 'preact/hooks';
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
    <div class={`countdown${left <= 5 ? ' countdown-low' : ''}`} role="timer" aria-label="Seconds left">
      {left}
    </div>
  );
}

export function useSecondsLeft(deadline: number, clock: ServerClock): number {
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
      {media.type === 'link' ? 'Open the link' : 'Watch the video'}
    </a>
  );
}

export function kindLabel(slide: Slide | ParticipantSlide): string {
  switch (slide.kind) {
    case 'multiple_choice':
      return slide.type === 'multiple' ? 'Choose one or more' : 'Choose one';
    case 'quiz':
      return 'Quiz';
    case 'scale':
      return 'Rate';
    case 'ranking':
      return 'Rank';
    case 'open_ended':
      return 'Open question';
    case 'qa':
      return 'Q&A';
    case 'content':
      return '';
  }
}
