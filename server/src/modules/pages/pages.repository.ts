import { type Kysely, sql } from 'kysely';
import type { Database } from '../../db/schema.js';
import { pollPageSettings } from '../polls/polls.service.js';
import { pageSessions } from '../sessions/index.js';
import { pageThemes } from '../themes/themes.service.js';
import { workspacePageSettings } from '../workspaces/workspaces.service.js';

/** What a page needs to know of the session it serves, in one read. */
export interface PageRow {
  session_id: string;
  /** The session's language, else its poll's. */
  language: string;
  /** `pow` when a newcomer solves the join challenge (the audience page then asks for it first). */
  join_challenge: 'pow' | null;
  embed_origins: string[];
  theme_id: string | null;
  theme_colors: { primary: string; background: string; text: string } | null;
  theme_logo: { url: string; alt: string; width: number; height: number } | null;
  theme_font: string | null;
  theme_updated_at: Date | null;
}

/** Which session a page names: by its PIN, its link id (`lnk_…`), or its id (the presenter screen). */
export type PageTarget = { pin: string } | { linkId: string } | { sessionId: string };

/** How long after its end a session's PIN still finds it: a participant reloading the summary. */
const ENDED_PIN_GRACE = '1 hour';

/**
 * A read model over sessions, polls, workspaces and themes: the pages are the only reader, and
 * reading them in one statement keeps a page load to one round trip. Each table is read through the
 * subquery its owner gives for pages (PostgreSQL folds them into this join). The theme is the
 * session's, else the poll's, else the workspace's.
 */
export function findPageRow(
  db: Kysely<Database>,
  target: PageTarget,
  options: { endedPin?: boolean } = {},
): Promise<PageRow | undefined> {
  let query = db
    .selectFrom(pageSessions(db).as('s'))
    .innerJoin(pollPageSettings(db).as('p'), 'p.id', 's.poll_id')
    .innerJoin(workspacePageSettings(db).as('w'), 'w.id', 's.workspace_id')
    .leftJoin(pageThemes(db).as('t'), (join) =>
      join.on('t.id', '=', sql<string>`coalesce(s.theme_id, p.theme_id, w.theme_id)`),
    )
    .select([
      's.id as session_id',
      sql<string>`coalesce(s.language, p.language)`.as('language'),
      's.join_challenge',
      'w.embed_origins',
      't.id as theme_id',
      't.colors as theme_colors',
      't.logo as theme_logo',
      't.font as theme_font',
      't.updated_at as theme_updated_at',
    ]);
  if ('sessionId' in target) query = query.where('s.id', '=', target.sessionId);
  else if ('linkId' in target) query = query.where('s.link_id', '=', target.linkId);
  else if (!options.endedPin) query = query.where('s.pin', '=', target.pin).where('s.status', '<>', 'ended');
  else {
    // The session that released the PIN last, within the grace (sessions_ended_pin_idx).
    query = query
      .where('s.pin', '=', target.pin)
      .where('s.status', '=', 'ended')
      .where('s.ended_at', '>', sql<Date>`now() - ${sql.lit(ENDED_PIN_GRACE)}::interval`)
      .orderBy('s.ended_at', 'desc');
  }
  return query.limit(1).executeTakeFirst() as Promise<PageRow | undefined>;
}
