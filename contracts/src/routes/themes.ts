import { defineRoute } from '../route.js';
import {
  CreateThemeInput,
  DeletedTheme,
  ListThemesInput,
  Theme,
  ThemeIdInput,
  ThemeList,
  UpdateThemeInput,
} from '../schemas/themes.js';

/** What fetching a logo can fail with: the errors of `POST /media`. */
const logoErrors = ['media_not_allowed', 'media_fetch_failed', 'media_too_large', 'unsupported_media'] as const;

export const listThemes = defineRoute({
  method: 'GET',
  path: '/themes',
  tags: ['themes'],
  summary: 'List themes',
  description: "The workspace's themes, newest first, cursor-paginated.",
  auth: 'workspace',
  scope: 'polls:read',
  successStatus: 200,
  input: ListThemesInput,
  output: ThemeList,
  errors: ['validation_failed'],
});

export const createTheme = defineRoute({
  method: 'POST',
  path: '/themes',
  tags: ['themes'],
  summary: 'Create a theme',
  description:
    'Colours, a logo and a font for the audience page and the presenter screen, applied where a poll, a session ' +
    'or the workspace names the theme (docs/themes.md). Colours that would fail WCAG 2.2 AA are refused with ' +
    '`validation_failed`, naming the contrast measured: text on background below 4.5:1 (`colors.text`), primary ' +
    'against background below 3:1, or a primary on which neither white nor black text reaches 4.5:1 ' +
    '(`colors.primary`). The logo is fetched once and re-hosted as WebP, as `POST /media` does.',
  auth: 'workspace',
  reachesOut: true,
  scope: 'polls:write',
  successStatus: 201,
  input: CreateThemeInput,
  output: Theme,
  errors: ['validation_failed', ...logoErrors],
});

export const getTheme = defineRoute({
  method: 'GET',
  path: '/themes/{id}',
  tags: ['themes'],
  summary: 'Get a theme',
  description: 'The theme as stored: its colours, its re-hosted logo and its font.',
  auth: 'workspace',
  scope: 'polls:read',
  successStatus: 200,
  input: ThemeIdInput,
  output: Theme,
  errors: ['not_found', 'validation_failed'],
});

export const updateTheme = defineRoute({
  method: 'PATCH',
  path: '/themes/{id}',
  tags: ['themes'],
  summary: 'Update a theme',
  description:
    'Changes the name, the colours (all three, checked together as on create), the logo (`null` removes it) or ' +
    'the font. Pages using the theme show the change on their next load.',
  auth: 'workspace',
  reachesOut: true,
  scope: 'polls:write',
  successStatus: 200,
  input: UpdateThemeInput,
  output: Theme,
  errors: ['not_found', 'validation_failed', ...logoErrors],
});

export const deleteTheme = defineRoute({
  method: 'DELETE',
  path: '/themes/{id}',
  tags: ['themes'],
  summary: 'Delete a theme',
  description:
    'Polls and sessions that named it, and the workspace if it was its default, go back to the default: the ' +
    "workspace's theme, else Pollkit's own colours.",
  auth: 'workspace',
  scope: 'polls:write',
  successStatus: 200,
  input: ThemeIdInput,
  output: DeletedTheme,
  errors: ['not_found', 'validation_failed'],
});
