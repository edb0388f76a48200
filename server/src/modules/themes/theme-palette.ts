/**
 * A workspace theme's colours: the WCAG 2 checks a theme must pass, and the full palette of the
 * audience page and presenter screen (the custom properties of web/src/shared/styles.css' `:root`)
 * derived from the theme's three colours, so that every text/background pair the pages use keeps
 * at least 4.5:1 and every non-text pair (focus ring, chart bars, field borders) at least 3:1.
 * Pure: no I/O, nothing but string and number work.
 */

export interface ThemeColors {
  primary: string;
  background: string;
  text: string;
}

/** The font choices and their stacks: locally installed families only, nothing is fetched. */
const THEME_FONTS = {
  system: 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif',
  serif: 'ui-serif, Georgia, "Times New Roman", serif',
  rounded: 'ui-rounded, "SF Pro Rounded", "Nunito", system-ui, sans-serif',
  mono: 'ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace',
} as const;

export type ThemeFont = keyof typeof THEME_FONTS;

/** WCAG 2.2 AA minimums: 1.4.3 for text, 1.4.11 (and 2.4.11/2.4.13) for graphics and focus rings. */
const MIN_TEXT_CONTRAST = 4.5;
const MIN_NON_TEXT_CONTRAST = 3;

const WHITE = '#ffffff';
const BLACK = '#000000';
/** The dark choice for text on a coloured button; the light one is white. */
export const NEAR_BLACK = '#111111';

/** The hues the status families (and the correct answer's bar) start from before their contrast is fixed. */
const OK_HUE = '#15803d';
const WARN_HUE = '#b45309';
const BAD_HUE = '#b91c1c';

const HEX_COLOR = /^#[0-9a-f]{6}$/i;

function channels(hex: string): [number, number, number] {
  if (!HEX_COLOR.test(hex)) throw new Error(`not a #rrggbb colour: ${JSON.stringify(hex)}`);
  return [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16)) as [number, number, number];
}

function toHex(rgb: readonly number[]): string {
  return `#${rgb.map((value) => Math.round(value).toString(16).padStart(2, '0')).join('')}`;
}

/** WCAG 2 relative luminance. (0.04045 and 0.03928 as the threshold give the same result for 8-bit channels.) */
function luminance(hex: string): number {
  const [r, g, b] = channels(hex).map((value) => {
    const channel = value / 255;
    return channel <= 0.04045 ? channel / 12.92 : ((channel + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** The WCAG 2 contrast ratio of two `#rrggbb` colours, 1 to 21, in either order. */
export function contrastRatio(a: string, b: string): number {
  const [lighter, darker] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (lighter + 0.05) / (darker + 0.05);
}

/** `amount` of the way from `from` to `to`, in sRGB, rounded to a `#rrggbb` colour. */
function mix(from: string, to: string, amount: number): string {
  const [a, b] = [channels(from), channels(to)];
  return toHex(a.map((value, i) => value + ((b[i] as number) - value) * amount));
}

/** White or near-black, whichever reads better on `background`. */
function textOn(background: string): string {
  return contrastRatio(WHITE, background) >= contrastRatio(NEAR_BLACK, background) ? WHITE : NEAR_BLACK;
}

const readableOn =
  (backgrounds: readonly string[], min: number) =>
  (color: string): boolean =>
    backgrounds.every((background) => contrastRatio(color, background) >= min);

/**
 * The first colour on the way from `color` to `toward` (in 1% steps) that passes `ok`. A scan rather
 * than a bisection: contrast along the way need not be monotonic (it dips where the colour crosses a
 * background's luminance). `toward` is always black or white, which the palette arranges to pass.
 */
function shiftUntil(color: string, toward: string, ok: (color: string) => boolean): string {
  for (let step = 0; step <= 100; step++) {
    const candidate = mix(color, toward, step / 100);
    if (ok(candidate)) return candidate;
  }
  return toward;
}

/** The ratio for a message: rounded down, so a near miss never reads as the minimum itself. */
function ratioText(ratio: number): string {
  return `${(Math.floor(ratio * 100 + 1e-9) / 100).toFixed(2)}:1`;
}

/**
 * What is wrong with a theme's colours, by field (`colors.text`, `colors.primary`); empty when the
 * theme is acceptable. These three rules are what themePalette needs to guarantee every pair.
 */
export function themeColorProblems(colors: ThemeColors): Record<string, string> {
  const problems: Record<string, string> = {};
  const malformed = (['primary', 'background', 'text'] as const).filter((field) => !HEX_COLOR.test(colors[field]));
  for (const field of malformed) problems[`colors.${field}`] = 'must be a colour written as #RRGGBB';
  if (malformed.length > 0) return problems;

  const { primary, background, text } = colors;
  const textContrast = contrastRatio(text, background);
  if (textContrast < MIN_TEXT_CONTRAST) {
    problems['colors.text'] =
      `text on background has a contrast of ${ratioText(textContrast)}; at least 4.5:1 is needed (WCAG 2.2 AA)`;
  }
  const primaryProblems: string[] = [];
  const primaryContrast = contrastRatio(primary, background);
  if (primaryContrast < MIN_NON_TEXT_CONTRAST) {
    primaryProblems.push(
      `primary against background has a contrast of ${ratioText(primaryContrast)}; at least 3:1 is needed`,
    );
  }
  const buttonContrast = contrastRatio(textOn(primary), primary);
  if (buttonContrast < MIN_TEXT_CONTRAST) {
    primaryProblems.push(
      `button text on primary (white or near-black) reaches at most ${ratioText(buttonContrast)}; at least 4.5:1 is needed`,
    );
  }
  if (primaryProblems.length > 0) problems['colors.primary'] = `${primaryProblems.join('; and ')} (WCAG 2.2 AA)`;
  return problems;
}

/**
 * Every colour custom property of the pages, keyed by name (`--ink`, …), derived from a theme.
 * The guarantees (each tested for random accepted themes in server/test/unit/theme-palette.test.ts) hold
 * for any theme themeColorProblems accepts; for others the result is a best effort.
 */
export function themePalette(colors: ThemeColors): Record<string, string> {
  const primary = colors.primary.toLowerCase();
  const paper = colors.background.toLowerCase();
  const ink = colors.text.toLowerCase();
  const dark = luminance(paper) < luminance(ink);
  // Moving a colour toward `textSide` raises its contrast on the page's surfaces; `pageSide` is the other extreme.
  const textSide = dark ? WHITE : BLACK;
  const pageSide = dark ? BLACK : WHITE;

  // A card sits a little lighter than the page in both schemes; in a dark one lighter is toward the
  // text, so the lift stops where the text would drop below 4.5:1.
  const lifts = dark ? [0.06, 0.04, 0.02] : [0.7];
  const card =
    lifts.map((lift) => mix(paper, WHITE, lift)).find((c) => contrastRatio(ink, c) >= MIN_TEXT_CONTRAST) ?? paper;

  // A soft background is a tint of the page; ink sits on it (`.status`, `.tally`), and so does its
  // family's text colour, so it is pushed away from the text side until both ink and the extreme read on it.
  const soft = (hue: string) =>
    shiftUntil(mix(paper, hue, 0.14), pageSide, readableOn([ink, textSide], MIN_TEXT_CONTRAST));
  const accentSoft = soft(primary);
  const okSoft = soft(OK_HUE);
  const warnSoft = soft(WARN_HUE);
  const badSoft = soft(BAD_HUE);

  // A colour that is both text on surfaces and a background for white or near-black text (a button, the countdown).
  const textAndFill = (surfaces: string[]) => (color: string) =>
    readableOn(surfaces, MIN_TEXT_CONTRAST)(color) && contrastRatio(textOn(color), color) >= MIN_TEXT_CONTRAST;
  // Accent text sits on the page, cards, its soft tint and a finished slide's row (`.sp-done`).
  const accent = shiftUntil(primary, textSide, textAndFill([paper, card, accentSoft, okSoft]));
  const onAccent = textOn(accent);
  const bad = shiftUntil(BAD_HUE, textSide, textAndFill([badSoft]));

  // Muted: as far from the ink toward the page as still reads on every surface muted text sits on.
  const mutedCandidates = [0.35, 0.3, 0.25, 0.2, 0.15, 0.1, 0.05].map((amount) => mix(ink, paper, amount));
  const muted = mutedCandidates.find(readableOn([paper, card, okSoft], MIN_TEXT_CONTRAST)) ?? ink;

  const track = mix(card, ink, 0.08);
  const graphic = (color: string, surfaces: string[]) =>
    shiftUntil(color, textSide, readableOn(surfaces, MIN_NON_TEXT_CONTRAST));

  return {
    '--ink': ink,
    '--muted': muted,
    '--paper': paper,
    '--card': card,
    '--line': mix(card, ink, 0.16),
    '--field-border': graphic(mix(card, ink, 0.45), [paper, card]),
    '--track': track,
    '--accent': accent,
    // Hovering moves the button away from its text colour, so the label only gains contrast.
    '--accent-hover': mix(accent, onAccent === WHITE ? BLACK : WHITE, 0.15),
    '--accent-soft': accentSoft,
    '--on-accent': onAccent,
    '--focus': graphic(primary, [paper, card]),
    '--ok': shiftUntil(OK_HUE, textSide, readableOn([okSoft], MIN_TEXT_CONTRAST)),
    '--ok-soft': okSoft,
    '--warn': shiftUntil(WARN_HUE, textSide, readableOn([warnSoft], MIN_TEXT_CONTRAST)),
    '--warn-soft': warnSoft,
    '--bad': bad,
    '--bad-soft': badSoft,
    '--on-bad': textOn(bad),
    '--bar': graphic(primary, [paper, card, track]),
    '--bar-correct': graphic(OK_HUE, [card, track]),
  };
}

/**
 * The stylesheet that applies a theme: the palette and the font on `:root`, to be served after
 * styles.css so that it wins. Only the hex colours and font stacks made here go into it, in a fixed order.
 */
export function themeStylesheet(colors: ThemeColors, font: ThemeFont): string {
  for (const field of ['primary', 'background', 'text'] as const) {
    if (typeof colors[field] !== 'string' || !HEX_COLOR.test(colors[field])) {
      throw new Error(`theme colour ${field} is not #RRGGBB`);
    }
  }
  if (!Object.hasOwn(THEME_FONTS, font)) throw new Error(`unknown theme font: ${JSON.stringify(font)}`);
  const declarations = Object.entries(themePalette(colors)).map(([name, value]) => `${name}:${value}`);
  if (luminance(colors.background) < luminance(colors.text)) declarations.push('color-scheme:dark');
  declarations.push(`font-family:${THEME_FONTS[font]}`);
  return `:root{${declarations.join(';')}}\n`;
}
