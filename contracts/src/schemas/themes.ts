import { z } from 'zod';
import { ListCursor, ListLimit, pageOf, resourceId, Timestamp } from './common.js';
import { HttpUrl } from './media.js';
import { displayText, text } from './text.js';

export const ThemeId = resourceId('thm', 'Theme id.');

const HexColor = text()
  .regex(/^#[0-9A-Fa-f]{6}$/, 'A colour as #RRGGBB')
  .transform((color) => color.toLowerCase())
  .describe('A colour as `#RRGGBB`.');

export const ThemeColors = z
  .strictObject({
    primary: HexColor.describe(
      'Buttons, links, the progress bar and chart bars: at least 3:1 against `background`, and white or black ' +
        'text on it must reach 4.5:1.',
    ),
    background: HexColor.describe('The page background.'),
    text: HexColor.describe('Body text: at least 4.5:1 on `background`.'),
  })
  .describe(
    'The three colours every other one is derived from (hover, focus ring, muted text, chart palette), all kept ' +
      'at WCAG 2.2 AA contrast.',
  )
  .meta({ id: 'ThemeColors' });

export const ThemeFont = z
  .enum(['system', 'serif', 'rounded', 'mono'])
  .describe('A family of fonts already on the device: no font is downloaded.')
  .meta({ id: 'ThemeFont' });

const LogoAlt = displayText()
  .trim()
  .min(1)
  .max(200)
  .describe('What the logo says, for screen readers (usually the organisation’s name).');

export const ThemeLogo = z
  .object({
    url: HttpUrl.describe('The logo as this server re-hosts it (WebP).'),
    sourceUrl: HttpUrl.describe('The address it was taken from.'),
    alt: z.string(),
    width: z.number().int().positive(),
    height: z.number().int().positive(),
  })
  .meta({ id: 'ThemeLogo' });

export const Theme = z
  .object({
    id: ThemeId,
    name: z.string(),
    colors: ThemeColors,
    logo: ThemeLogo.nullable(),
    font: ThemeFont,
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .meta({ id: 'Theme' });

const ThemeName = displayText().trim().min(1).max(100).describe('A name for the people who pick themes.');
const ThemeLogoInput = z
  .strictObject({
    url: HttpUrl.describe(
      'An image (PNG, JPEG, WebP, GIF, SVG…), fetched once and re-hosted as WebP, as `POST /media` does.',
    ),
    alt: LogoAlt,
  })
  .meta({ id: 'ThemeLogoInput' });

export const CreateThemeInput = z
  .strictObject({
    name: ThemeName,
    colors: ThemeColors,
    logo: ThemeLogoInput.optional(),
    font: ThemeFont.default('system'),
  })
  .meta({ id: 'CreateThemeInput' });

export const UpdateThemeInput = z
  .strictObject({
    id: ThemeId,
    name: ThemeName.optional(),
    colors: ThemeColors.optional().describe('All three colours, checked together.'),
    logo: ThemeLogoInput.nullable().optional().describe('A new logo; `null` removes it.'),
    font: ThemeFont.optional(),
  })
  .refine(
    (input) =>
      input.name !== undefined || input.colors !== undefined || input.logo !== undefined || input.font !== undefined,
    { message: 'Send `name`, `colors`, `logo`, `font`, or several' },
  )
  .meta({ id: 'UpdateThemeInput' });

export const ThemeIdInput = z.strictObject({ id: ThemeId });
export const ListThemesInput = z.strictObject({ limit: ListLimit, cursor: ListCursor });
export const ThemeList = pageOf(Theme, 'ThemeList');
export const DeletedTheme = z.object({ id: ThemeId, deleted: z.literal(true) }).meta({ id: 'DeletedTheme' });

export type CreateThemeInput = z.input<typeof CreateThemeInput>;
export type DeletedTheme = z.output<typeof DeletedTheme>;
export type ListThemesInput = z.input<typeof ListThemesInput>;
export type Theme = z.output<typeof Theme>;
export type ThemeColors = z.output<typeof ThemeColors>;
export type ThemeFont = z.output<typeof ThemeFont>;
export type ThemeId = z.output<typeof ThemeId>;
export type ThemeIdInput = z.input<typeof ThemeIdInput>;
export type ThemeList = z.output<typeof ThemeList>;
export type ThemeLogo = z.output<typeof ThemeLogo>;
export type UpdateThemeInput = z.input<typeof UpdateThemeInput>;
