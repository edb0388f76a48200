import { decode } from 'html-entities';

/** Elements whose end starts a new run of words: they become a space, so words do not run together. */
const BLOCK_ELEMENTS = new Set([
  'p',
  'div',
  'br',
  'li',
  'ul',
  'ol',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'tr',
  'td',
  'th',
  'table',
  'blockquote',
  'pre',
  'hr',
]);

/** A tag's start at the current position; the tag runs to the next `>`, as a browser reads it. */
const TAG_START = /<\/?([A-Za-z][A-Za-z0-9]*)/y;

/**
 * Question text as a slide shows it: plain text. HTML tags are removed (a block element or `<br>`
 * becomes a space), comments and `<script>`/`<style>` content dropped, character references decoded
 * (`&amp;` -> `&`, `&#233;` -> `é`), whitespace runs made one space, the ends trimmed. Entities are
 * decoded after the tags are gone, so `&lt;b&gt;` stays the text `<b>`.
 *
 * One pass, linear in the text's length however it is built: an uploaded file of 2 MiB of `<a `
 * or `<!--` that never close must cost what any 2 MiB costs. A `<` that starts no tag is text.
 */
export function plainTextOfHtml(html: string): string {
  const closer = new CloserSearch(html);
  let out = '';
  let from = 0;
  let at = html.indexOf('<');
  while (at !== -1) {
    out += html.slice(from, at);
    const commentEnd = html.startsWith('<!--', at) ? closer.find('-->', at + 4) : -1;
    if (commentEnd !== -1) {
      out += ' ';
      from = commentEnd + 3;
    } else if (html.startsWith('<!--', at)) {
      // Never closed: text, as a `<` that starts no tag is.
      out += '<';
      from = at + 1;
    } else {
      TAG_START.lastIndex = at;
      const tag = TAG_START.exec(html);
      const tagEnd = tag ? closer.find('>', at) : -1;
      if (!tag || tagEnd === -1) {
        out += '<';
        from = at + 1;
      } else {
        const name = (tag[1] as string).toLowerCase();
        from = tagEnd + 1;
        const isOpening = !tag[0].startsWith('</');
        const end = (name === 'script' || name === 'style') && isOpening ? closer.find(`</${name}`, from) : -1;
        if (end !== -1) {
          const endTagEnd = closer.find('>', end);
          from = endTagEnd === -1 ? html.length : endTagEnd + 1;
          out += ' ';
        } else if (BLOCK_ELEMENTS.has(name)) {
          out += ' ';
        }
      }
    }
    at = html.indexOf('<', from);
  }
  return finish(out + html.slice(from));
}

/**
 * Finds a closer (`>`, `-->`, `</script`) at or after a position, case-insensitively. Once one is known
 * to be absent past some position it is absent past any later one, so many openers that are never
 * closed cost one scan, not one each.
 */
class CloserSearch {
  private lower: string | undefined;
  private readonly absentFrom = new Map<string, number>();
  constructor(private readonly html: string) {}

  private readonly lastFound = new Map<string, number>();
  private readonly previousFrom = new Map<string, number>();

  find(closer: string, from: number): number {
    const absent = this.absentFrom.get(closer);
    if (absent !== undefined && from >= absent) return -1;
    // The last one found is the answer again for any position up to it: openers between a tag's
    // start and its `>` do not rescan.
    const last = this.lastFound.get(closer);
    if (last !== undefined && from <= last && (this.previousFrom.get(closer) ?? Infinity) <= from) return last;
    this.lower ??= this.html.toLowerCase();
    const at = this.lower.indexOf(closer, from);
    if (at === -1) this.absentFrom.set(closer, Math.min(from, absent ?? from));
    else {
      this.lastFound.set(closer, at);
      this.previousFrom.set(closer, from);
    }
    return at;
  }
}

function finish(text: string): string {
  return collapseWhitespace(decode(text, { level: 'html5' }));
}

/** Whether the text holds markup that `plainTextOfHtml` would remove or decode. */
export function hasMarkup(text: string): boolean {
  return /<\/?[A-Za-z][^<>]*>|&(#\d+|#x[0-9a-f]+|[a-z]+\d*);/i.test(text);
}

/** Runs of whitespace (non-breaking spaces included) as one space, trimmed. */
export function collapseWhitespace(text: string): string {
  return text.replace(/[\s\u00a0]+/g, ' ').trim();
}

/** Private-use stand-ins for backslash-escaped characters, so that `\*` is not taken for emphasis. */
const ESCAPED_BASE = 0xe000;

/**
 * Markdown as the words a reader sees: emphasis, code, strike-through, link and image syntax,
 * headings, quotes and bullets removed. Every pattern scans from one marker to the next at most, so
 * the whole is linear in the text's length.
 */
export function plainTextOfMarkdown(markdown: string): string {
  return markdown
    .replace(/\\([!-/:-@[-`{-~])/g, (_, char: string) => String.fromCharCode(ESCAPED_BASE + char.charCodeAt(0)))
    .replace(/!?\[([^[\]\n]*)\]\([^()\n]*\)/g, '$1')
    .replace(/^[ \t]{0,3}#{1,6}[ \t]+/gm, '')
    .replace(/^[ \t]{0,3}>[ \t]?/gm, '')
    .replace(/^[ \t]*[-*+][ \t]+/gm, '')
    .replace(/(?<!`)(`+)([^`]+)\1(?!`)/g, '$2')
    .replace(/\*\*([^*]+)\*\*/g, '$1')
    .replace(/__([^_]+)__/g, '$1')
    .replace(/\*([^*\s](?:[^*]*[^*\s])?)\*/g, '$1')
    .replace(/(^|\W)_([^_\s](?:[^_]*[^_\s])?)_(?!\w)/g, '$1$2')
    .replace(/~~([^~]+)~~/g, '$1')
    .replace(/[\ue021-\ue07e]/g, (char) => String.fromCharCode(char.charCodeAt(0) - ESCAPED_BASE));
}
