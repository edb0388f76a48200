import type { ComponentChildren, VNode } from 'preact';
import type en from '../i18n/messages/en.json';

/**
 * The pages' words, in the language the server chose (`?lang=`, then the browser's
 * Accept-Language). The server writes into the page, before its script, a data block naming the
 * language, the languages it offers and the one catalog to load:
 *
 *   <script type="application/json" id="pollkit-page">
 *     {"language":"de","languages":["en","de",…],"catalog":"/assets/messages-de.js?v=…"}
 *   </script>
 *
 * Each page's main.tsx awaits {@link loadMessages} once, before its first render; every string the
 * page writes then comes from {@link t}. A catalog (web/src/i18n/messages/<tag>.json, ICU
 * MessageFormat) is compiled at build time into a small ES module (`messages-<tag>.js`) whose
 * default export maps each key to a function of the message's arguments: no parser in the page, and
 * no catalog in its bundle. Without the data block (or with a malformed one) the page is English.
 */

/** A message's key: the keys of the English catalog, so a typo fails the type check. */
export type MessageKey = keyof typeof en;

/** A message's arguments: numbers (plurals, `{n, number}`) and strings (names, slide text). */
export type MessageValues = Record<string, string | number>;

type Catalog = Record<string, (values?: MessageValues) => string>;

/** This page's English catalog: what a page falls back to (the server names it after the page). */
const ENGLISH_CATALOG = globalThis.location?.pathname.startsWith('/present/')
  ? '/assets/messages-present-en.js'
  : '/assets/messages-join-en.js';
const RTL_LANGUAGES = new Set(['ar', 'he', 'fa', 'ur']);

interface PageData {
  language: string;
  languages: string[];
  catalog: string;
}

/** A BCP 47 tag as the browser writes it (`pt-BR`), or undefined when it is none. */
function languageTag(value: unknown): string | undefined {
  if (typeof value !== 'string' || value === '') return undefined;
  try {
    return Intl.getCanonicalLocales(value)[0];
  } catch {
    return undefined;
  }
}

/** The server's data block, checked field by field; unknown fields are ignored. */
export function readPageData(doc: Document = document): PageData {
  const fallback: PageData = { language: 'en', languages: ['en'], catalog: ENGLISH_CATALOG };
  let data: { language?: unknown; languages?: unknown; catalog?: unknown };
  try {
    data = JSON.parse(doc.getElementById('pollkit-page')?.textContent ?? '');
  } catch {
    return fallback;
  }
  const language = languageTag(data?.language);
  // A same-origin path (never `//host/…`): the CSP allows scripts from this server only anyway.
  const catalog = typeof data?.catalog === 'string' && /^\/(?!\/)\S*$/.test(data.catalog) ? data.catalog : undefined;
  if (!language || !catalog) return fallback;
  const offered = Array.isArray(data.languages) ? data.languages.map(languageTag) : [];
  const languages = [...new Set(offered.filter((tag) => tag !== undefined))];
  return { language, languages: languages.includes(language) ? languages : [language, ...languages], catalog };
}

let messages: Catalog = {};
/** The page's language: the one whose catalog was loaded. */
export let language = 'en';
/** The languages the participant may choose from (the audience page's picker). */
export let languages: readonly string[] = ['en'];
/** The writing direction: the document's `dir` if the server set it, else the language's. */
export let direction: 'ltr' | 'rtl' = 'ltr';

/** How a catalog module is loaded: `import()` in the page, something else in a test. */
type Importer = (url: string) => Promise<unknown>;

async function importCatalog(url: string, importer: Importer): Promise<Catalog> {
  const module = (await importer(url)) as { default?: unknown };
  if (typeof module.default !== 'object' || module.default === null) throw new TypeError(`${url} is no catalog`);
  return module.default as Catalog;
}

/**
 * Reads the data block and imports its catalog, once, before the first render. A catalog that does
 * not load (a stale URL, a network error) falls back to English, so the page never stays blank.
 */
export async function loadMessages(doc: Document = document, importer: Importer = (url) => import(url)): Promise<void> {
  const page = readPageData(doc);
  languages = page.languages;
  try {
    messages = await importCatalog(page.catalog, importer);
    language = page.language;
  } catch (error) {
    if (page.catalog === ENGLISH_CATALOG) throw error;
    console.warn(`The ${page.language} messages did not load; showing English`, error);
    messages = await importCatalog(ENGLISH_CATALOG, importer);
    language = 'en';
  }
  const root = doc.documentElement;
  // The server's `dir` is for the language it chose: not for English after a failed import.
  const dir = language === page.language ? root.dir.toLowerCase() : '';
  direction = dir === 'rtl' || dir === 'ltr' ? dir : RTL_LANGUAGES.has(language.split('-')[0]!) ? 'rtl' : 'ltr';
  // What the page now shows: the language of its words, and the direction they are laid out in.
  root.lang = language;
  root.dir = direction;
}

const warned = new Set<string>();

/**
 * The message `key` in the page's language, formatted with `values`. A key the catalog lacks (a
 * translation behind the English one) shows as the key itself, with one warning in the console.
 */
export function t(key: MessageKey, values?: MessageValues): string {
  const message = messages[key];
  if (typeof message !== 'function') {
    if (!warned.has(key)) {
      warned.add(key);
      console.warn(`No "${key}" message in the ${language} catalog`);
    }
    return key;
  }
  return message(values);
}

/**
 * A message some of whose arguments are elements (`Your score: {score}` with the score in
 * `<strong>`): formatted with a placeholder for each element, then split around them, so the
 * translation decides where each goes.
 */
export function tx(key: MessageKey, values: Record<string, string | number | VNode>): ComponentChildren[] {
  const elements: VNode[] = [];
  const plain: MessageValues = {};
  for (const [name, value] of Object.entries(values)) {
    if (typeof value === 'object') {
      plain[name] = `\uE000${elements.length}\uE001`;
      elements.push(value);
    } else {
      plain[name] = value;
    }
  }
  return t(key, plain)
    .split(/\uE000(\d+)\uE001/)
    .map((part, index) => (index % 2 === 1 ? elements[Number(part)] : part));
}

/** The message for an API error by its code (`error.session_full`…), else a generic one quoting the server. */
export function errorMessage(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  const key = `error.${String(code)}` as MessageKey;
  if (typeof code === 'string' && typeof messages[key] === 'function') return t(key);
  return t('error.generic', { detail: error instanceof Error ? error.message : String(error) });
}

const numberFormats = new Map<string, Intl.NumberFormat>();

/** A number in the page's language (its digits, separators and grouping). */
export function formatNumber(value: number, options?: Intl.NumberFormatOptions): string {
  const id = `${language}${JSON.stringify(options ?? {})}`;
  let format = numberFormats.get(id);
  if (!format) {
    format = new Intl.NumberFormat(language, options);
    numberFormats.set(id, format);
  }
  return format.format(value);
}

/** A score or a number of points: grouped from five digits on (`1000`, `12,500`), as the catalog's `::group-min2`. */
export function formatScore(value: number): string {
  return formatNumber(value, { useGrouping: 'min2' });
}

/** Items as a list in the page's language (`A, B, C`). */
export function formatList(items: readonly string[]): string {
  return new Intl.ListFormat(language, { type: 'unit' }).format(items);
}

/**
 * Each supported language by its own name, as a menu of languages shows them. A table of twelve
 * words rather than `Intl.DisplayNames`, which the menu would build for every language on every
 * render of the page.
 */
const AUTONYMS: Readonly<Record<string, string>> = {
  en: 'English',
  de: 'Deutsch',
  fr: 'Français',
  es: 'Español',
  'pt-BR': 'Português (Brasil)',
  it: 'Italiano',
  nl: 'Nederlands',
  pl: 'Polski',
  ja: '日本語',
  'zh-Hans': '简体中文',
  ar: 'العربية',
  he: 'עברית',
};

/** A language's own name for itself (`Deutsch`, `日本語`), as a menu entry. */
export function languageName(tag: string): string {
  return AUTONYMS[tag] ?? tag;
}
