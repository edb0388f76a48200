/**
 * The languages the audience page and the presenter screen are written in (docs/languages.md).
 * A poll, a session or a workspace names one by its BCP 47 tag; whatever a client sends is read
 * case-insensitively and brought to one of these: a regional variant to its language (`de-AT` →
 * `de`), Portuguese to Brazilian Portuguese (`pt` → `pt-BR`) and Chinese in simplified script to
 * `zh-Hans`. No zod here: the pages read this file too.
 */
export const supportedLanguages = [
  'en',
  'de',
  'fr',
  'es',
  'pt-BR',
  'it',
  'nl',
  'pl',
  'ja',
  'zh-Hans',
  'ar',
  'he',
] as const;
export type SupportedLanguage = (typeof supportedLanguages)[number];

const RIGHT_TO_LEFT: ReadonlySet<string> = new Set(['ar', 'he']);
const LANGUAGE_TAG = /^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{1,8})*$/;

/**
 * The supported language a tag means, or undefined when none: `DE-at` → `de`, `pt-PT` → `pt-BR`,
 * `zh-CN` → `zh-Hans`, `iw` → `he`; `zh-TW` (traditional script), `xx` or `not a tag` → undefined.
 */
export function supportedLanguage(tag: string): SupportedLanguage | undefined {
  if (tag.length > 64 || !LANGUAGE_TAG.test(tag)) return undefined;
  let locale: Intl.Locale;
  try {
    // Intl canonicalises case and legacy codes (`iw` → `he`); maximize() fills in the script (`zh` → Hans).
    locale = new Intl.Locale(Intl.getCanonicalLocales(tag.replaceAll('_', '-'))[0] as string).maximize();
  } catch {
    return undefined;
  }
  switch (locale.language) {
    case 'zh':
      return locale.script === 'Hans' ? 'zh-Hans' : undefined;
    case 'pt':
      return 'pt-BR';
    default:
      return (supportedLanguages as readonly string[]).includes(locale.language)
        ? (locale.language as SupportedLanguage)
        : undefined;
  }
}

/** `rtl` for the languages written right to left (Arabic, Hebrew), else `ltr`. */
export function textDirection(language: SupportedLanguage): 'ltr' | 'rtl' {
  return RIGHT_TO_LEFT.has(language) ? 'rtl' : 'ltr';
}
