import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  contrastRatio,
  NEAR_BLACK,
  type ThemeColors,
  themeColorProblems,
  themePalette,
  themeStylesheet,
} from '../../src/modules/themes/theme-palette.js';

/**
 * modules/themes/theme-palette.ts: the contrast checks a theme must pass and the palette derived
 * from it. The pairs below are where styles.css puts one colour on another; for any accepted theme
 * each must keep its WCAG 2.2 AA minimum.
 */

/** [foreground, background, minimum]: variable names without `--`, or literal colours. */
const PAIRS: [string, string, number][] = [
  // Text (1.4.3): web/test/contrast.test.ts' pairs (white as on-accent / on-bad), and the soft backgrounds ink sits on.
  ['ink', 'card', 4.5],
  ['ink', 'paper', 4.5],
  ['ink', 'accent-soft', 4.5],
  ['ink', 'ok-soft', 4.5],
  ['ink', 'warn-soft', 4.5],
  ['ink', 'bad-soft', 4.5],
  ['muted', 'card', 4.5],
  ['muted', 'paper', 4.5],
  ['muted', 'ok-soft', 4.5],
  ['accent', 'card', 4.5],
  ['accent', 'paper', 4.5],
  ['accent', 'accent-soft', 4.5],
  ['accent', 'ok-soft', 4.5],
  ['on-accent', 'accent', 4.5],
  ['on-accent', 'accent-hover', 4.5],
  ['ok', 'ok-soft', 4.5],
  ['warn', 'warn-soft', 4.5],
  ['bad', 'bad-soft', 4.5],
  ['on-bad', 'bad', 4.5],
  // Graphics and focus (1.4.11, 2.4.11).
  ['focus', 'paper', 3],
  ['focus', 'card', 3],
  ['bar', 'card', 3],
  ['bar', 'paper', 3],
  ['bar', 'track', 3],
  ['bar-correct', 'card', 3],
  ['bar-correct', 'track', 3],
  ['field-border', 'card', 3],
  ['field-border', 'paper', 3],
];

function failingPairs(colors: ThemeColors): string[] {
  const palette = themePalette(colors);
  const color = (name: string) => palette[`--${name}`] ?? `missing --${name}`;
  const failures: string[] = [];
  for (const [foreground, background, min] of PAIRS) {
    const [fg, bg] = [color(foreground), color(background)];
    const ratio = contrastRatio(fg, bg);
    if (!(ratio >= min)) failures.push(`${foreground} ${fg} on ${background} ${bg}: ${ratio.toFixed(2)} < ${min}`);
  }
  return failures;
}

/** mulberry32: a small seeded PRNG, so the random themes are the same on every run. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const LIGHT: ThemeColors = { primary: '#3730a3', background: '#f5f6fb', text: '#16182d' };
const DARK: ThemeColors = { primary: '#7dd3fc', background: '#101418', text: '#f0f0f0' };

describe('contrastRatio', () => {
  it('gives the WCAG 2 ratio, in either order and any case', () => {
    expect(contrastRatio('#000000', '#ffffff')).toBeCloseTo(21, 10);
    expect(contrastRatio('#FFFFFF', '#000000')).toBeCloseTo(21, 10);
    expect(contrastRatio('#777777', '#ffffff')).toBeCloseTo(4.48, 2);
    expect(contrastRatio('#767676', '#FFFFFF')).toBeCloseTo(4.54, 2);
    expect(contrastRatio('#3730a3', '#3730A3')).toBe(1);
  });

  it('refuses anything but #rrggbb', () => {
    for (const bad of ['#fff', 'ffffff', '#12345g', 'red', '#ffffff ']) {
      expect(() => contrastRatio(bad, '#000000')).toThrow();
    }
  });
});

describe('themeColorProblems', () => {
  it('accepts a good light and a good dark theme, and the pages’ default colours', () => {
    expect(themeColorProblems(LIGHT)).toEqual({});
    expect(themeColorProblems(DARK)).toEqual({});
    expect(themeColorProblems({ primary: '#0B5FFF', background: '#FFFFFF', text: '#222222' })).toEqual({});
  });

  it('names text on background below 4.5:1, with the ratio', () => {
    expect(themeColorProblems({ primary: '#3730a3', background: '#ffffff', text: '#777777' })).toEqual({
      'colors.text': 'text on background has a contrast of 4.47:1; at least 4.5:1 is needed (WCAG 2.2 AA)',
    });
    const problems = themeColorProblems({ primary: '#3730a3', background: '#ffffff', text: '#aaaaaa' });
    expect(problems['colors.text']).toMatch(/^text on background has a contrast of 2\.\d\d:1; at least 4\.5:1/);
  });

  it('names a primary too close to the background', () => {
    const problems = themeColorProblems({ primary: '#e6e5fa', background: '#ffffff', text: '#16182d' });
    expect(Object.keys(problems)).toEqual(['colors.primary']);
    expect(problems['colors.primary']).toContain(
      `primary against background has a contrast of ${(Math.floor(contrastRatio('#e6e5fa', '#ffffff') * 100) / 100).toFixed(2)}:1; at least 3:1 is needed`,
    );
  });

  it('names a primary no button text can be read on, and covers both primary rules in one message', () => {
    // #7a7a7a: 4.28:1 with white and 4.40:1 with near-black; its 4.9:1 on black passes the 3:1 rule.
    const midGrey = themeColorProblems({ primary: '#7a7a7a', background: '#000000', text: '#ffffff' });
    expect(Object.keys(midGrey)).toEqual(['colors.primary']);
    expect(midGrey['colors.primary']).toMatch(
      /^button text on primary \(white or near-black\) reaches at most \d\.\d\d:1; at least 4\.5:1 is needed/,
    );
    const both = themeColorProblems({ primary: '#7a7a7a', background: '#808080', text: '#000000' });
    expect(both['colors.primary']).toMatch(/^primary against background .*; and button text on primary .*4\.5:1/);
  });

  it('names malformed colours instead of measuring them', () => {
    expect(themeColorProblems({ primary: 'blue', background: '#ffffff', text: '#000' })).toEqual({
      'colors.primary': 'must be a colour written as #RRGGBB',
      'colors.text': 'must be a colour written as #RRGGBB',
    });
  });
});

describe('themePalette', () => {
  it('covers every colour custom property of styles.css', () => {
    const css = readFileSync(new URL('../../../web/src/shared/styles.css', import.meta.url), 'utf8');
    const root = css.slice(css.indexOf(':root {'), css.indexOf('}', css.indexOf(':root {')));
    const colourProperties = [...root.matchAll(/(--[a-z-]+):\s*#[0-9a-f]{3,8}\b/gi)].map((match) => match[1]);
    expect(colourProperties.length).toBeGreaterThan(10);
    expect(Object.keys(themePalette(LIGHT))).toEqual(expect.arrayContaining(colourProperties));
  });

  it('keeps every pair for the light and dark examples, and makes the dark one’s surfaces dark', () => {
    expect(failingPairs(LIGHT)).toEqual([]);
    expect(failingPairs(DARK)).toEqual([]);
    const dark = themePalette(DARK);
    for (const name of ['--paper', '--card', '--accent-soft', '--ok-soft', '--warn-soft', '--bad-soft']) {
      expect(contrastRatio(dark[name]!, '#000000'), name).toBeLessThan(2);
    }
    expect(dark['--ink']).toBe('#f0f0f0');
    expect(dark['--accent']).toBe('#7dd3fc'); // Already readable: the brand colour is kept.
  });

  it('gives only #rrggbb values, and white or near-black for text on fills', () => {
    for (const colors of [LIGHT, DARK]) {
      const palette = themePalette(colors);
      for (const value of Object.values(palette)) expect(value).toMatch(/^#[0-9a-f]{6}$/);
      expect([palette['--on-accent'], palette['--on-bad']].every((c) => c === '#ffffff' || c === NEAR_BLACK)).toBe(
        true,
      );
    }
  });

  it('keeps every pair for the extremes an accepted theme can reach', () => {
    const extremes: ThemeColors[] = [
      { primary: '#000000', background: '#ffffff', text: '#000000' },
      { primary: '#ffffff', background: '#000000', text: '#ffffff' },
      { primary: '#000000', background: '#767676', text: '#000000' }, // The darkest page black text reads on.
      { primary: '#ffffff', background: '#757575', text: '#000000' },
      { primary: '#000000', background: '#767676', text: '#ffffff' }, // The lightest page white text reads on.
      { primary: '#000000', background: '#ffffff', text: '#767676' },
      { primary: '#ffff00', background: '#000000', text: '#ffffff' },
      { primary: '#0000ff', background: '#ffffff', text: '#000000' },
    ];
    for (const colors of extremes) {
      expect(themeColorProblems(colors), JSON.stringify(colors)).toEqual({});
      expect(failingPairs(colors), JSON.stringify(colors)).toEqual([]);
    }
  });

  it('keeps every pair for a few hundred random accepted themes, light and dark', () => {
    const random = prng(20240611);
    const randomColor = () =>
      `#${Math.floor(random() * 0x1000000)
        .toString(16)
        .padStart(6, '0')}`;
    let accepted = 0;
    let dark = 0;
    const failures: string[] = [];
    for (let tries = 0; accepted < 400 && tries < 100_000; tries++) {
      const colors = { primary: randomColor(), background: randomColor(), text: randomColor() };
      if (Object.keys(themeColorProblems(colors)).length > 0) continue;
      accepted++;
      if (contrastRatio(colors.background, '#000000') < contrastRatio(colors.text, '#000000')) dark++;
      failures.push(...failingPairs(colors).map((failure) => `${JSON.stringify(colors)}: ${failure}`));
    }
    expect(accepted).toBe(400);
    expect(dark).toBeGreaterThan(100);
    expect(400 - dark).toBeGreaterThan(100);
    expect(failures).toEqual([]);
  });
});

describe('themeStylesheet', () => {
  it('sets the palette and the font on :root, and nothing else', () => {
    const css = themeStylesheet(LIGHT, 'serif');
    expect(css).toMatch(/^:root\{[^{}]*\}\n$/);
    const declarations = css.slice(':root{'.length, -'}\n'.length).split(';');
    const palette = themePalette(LIGHT);
    expect(declarations.slice(0, -1)).toEqual(Object.entries(palette).map(([name, value]) => `${name}:${value}`));
    expect(declarations.at(-1)).toBe('font-family:ui-serif, Georgia, "Times New Roman", serif');
    expect(css).not.toContain('color-scheme');
  });

  it('is deterministic, lower-cases colours and marks a dark theme', () => {
    const upper = { primary: '#7DD3FC', background: '#101418', text: '#F0F0F0' };
    const css = themeStylesheet(upper, 'mono');
    expect(css).toBe(themeStylesheet(DARK, 'mono'));
    expect(css).toContain(';color-scheme:dark;');
    expect(css).toContain('font-family:ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace}');
    expect(css).not.toMatch(/#[0-9a-f]*[A-F]/);
    expect(themeStylesheet(LIGHT, 'rounded')).toContain('font-family:ui-rounded, "SF Pro Rounded", "Nunito"');
    expect(themeStylesheet(LIGHT, 'system')).toContain('font-family:system-ui,');
  });

  it('throws on anything but #RRGGBB colours and a known font', () => {
    for (const bad of ['#fff', 'red', '#0000001', '#000000;}body{background:url(x)', '']) {
      expect(() => themeStylesheet({ ...LIGHT, primary: bad }, 'system')).toThrow();
      expect(() => themeStylesheet({ ...LIGHT, text: bad }, 'system')).toThrow();
    }
    expect(() => themeStylesheet(LIGHT, 'comic' as never)).toThrow();
    expect(() => themeStylesheet(LIGHT, '__proto__' as never)).toThrow();
  });
});
