import type { LeaderboardEntry, Poll } from '@pollkit/contracts';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { type ModerationDeps, namePolicy } from '../moderation/index.js';
import { listParticipantScores } from './sessions.repository.js';

/**
 * Ranks of every participant, highest score first; equal scores share a rank ("1, 2, 2, 4"). Ties
 * are listed by join order (ids sort by creation time).
 */
export class Standings {
  readonly top: LeaderboardEntry[];
  readonly #byId = new Map<string, LeaderboardEntry>();

  /** `showName`: the name as the leaderboard shows it (flagged words masked: nameShower). */
  constructor(
    scores: ReadonlyArray<{ id: string; name: string | null; score: number }>,
    topSize = 10,
    showName: (name: string) => string = (name) => name,
  ) {
    const sorted = [...scores].sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
    let rank = 0;
    let previous: number | undefined;
    sorted.forEach((participant, index) => {
      if (participant.score !== previous) rank = index + 1;
      previous = participant.score;
      this.#byId.set(participant.id, {
        rank,
        participantId: participant.id,
        name: participant.name === null ? null : showName(participant.name),
        score: participant.score,
      });
    });
    this.top = sorted.slice(0, topSize).map((participant) => this.#byId.get(participant.id) as LeaderboardEntry);
  }

  of(participantId: string | undefined): LeaderboardEntry | null {
    return participantId === undefined ? null : (this.#byId.get(participantId) ?? null);
  }
}

/** The session's standings as its answers now stand. */
export async function standingsOf(
  db: Kysely<Database>,
  sessionId: string,
  showName?: (name: string) => string,
): Promise<Standings> {
  return new Standings(await listParticipantScores(db, sessionId), 10, showName);
}

/** Names as the poll's participants are shown them: flagged words masked unless its `textFilter` is `off`. */
export async function nameShower(
  deps: ModerationDeps,
  workspaceId: string,
  poll: Poll,
): Promise<(name: string) => string> {
  const policy = await namePolicy(deps, workspaceId, poll);
  return (name) => policy.shown(name);
}

/** Whether the poll scores anybody: the leaderboard is null without a quiz slide. */
export function hasQuiz(poll: Poll): boolean {
  return poll.content.questions.some((slide) => slide.kind === 'quiz');
}

/**
 * The ten highest scores of the session (null when the poll has no quiz slide): what
 * `GET /sessions/{id}/results` and the `session.ended` webhook carry, as the `ended` stream event does.
 */
export async function leaderboardOf(
  db: Kysely<Database>,
  poll: Poll,
  sessionId: string,
  showName?: (name: string) => string,
): Promise<LeaderboardEntry[] | null> {
  return hasQuiz(poll) ? (await standingsOf(db, sessionId, showName)).top : null;
}
