import { type SupportedLanguage, supportedLanguage } from '@pollkit/contracts';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { type ThemeFont, themeStylesheet } from '../themes/theme-palette.js';
import { findPageRow, type PageRow, type PageTarget } from './pages.repository.js';

export type { PageTarget } from './pages.repository.js';

/** What the audience page and the presenter screen are served with, for one session. */
export interface PageSettings {
  sessionId: string;
  language: SupportedLanguage;
  /** Origins that may frame the page, besides its own (`frame-ancestors`). */
  embedOrigins: readonly string[];
  theme: PageTheme | null;
  /** The session's join challenge: the audience page gets and solves it before its first join. */
  joinChallenge: 'pow' | null;
}

export interface PageTheme {
  id: string;
  /** `:root { --ink: …; … }`: the pages' custom properties, derived from the theme's three colours. */
  stylesheet: string;
  logo: { url: string; alt: string; width: number; height: number } | null;
  /** A dark background: the page's `color-scheme`. */
  dark: boolean;
}

/**
 * The settings of the session a page names: its language (the session's, else the poll's), its
 * theme (the session's, the poll's, else the workspace's) and the workspace's embedding origins.
 * Undefined when the page names no session: the page is then served with the defaults.
 */
export async function pageSettings(
  deps: { db: Kysely<Database> },
  target: PageTarget,
): Promise<PageSettings | undefined> {
  const row =
    (await findPageRow(deps.db, target)) ??
    ('pin' in target ? await findPageRow(deps.db, target, { endedPin: true }) : undefined);
  return row && toPageSettings(row);
}

function toPageSettings(row: PageRow): PageSettings {
  return {
    sessionId: row.session_id,
    language: supportedLanguage(row.language) ?? 'en',
    embedOrigins: row.embed_origins,
    theme: row.theme_id && row.theme_colors ? toPageTheme(row.theme_id, row) : null,
    joinChallenge: row.join_challenge,
  };
}

function toPageTheme(id: string, row: PageRow): PageTheme | null {
  if (!row.theme_colors) return null;
  const stylesheet = themeStylesheet(row.theme_colors, (row.theme_font ?? 'system') as ThemeFont);
  const logo = row.theme_logo;
  return {
    id,
    stylesheet,
    logo: logo && { url: logo.url, alt: logo.alt, width: logo.width, height: logo.height },
    dark: stylesheet.includes('color-scheme:dark'),
  };
}
