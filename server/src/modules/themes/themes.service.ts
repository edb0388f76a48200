import type {
  CreateThemeInput,
  ListThemesInput,
  Theme,
  ThemeLogo,
  UpdateThemeInput,
  ValidationErrorDetails,
} from '@pollkit/contracts';
import type { Kysely, Updateable } from 'kysely';
import type { z } from 'zod';
import { ApiError } from '../../core/api-error.js';
import { keysetPage } from '../../core/paging.js';
import { newId } from '../../db/ids.js';
import type { Database, ThemeRow, ThemesTable } from '../../db/schema.js';
import { ingestMedia, type MediaDeps } from '../media/media.service.js';
import { clearThemeFromPolls, type PollsDeps } from '../polls/polls.service.js';
import { themeColorProblems } from './theme-palette.js';
import * as themes from './themes.repository.js';

/** What the theme use cases need: the database, the poll cache (a deletion changes polls) and media ingestion for logos. */
export type ThemesDeps = PollsDeps & MediaDeps & { db: Kysely<Database> };

function toTheme(row: ThemeRow): Theme {
  return {
    id: row.id,
    name: row.name,
    // In the contract's order: jsonb keeps keys by length, not as written.
    colors: { primary: row.colors.primary, background: row.colors.background, text: row.colors.text },
    logo: row.logo && {
      url: row.logo.url,
      sourceUrl: row.logo.sourceUrl,
      alt: row.logo.alt,
      width: row.logo.width,
      height: row.logo.height,
    },
    font: row.font,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/** 422 naming each colour that fails WCAG 2.2 AA, with the contrast it has and the one it needs. */
function assertReadable(colors: Theme['colors']): void {
  const problems = themeColorProblems(colors);
  if (Object.keys(problems).length === 0) return;
  const details: ValidationErrorDetails = {
    fieldErrors: Object.fromEntries(Object.entries(problems).map(([field, message]) => [field, [message]])),
    formErrors: [],
  };
  throw new ApiError('validation_failed', 'The theme’s colours are not readable enough (WCAG 2.2 AA)', details);
}

/** The logo fetched and re-hosted as `POST /media` does; anything but an image is refused on `logo.url`. */
async function ingestLogo(deps: MediaDeps, logo: { url: string; alt: string }): Promise<ThemeLogo> {
  const media = await ingestMedia(deps, { url: logo.url, type: 'image' });
  if (!media.storedUrl || !media.width || !media.height) {
    throw new ApiError('unsupported_media', 'The logo URL does not serve an image');
  }
  return { url: media.storedUrl, sourceUrl: media.url, alt: logo.alt, width: media.width, height: media.height };
}

export async function createTheme(
  deps: ThemesDeps,
  workspaceId: string,
  input: z.output<typeof CreateThemeInput>,
): Promise<Theme> {
  assertReadable(input.colors);
  // Fetched before anything is written: a refused logo fails the whole request.
  const logo = input.logo ? await ingestLogo(deps, input.logo) : null;
  const now = new Date();
  const row = await themes.insertTheme(deps.db, {
    id: newId('theme'),
    workspace_id: workspaceId,
    name: input.name,
    colors: JSON.stringify(input.colors),
    logo: logo ? JSON.stringify(logo) : null,
    font: input.font,
    created_at: now,
    updated_at: now,
  });
  return toTheme(row);
}

export function listThemes({ db }: ThemesDeps, workspaceId: string, input: z.output<typeof ListThemesInput>) {
  return keysetPage(
    input,
    'thm',
    ({ beforeId, limit }) => themes.listThemes(db, workspaceId, { limit, beforeId }),
    toTheme,
  );
}

export async function getTheme({ db }: ThemesDeps, workspaceId: string, id: string): Promise<Theme> {
  const row = await themes.findTheme(db, workspaceId, id);
  if (!row) throw ApiError.notFound('Theme');
  return toTheme(row);
}

export async function updateTheme(
  deps: ThemesDeps,
  workspaceId: string,
  input: z.output<typeof UpdateThemeInput>,
): Promise<Theme> {
  if (!(await themes.findTheme(deps.db, workspaceId, input.id))) throw ApiError.notFound('Theme');
  if (input.colors) assertReadable(input.colors);
  const changes: Updateable<ThemesTable> = { updated_at: new Date() };
  if (input.name !== undefined) changes.name = input.name;
  if (input.colors !== undefined) changes.colors = JSON.stringify(input.colors);
  if (input.font !== undefined) changes.font = input.font;
  if (input.logo !== undefined) {
    changes.logo = input.logo === null ? null : JSON.stringify(await ingestLogo(deps, input.logo));
  }
  const row = await themes.updateTheme(deps.db, workspaceId, input.id, changes);
  if (!row) throw ApiError.notFound('Theme');
  return toTheme(row);
}

/**
 * Deletes the theme and puts every poll, session and workspace that named it back on the default.
 * The theme's row is locked first, so a write naming it meanwhile waits and is then refused (422,
 * by the foreign key); the polls that named it are cleared through the polls module, which says
 * which, so their cached copies are forgotten and `GET /polls/{id}` says `themeId: null` at once.
 * Sessions and the workspace are cleared by the foreign keys in the same statement as the delete.
 */
export async function deleteTheme(deps: ThemesDeps, workspaceId: string, id: string) {
  const cleared = await deps.db.transaction().execute(async (trx) => {
    if (!(await themes.lockTheme(trx, workspaceId, id))) return undefined;
    const polls = await clearThemeFromPolls(trx, workspaceId, id);
    await themes.deleteTheme(trx, workspaceId, id);
    return polls;
  });
  if (!cleared) throw ApiError.notFound('Theme');
  await Promise.all(cleared.map((pollId) => deps.pollCache.invalidate(workspaceId, pollId)));
  return { id, deleted: true as const };
}

/** What a page shows of a theme (colors, logo, font, version), as a subquery the pages' read model joins. */
export function pageThemes(db: Kysely<Database>) {
  return themes.pageThemes(db);
}
