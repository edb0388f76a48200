import type { Session, SessionAction } from '@pollkit/contracts';

/**
 * What happened in the domain, as the modules that made it happen announce it: after the change
 * committed, in the process that made it. Subscribers: the live-session hub (fan-out to event
 * streams in every process). Webhooks do not subscribe: their events are an outbox written in the
 * same transaction as the change (webhooks/outbox.repository.ts), so a crash between the commit and
 * this announcement loses no delivery.
 */
export type DomainEvent =
  | { type: 'session.created'; workspaceId: string; session: Session }
  | {
      type: 'session.changed';
      workspaceId: string;
      sessionId: string;
      /** The number of the event in the session's history (session_events.seq). */
      seq: number;
      action: SessionAction;
    }
  | { type: 'participant.joined'; workspaceId: string; sessionId: string; participantId: string }
  /** A self-paced participant answered, skipped or completed: their streams follow them. */
  | { type: 'participant.moved'; workspaceId: string; sessionId: string; participantId: string }
  | {
      type: 'answer.created';
      workspaceId: string;
      kind: 'vote' | 'response';
      pollId: string;
      slideId: string;
      answerId: string;
      voterId: string;
      /** The live session the answer came from; null for answers sent through the API. */
      sessionId: string | null;
    }
  | {
      type: 'question.moderated';
      workspaceId: string;
      pollId: string;
      questionId: string;
      status: 'pending' | 'approved' | 'dismissed';
      /** The session the question was asked in; null for one asked through the API. */
      sessionId: string | null;
    }
  /**
   * Answers given in a session were deleted (the session's reset, one answer's delete, a respondent's
   * erasure): its screens refresh.
   */
  | { type: 'session.answers_removed'; workspaceId: string; sessionId: string }
  | {
      type: 'question.upvoted';
      workspaceId: string;
      pollId: string;
      questionId: string;
      voterId: string;
      sessionId: string | null;
    };

/**
 * One in-process publisher of domain events. Subscribers run synchronously and must not throw (a
 * throwing one is logged through `onError` and the others still run): publishing never fails the
 * change that was already made.
 */
export class DomainEvents {
  readonly #subscribers: Array<(event: DomainEvent) => void> = [];

  constructor(private readonly onError: (error: unknown, event: DomainEvent) => void = () => {}) {}

  subscribe(subscriber: (event: DomainEvent) => void): () => void {
    this.#subscribers.push(subscriber);
    return () => {
      const index = this.#subscribers.indexOf(subscriber);
      if (index >= 0) this.#subscribers.splice(index, 1);
    };
  }

  publish(event: DomainEvent): void {
    for (const subscriber of this.#subscribers) {
      try {
        subscriber(event);
      } catch (error) {
        this.onError(error, event);
      }
    }
  }
}
