/// <reference types="node" />
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/**
 * The pages' text colours against their backgrounds, read from styles.css, by the WCAG 2 formula:
 * every pair the pages use for text must keep at least 4.5:1 (AA for normal text), so a palette
 * change cannot make a screen unreadable unnoticed.
 */
const css = readFileSync(new URL('../src/shared/styles.css', import.meta.url), 'utf8');
const palette = Object.fromEntries(
  [...css.matchAll(/--([a-z-]+):\s*(#[0-9a-f]{6})\b/g)].map((match) => [match[1], match[2]]),
) as Record<string, string>;
const color = (name: string) => (name.startsWith('#') ? name : (palette[name] ?? `missing --${name}`));

function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const channel = Number.parseInt(hex.slice(i, i + 2), 16) / 255;
    return channel <= 0.03928 ? channel / 12.92 : ((channel + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

function contrast(foreground: string, background: string): number {
  const [a, b] = [luminance(foreground), luminance(background)].sort((x, y) => y - x) as [number, number];
  return (a + 0.05) / (b + 0.05);
}

/** [text, background]: as styles.css pairs them. */
const textPairs: [string, string][] = [
  ['ink', 'card'],
  ['ink', 'paper'],
  ['muted', 'card'],
  ['muted', 'paper'],
  ['accent', 'card'],
  ['accent', 'accent-soft'],
  ['on-accent', 'accent'],
  ['on-accent', 'accent-hover'],
  ['ok', 'ok-soft'],
  ['warn', 'warn-soft'],
  ['bad', 'bad-soft'],
  ['on-bad', 'bad'],
];

describe('the pages’ colours', () => {
  it.each(textPairs)('%s on %s has a contrast of at least 4.5:1', (text, background) => {
    expect(color(text)).toMatch(/^#[0-9a-f]{6}$/);
    expect(color(background)).toMatch(/^#[0-9a-f]{6}$/);
    expect(contrast(color(text), color(background))).toBeGreaterThanOrEqual(4.5);
  });
});
