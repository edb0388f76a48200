import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { decode as decodeHtml } from 'html-entities';
import {
  type Bank,
  type BankChange,
  type BankImage,
  type BankOption,
  type BankQuestion,
  BankRefused,
  type BankSlide,
  refusePastQuestionLimit,
  type SkipReason,
} from '../bank.js';
import { collapseWhitespace, plainTextOfHtml, plainTextOfMarkdown } from './plain-text.js';

/**
 * Moodle XML (`<quiz><question type="…">…</question>…</quiz>`) -> a Bank.
 *
 * The document is never parsed whole: it is cut into `<question>` blocks by a linear scan, and each
 * block is validated and parsed on its own, so that invalid XML in one question costs that question
 * only. The scan also refuses any document declaring entities (`<!ENTITY`, an XXE or a billion
 * laughs) before anything is parsed, and the parser itself expands no entity at all: the five XML
 * entities and character references are decoded here, where nothing can recurse.
 */
export function readMoodleXml(text: string): Bank {
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const blocks = splitQuestions(source);
  const questions: BankQuestion[] = [];
  for (const block of blocks) {
    let read: ReadQuestion | 'category';
    try {
      read = readBlock(source.slice(block.start, block.end), block);
    } catch (error) {
      // Whatever one question holds, it costs that question only.
      const message = error instanceof Error ? error.message : String(error);
      read = {
        line: block.line,
        skipped: { reason: 'malformed', message: `It could not be read: ${message}` },
        changes: [],
      };
    }
    if (read === 'category') continue;
    questions.push({ number: questions.length + 1, ...read });
    refusePastQuestionLimit(questions);
  }
  return { questions };
}

// ---------------------------------------------------------------------------------------------
// Cutting the document into question blocks

interface Block {
  start: number;
  end: number;
  /** 1-based line of the `<question` start tag. */
  line: number;
  /** False when the file ended, or another `<question` began, before its `</question>`. */
  closed: boolean;
}

/**
 * One pass over the markup of the whole document. Each `<` is looked at once and every skip is an
 * `indexOf` forward, so the cost is linear whatever the input (unclosed comments and CDATA included:
 * an opener without its end is read as text rather than swallowing the rest of the file).
 */
function splitQuestions(source: string): Block[] {
  const blocks: Block[] = [];
  const lines = new LineCounter(source);
  let open: { start: number; line: number } | undefined;
  let rootSeen = false;
  /** End of the last markup construct before the root: only whitespace may come between them. */
  let prologEnd = 0;
  let pos = 0;

  const find = forwardSearch(source);
  const refuseUnlessProlog = (at: number) => {
    if (!rootSeen && source.slice(prologEnd, at).trim() !== '') notMoodleXml(source, at, lines);
  };

  while (pos < source.length) {
    const lt = source.indexOf('<', pos);
    if (lt < 0) break;
    refuseUnlessProlog(lt);
    let next = lt + 1;
    const bang = source.charCodeAt(lt + 1) === 0x21; /* "<!" */
    if (bang && source.startsWith('<!--', lt)) {
      const close = find('-->', lt + 4);
      next = close < 0 ? lt + 4 : close + 3;
    } else if (bang && source.startsWith('<![CDATA[', lt)) {
      const close = find(']]>', lt + 9);
      next = close < 0 ? lt + 9 : close + 3;
    } else if (bang && startsWithIgnoringCase(source, '<!ENTITY', lt)) {
      refuseEntities(lines.lineAt(lt));
    } else if (bang && startsWithIgnoringCase(source, '<!DOCTYPE', lt)) {
      next = endOfDoctype(source, lt);
      if (/<!ENTITY/i.test(source.slice(lt, next))) refuseEntities(lines.lineAt(lt));
    } else if (source.startsWith('<?', lt)) {
      const close = find('?>', lt + 2);
      next = close < 0 ? lt + 2 : close + 2;
    } else if (bang && source.startsWith('<!', lt)) {
      next = lt + 2;
    } else if (source.startsWith('</question', lt) && isNameEnd(source, lt + 10)) {
      const close = find('>', lt);
      next = close < 0 ? source.length : close + 1;
      if (open) {
        blocks.push({ start: open.start, end: next, line: open.line, closed: true });
        open = undefined;
      }
    } else if (source.startsWith('</', lt)) {
      next = lt + 2;
    } else if (isNameStart(source.charCodeAt(lt + 1))) {
      if (!rootSeen) {
        if (!(source.startsWith('<quiz', lt) && isNameEnd(source, lt + 5))) notMoodleXml(source, lt, lines);
        rootSeen = true;
      } else if (source.startsWith('<question', lt) && isNameEnd(source, lt + 9)) {
        if (open) blocks.push({ start: open.start, end: lt, line: open.line, closed: false });
        const close = find('>', lt);
        const line = lines.lineAt(lt);
        if (close >= 0 && source.charCodeAt(close - 1) === 0x2f /* "/" */) {
          blocks.push({ start: lt, end: close + 1, line, closed: true });
          open = undefined;
        } else {
          open = { start: lt, line };
        }
        next = close < 0 ? source.length : close + 1;
      }
    }
    if (!rootSeen) prologEnd = next;
    pos = next;
  }
  if (!rootSeen) notMoodleXml(source, source.length, lines);
  if (open) blocks.push({ start: open.start, end: source.length, line: open.line, closed: false });
  return blocks;
}

/**
 * `indexOf` for a scan whose position only moves forward, remembering where each needle was last
 * found (or that it was not): a thousand unclosed `<!--` ask for the `-->` a thousand times, and only
 * the first search walks the rest of the document.
 */
function forwardSearch(source: string): (needle: string, from: number) => number {
  const last = new Map<string, number>();
  return (needle, from) => {
    const found = last.get(needle);
    if (found !== undefined && (found < 0 || found >= from)) return found;
    const next = source.indexOf(needle, from);
    last.set(needle, next);
    return next;
  };
}

function refuseEntities(line: number): never {
  throw new BankRefused('The file declares XML entities (<!ENTITY>), which are never expanded: it was refused.', [
    { line, message: 'An <!ENTITY> declaration: remove the DOCTYPE and its entities.' },
  ]);
}

/** The end of `<!DOCTYPE … [ … ]>`: brackets counted, literals and comments passed over, in one pass. */
function endOfDoctype(source: string, at: number): number {
  let depth = 0;
  let quote = '';
  for (let pos = at + 9; pos < source.length; pos++) {
    const char = source[pos];
    if (quote) {
      if (char === quote) quote = '';
    } else if (char === '<' && source.startsWith('<!--', pos)) {
      const close = source.indexOf('-->', pos + 4);
      if (close < 0) return source.length;
      pos = close + 2;
    } else if (char === '"' || char === "'") {
      quote = char;
    } else if (char === '[') {
      depth++;
    } else if (char === ']') {
      depth = Math.max(0, depth - 1);
    } else if (char === '>' && depth === 0) {
      return pos + 1;
    }
  }
  return source.length;
}

function notMoodleXml(source: string, at: number, lines: LineCounter): never {
  const found = /^<([A-Za-z_][\w.:-]*)/.exec(source.slice(at, at + 100))?.[1];
  throw new BankRefused('The file is not Moodle XML: it has no <quiz> element.', [
    {
      line: lines.lineAt(Math.min(at, source.length)),
      message: found
        ? `The document's root element is <${found}>, not <quiz>.`
        : 'Moodle XML starts with <?xml …?> and a <quiz> element.',
    },
  ]);
}

function isNameStart(code: number): boolean {
  return (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95 || code === 58 || code > 127;
}

/** Whether a tag name ends at `at` (so `<question` is not `<questiontext`). */
function isNameEnd(source: string, at: number): boolean {
  if (at >= source.length) return true;
  const code = source.charCodeAt(at);
  return code === 0x3e || code === 0x2f || code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;
}

function startsWithIgnoringCase(source: string, prefix: string, at: number): boolean {
  return source.slice(at, at + prefix.length).toUpperCase() === prefix;
}

/** Line numbers of offsets asked in increasing order, each newline found once. */
class LineCounter {
  private line = 1;
  /** The first newline not yet counted; -1 when there is none left. */
  private next: number;
  constructor(private readonly text: string) {
    this.next = text.indexOf('\n');
  }

  lineAt(offset: number): number {
    while (this.next >= 0 && this.next < offset) {
      this.line++;
      this.next = this.text.indexOf('\n', this.next + 1);
    }
    return this.line;
  }
}

// ---------------------------------------------------------------------------------------------
// One question block

type ReadQuestion = Omit<BankQuestion, 'number'>;

/** An element of a parsed block; text children are already decoded (CDATA kept as written). */
interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlNode[];
}
type XmlNode = XmlElement | { text: string; cdata: boolean };

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  // No entity is expanded by the parser, not even DOCTYPE ones: see decodeXmlText.
  processEntities: false,
  htmlEntities: false,
  trimValues: false,
  parseTagValue: false,
  parseAttributeValue: false,
  cdataPropName: '#cdata',
  ignoreDeclaration: true,
  ignorePiTags: true,
});

function readBlock(xml: string, block: Block): ReadQuestion | 'category' {
  const declaredType = /^<question\b[^>]*?\btype\s*=\s*(["'])([^"']*)\1/.exec(xml)?.[2]?.trim().toLowerCase();
  if (declaredType === 'category') return 'category';
  const malformed = (message: string, name?: string): ReadQuestion => ({
    ...(name ? { name } : {}),
    line: block.line,
    skipped: { reason: 'malformed', message },
    changes: [],
  });
  if (!block.closed) return malformed('The question has no closing </question> tag.');

  const valid = XMLValidator.validate(xml);
  if (valid !== true) {
    // The validator counts lines from the question's start; so do its messages ("opened in line 3").
    const message = valid.err.msg.replace(
      /\bline (\d+)/g,
      (_, line: string) => `line ${block.line + Number(line) - 1}`,
    );
    return malformed(`Invalid XML at line ${block.line + valid.err.line - 1}: ${message}`);
  }
  let question: XmlElement | undefined;
  try {
    question = toElements(parser.parse(xml) as unknown[]).find((node) => node.name === 'question');
  } catch (error) {
    return malformed(`Invalid XML: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!question) return malformed('The question could not be read.');

  const name = collapseWhitespace(textOf(child(child(question, 'name'), 'text'))) || undefined;
  const type = question.attrs.type?.trim().toLowerCase();
  if (!type) return malformed('The <question> has no type attribute.', name);

  const place = { ...(name ? { name } : {}), line: block.line };
  const kind = SLIDE_KINDS[type];
  if (!kind) {
    const label = UNSUPPORTED_LABELS[type];
    const message = label
      ? `A ${label} question (type "${type}") has no Pollkit slide.`
      : `A question of type "${type}" has no Pollkit slide.`;
    return skip(place, 'unsupported_kind', message);
  }

  const changes: BankChange[] = [];
  const questionText = child(question, 'questiontext');
  if (!questionText) return malformed('The question has no <questiontext>.', name);
  const content = readRich(questionText, question);
  if (content.droppedMedia.length > 0) changes.push(mediaDropped(content.droppedMedia));
  let text = content.text;
  if (!text) {
    if (content.image) {
      text = content.alt || name || '';
    } else if (content.hasAudio) {
      return skip(place, 'audio', 'Its only content is audio (or video), which a slide cannot show.');
    }
    if (!text) return malformed('The question has no text.', name);
  }
  const image = content.image ? { image: content.image } : {};
  const answers = children(question, 'answer');

  let slide: BankSlide;
  switch (kind) {
    case 'content':
      slide = { kind: 'content', text, ...image };
      break;
    case 'essay':
      slide = { kind: 'open_ended', text, ...image };
      break;
    case 'shortanswer': {
      slide = { kind: 'open_ended', text, ...image };
      const accepted = answers.map((answer) => collapseWhitespace(textOf(child(answer, 'text')))).filter(Boolean);
      if (accepted.length > 0) {
        changes.push({
          reason: 'answers_dropped',
          message: `Its accepted answers (${accepted.join(', ')}) were dropped: an open-ended slide has none.`,
        });
      }
      break;
    }
    case 'truefalse': {
      const read = readTrueFalse(answers);
      if (typeof read === 'string') return malformed(read, name);
      slide = { kind: 'choice', text, options: [{ label: 'True' }, { label: 'False' }], ...read, ...image };
      break;
    }
    case 'multichoice': {
      const read = readMultichoice(question, answers, changes);
      if (typeof read === 'string') return malformed(read, name);
      slide = { kind: 'choice', text, ...read, ...image };
      break;
    }
  }
  return { ...place, slide, changes };
}

function skip(place: { name?: string; line: number }, reason: SkipReason, message: string): ReadQuestion {
  return { ...place, skipped: { reason, message }, changes: [] };
}

type SlideKind = 'content' | 'essay' | 'shortanswer' | 'truefalse' | 'multichoice';

const SLIDE_KINDS: Partial<Record<string, SlideKind>> = {
  description: 'content',
  essay: 'essay',
  shortanswer: 'shortanswer',
  truefalse: 'truefalse',
  multichoice: 'multichoice',
};

/** What a person calls the Moodle types Pollkit has no slide for. */
const UNSUPPORTED_LABELS: Partial<Record<string, string>> = {
  matching: 'matching',
  randomsamatch: 'random short-answer matching',
  numerical: 'numerical',
  calculated: 'calculated',
  calculatedsimple: 'simple calculated',
  calculatedmulti: 'calculated multichoice',
  cloze: 'Cloze (embedded answers)',
  multianswer: 'Cloze (embedded answers)',
  ddwtos: 'drag and drop into text',
  gapselect: 'select missing words',
  ddimageortext: 'drag and drop onto image',
  ddmarker: 'drag and drop markers',
  ordering: 'ordering',
  random: 'random',
};

function readTrueFalse(answers: XmlElement[]): { correct: number[]; multiple: false } | string {
  if (answers.length === 0) return 'The true/false question has no <answer> elements.';
  // Moodle writes the answers as "true" and "false"; in a hand-made file, their order says which.
  const fractions: [number, number] = [0, 0];
  answers.slice(0, 2).forEach((answer, index) => {
    const said = collapseWhitespace(textOf(child(answer, 'text'))).toLowerCase();
    const which = said === 'true' ? 0 : said === 'false' ? 1 : index;
    fractions[which] = fractionOf(answer);
  });
  return { correct: [0, 1].filter((index) => fractions[index]! > 0), multiple: false };
}

function readMultichoice(
  question: XmlElement,
  answers: XmlElement[],
  changes: BankChange[],
): { options: BankOption[]; correct: number[]; multiple: boolean } | string {
  if (answers.length === 0) return 'The multiple-choice question has no <answer> elements.';
  const options: BankOption[] = [];
  const correct: number[] = [];
  const dropped: string[] = [];
  let weighted = false;
  for (const answer of answers) {
    const rich = readRich(answer, undefined);
    dropped.push(...rich.droppedMedia);
    const label = rich.text || (rich.image ? rich.alt : '');
    // Moodle itself ignores an answer left blank.
    if (!label && !rich.image) continue;
    const fraction = fractionOf(answer);
    if (fraction !== 0 && fraction !== 100) weighted = true;
    if (fraction > 0) correct.push(options.length);
    options.push({ label, ...(rich.image ? { image: rich.image } : {}) });
  }
  if (dropped.length > 0) changes.push(mediaDropped(dropped));
  if (options.length === 0) return 'The multiple-choice question has only blank answers.';
  if (options.length === 1) return 'The multiple-choice question has a single answer; a slide needs two options.';
  if (weighted) {
    changes.push({
      reason: 'weights_simplified',
      message: 'Its partial-credit weights were simplified: every answer with a positive weight counts as correct.',
    });
  }
  const single = collapseWhitespace(textOf(child(question, 'single'))).toLowerCase();
  return { options, correct, multiple: single === 'false' || single === '0' };
}

function fractionOf(answer: XmlElement): number {
  const fraction = Number.parseFloat(answer.attrs.fraction ?? '0');
  return Number.isFinite(fraction) ? fraction : 0;
}

function mediaDropped(names: string[]): BankChange {
  return {
    reason: 'media_dropped',
    message: `Embedded media a slide cannot show was left out: ${[...new Set(names)].join(', ')}.`,
  };
}

// ---------------------------------------------------------------------------------------------
// Text with its embedded files

interface EmbeddedFile {
  name: string;
  /** Folder, `/` unless the file says otherwise; always ends with `/`. */
  path: string;
  bytes: Buffer;
  kind: 'image' | 'media' | 'other';
}

interface Rich {
  text: string;
  image?: BankImage;
  /** The `alt` of the `<img>` the image came from. */
  alt: string;
  /** Audio or video in the text or its files. */
  hasAudio: boolean;
  /** Names of what was left out: files that are not images, audio and video, further images. */
  droppedMedia: string[];
}

/**
 * The `<text>` of a `<questiontext>` or `<answer>` and the `<file>`s beside it. `@@PLUGINFILE@@/x.png`
 * in an `<img>` names one of those files; the first image referenced (else the first image file)
 * becomes the image. Audio and video elements are cut from the text, so that a question whose only
 * content is a recording has no text left.
 */
function readRich(container: XmlElement, question: XmlElement | undefined): Rich {
  const textElement = child(container, 'text');
  const format = (container.attrs.format ?? 'html').toLowerCase();
  const files = children(container, 'file').map(readFile);
  // Moodle 1.9 put a question's image beside the question text, not in it.
  const legacy = question ? legacyImage(question) : undefined;
  if (legacy) files.push(legacy);

  const html = textElement ? htmlOf(textElement) : '';
  const scan = format === 'plain_text' ? emptyScan(html) : scanHtml(html);
  const used = new Set<EmbeddedFile>();
  const images: { image: BankImage; alt: string }[] = [];
  let hasAudio = scan.hasMedia;
  const droppedMedia: string[] = [...scan.mediaNames];

  for (const img of scan.images) {
    if (img.src.startsWith('data:')) {
      const bytes = dataUriImage(img.src);
      if (bytes) images.push({ image: { bytes }, alt: img.alt });
      continue;
    }
    if (/^https?:\/\//i.test(img.src)) {
      // Linked, not embedded: resolved by address when the poll is saved, as inline media are.
      images.push({ image: { url: img.src }, alt: img.alt });
      continue;
    }
    const file = resolvePluginFile(files, img.src);
    if (!file || used.has(file)) continue;
    used.add(file);
    if (file.kind === 'image') images.push({ image: { bytes: file.bytes, name: file.name }, alt: img.alt });
  }
  for (const file of files) {
    if (file.kind === 'image') {
      if (!used.has(file)) images.push({ image: { bytes: file.bytes, name: file.name }, alt: '' });
    } else {
      if (file.kind === 'media') hasAudio = true;
      droppedMedia.push(file.name);
    }
  }
  const [first, ...more] = images;
  for (const extra of more)
    droppedMedia.push(extra.image.name ?? ('url' in extra.image ? extra.image.url : 'an inline image'));

  return {
    text: textOfFormat(format, scan.text),
    ...(first ? { image: first.image } : {}),
    alt: collapseWhitespace(first?.alt ?? ''),
    hasAudio,
    droppedMedia,
  };
}

/**
 * A Moodle text in its `format`: `plain_text` as written, `markdown` as the words a reader sees, and
 * `html` or `moodle_auto_format` (HTML with line breaks kept) as plain text.
 */
function textOfFormat(format: string, text: string): string {
  if (format === 'plain_text') return collapseWhitespace(text);
  if (format === 'markdown') return plainTextOfHtml(plainTextOfMarkdown(text));
  return plainTextOfHtml(text);
}

const IMAGE_EXTENSIONS = new Set(['png', 'jpg', 'jpeg', 'jpe', 'gif', 'webp', 'bmp', 'tif', 'tiff', 'avif']);
const MEDIA_EXTENSIONS = new Set([
  'mp3',
  'wav',
  'ogg',
  'oga',
  'm4a',
  'aac',
  'flac',
  'opus',
  'wma',
  'mid',
  'midi',
  'mp4',
  'm4v',
  'webm',
  'ogv',
  'mov',
  'avi',
  'wmv',
  'mkv',
  'mpg',
  'mpeg',
]);

function extensionOf(name: string): string {
  const match = /\.([A-Za-z0-9]+)$/.exec(name.split(/[?#]/)[0] ?? '');
  return match ? match[1]!.toLowerCase() : '';
}

function readFile(element: XmlElement): EmbeddedFile {
  const name = (element.attrs.name ?? '').trim();
  let path = (element.attrs.path ?? '/').trim() || '/';
  if (!path.startsWith('/')) path = `/${path}`;
  if (!path.endsWith('/')) path = `${path}/`;
  const encoding = (element.attrs.encoding ?? 'base64').toLowerCase();
  const bytes = encoding === 'base64' ? Buffer.from(textOf(element), 'base64') : Buffer.alloc(0);
  return { name, path, bytes, kind: fileKind(name, bytes) };
}

function fileKind(name: string, bytes: Buffer): EmbeddedFile['kind'] {
  const extension = extensionOf(name);
  if (IMAGE_EXTENSIONS.has(extension)) return 'image';
  if (MEDIA_EXTENSIONS.has(extension)) return 'media';
  if (extension) return 'other';
  // No extension: the first bytes say what it is.
  if (looksLikeImage(bytes)) return 'image';
  if (looksLikeMedia(bytes)) return 'media';
  return 'other';
}

function looksLikeImage(bytes: Buffer): boolean {
  const ascii = bytes.subarray(0, 12).toString('latin1');
  return (
    ascii.startsWith('\x89PNG') ||
    ascii.startsWith('\xff\xd8\xff') ||
    ascii.startsWith('GIF8') ||
    ascii.startsWith('BM') ||
    (ascii.startsWith('RIFF') && ascii.slice(8, 12) === 'WEBP')
  );
}

function looksLikeMedia(bytes: Buffer): boolean {
  const ascii = bytes.subarray(0, 12).toString('latin1');
  return (
    ascii.startsWith('ID3') ||
    ascii.startsWith('OggS') ||
    ascii.startsWith('fLaC') ||
    (ascii.startsWith('RIFF') && ascii.slice(8, 12) === 'WAVE') ||
    ascii.slice(4, 8) === 'ftyp'
  );
}

function legacyImage(question: XmlElement): EmbeddedFile | undefined {
  const base64 = textOf(child(question, 'image_base64')).trim();
  if (!base64) return undefined;
  const name =
    collapseWhitespace(textOf(child(question, 'image')))
      .split('/')
      .pop() || 'image';
  const bytes = Buffer.from(base64, 'base64');
  return { name, path: '/', bytes, kind: extensionOf(name) ? fileKind(name, bytes) : 'image' };
}

const PLUGINFILE = '@@PLUGINFILE@@';

/** `@@PLUGINFILE@@/folder/x%20y.png` -> the file named `x y.png` in `/folder/` (else any `x y.png`). */
function resolvePluginFile(files: EmbeddedFile[], src: string): EmbeddedFile | undefined {
  if (!src.startsWith(PLUGINFILE)) return undefined;
  let path = src.slice(PLUGINFILE.length).split(/[?#]/)[0] ?? '';
  try {
    path = decodeURIComponent(path);
  } catch {
    // A stray `%` is a file name's own character.
  }
  if (!path.startsWith('/')) path = `/${path}`;
  const name = path.slice(path.lastIndexOf('/') + 1);
  return files.find((file) => file.path + file.name === path) ?? files.find((file) => file.name === name);
}

function dataUriImage(src: string): Buffer | undefined {
  const match = /^data:image\/[\w.+-]+;base64,/i.exec(src);
  return match ? Buffer.from(src.slice(match[0].length), 'base64') : undefined;
}

interface HtmlScan {
  /** The HTML without audio, video, and links to media files. */
  text: string;
  images: { src: string; alt: string }[];
  hasMedia: boolean;
  /** Media named in the HTML only (not embedded). */
  mediaNames: string[];
}

function emptyScan(text: string): HtmlScan {
  return { text, images: [], hasMedia: false, mediaNames: [] };
}

const MEDIA_ELEMENTS = new Set(['audio', 'video']);

/**
 * Tags are found with `indexOf` only (no backtracking pattern), so long or unclosed markup costs a
 * linear scan. A media element is cut with everything up to its end tag.
 */
function scanHtml(html: string): HtmlScan {
  const scan: HtmlScan = { text: '', images: [], hasMedia: false, mediaNames: [] };
  const kept: string[] = [];
  let keptFrom = 0;
  /** The media element being cut, and where it started. */
  let cutting: { name: string; from: number } | undefined;
  let pos = 0;
  while (pos < html.length) {
    const lt = html.indexOf('<', pos);
    if (lt < 0) break;
    const gt = html.indexOf('>', lt);
    if (gt < 0) break;
    const tag = /^<(\/?)([A-Za-z][\w:-]*)/.exec(html.slice(lt, Math.min(gt + 1, lt + 40)));
    pos = gt + 1;
    if (!tag) continue;
    const closing = tag[1] === '/';
    const name = tag[2]!.toLowerCase();
    if (cutting) {
      if (closing && name === cutting.name) {
        kept.push(html.slice(keptFrom, cutting.from), ' ');
        keptFrom = gt + 1;
        cutting = undefined;
      }
      continue;
    }
    if (closing) continue;
    const attributes = html.slice(lt + tag[0].length, gt);
    if (name === 'img') {
      const src = attributeOf(attributes, 'src');
      if (src)
        scan.images.push({
          src: decodeHtml(src.trim(), { level: 'html5' }),
          alt: attributeOf(attributes, 'alt') ?? '',
        });
      continue;
    }
    const selfClosing = html.charCodeAt(gt - 1) === 0x2f;
    const addresses = ['src', 'href', 'data']
      .map((attribute) => attributeOf(attributes, attribute)?.trim())
      .filter((value): value is string => Boolean(value))
      .map((value) => decodeHtml(value, { level: 'html5' }));
    // A link to (or an embed of) a recording counts as the recording, its text included.
    const linksMedia = addresses.some((address) => MEDIA_EXTENSIONS.has(extensionOf(address)));
    if (MEDIA_ELEMENTS.has(name) || ((name === 'a' || name === 'embed' || name === 'object') && linksMedia)) {
      scan.hasMedia = true;
      for (const address of addresses) {
        scan.mediaNames.push(decodeURIComponentSafe(address.split(/[?#]/)[0]!.split('/').pop() || name));
      }
      if (!selfClosing && name !== 'embed') cutting = { name, from: lt };
    }
  }
  if (cutting) kept.push(html.slice(keptFrom, cutting.from));
  else kept.push(html.slice(keptFrom));
  scan.text = kept.join('');
  if (scan.mediaNames.length === 0 && scan.hasMedia) scan.mediaNames.push('audio or video');
  return scan;
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** One attribute of a tag's attribute text, read left to right without backtracking. */
function attributeOf(attributes: string, wanted: string): string | undefined {
  let pos = 0;
  const length = attributes.length;
  while (pos < length) {
    while (pos < length && /[\s/]/.test(attributes[pos]!)) pos++;
    const nameStart = pos;
    while (pos < length && !/[\s=/>]/.test(attributes[pos]!)) pos++;
    const name = attributes.slice(nameStart, pos).toLowerCase();
    if (pos === nameStart) {
      pos++;
      continue;
    }
    while (pos < length && /\s/.test(attributes[pos]!)) pos++;
    let value: string | undefined;
    if (attributes[pos] === '=') {
      pos++;
      while (pos < length && /\s/.test(attributes[pos]!)) pos++;
      const quote = attributes[pos];
      if (quote === '"' || quote === "'") {
        const end = attributes.indexOf(quote, pos + 1);
        value = attributes.slice(pos + 1, end < 0 ? length : end);
        pos = end < 0 ? length : end + 1;
      } else {
        const valueStart = pos;
        while (pos < length && !/\s/.test(attributes[pos]!)) pos++;
        value = attributes.slice(valueStart, pos);
      }
    }
    if (name === wanted) return value ?? '';
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Parsed XML

function toElements(nodes: unknown[]): XmlElement[] {
  return nodes.map(toNode).filter((node): node is XmlElement => 'name' in node);
}

function toNode(raw: unknown): XmlNode {
  const entry = raw as Record<string, unknown>;
  const name = Object.keys(entry).find((key) => key !== ':@') ?? '';
  const value = entry[name];
  if (name === '#text') return { text: decodeXmlText(String(value)), cdata: false };
  if (name === '#cdata') {
    const parts = Array.isArray(value) ? value : [];
    return {
      text: parts.map((part) => String((part as Record<string, unknown>)['#text'] ?? '')).join(''),
      cdata: true,
    };
  }
  const attrs: Record<string, string> = {};
  const rawAttrs = entry[':@'];
  if (rawAttrs && typeof rawAttrs === 'object') {
    for (const [key, attrValue] of Object.entries(rawAttrs)) attrs[key] = decodeXmlText(String(attrValue));
  }
  return { name, attrs, children: Array.isArray(value) ? value.map(toNode) : [] };
}

function isElement(node: XmlNode | undefined): node is XmlElement {
  return node !== undefined && 'name' in node;
}

function child(element: XmlElement | undefined, name: string): XmlElement | undefined {
  return element?.children.find((node): node is XmlElement => isElement(node) && node.name === name);
}

function children(element: XmlElement, name: string): XmlElement[] {
  return element.children.filter((node): node is XmlElement => isElement(node) && node.name === name);
}

/** The element's text, markup of any child elements left out. */
function textOf(element: XmlElement | undefined): string {
  if (!element) return '';
  return element.children.map((node) => (isElement(node) ? textOf(node) : node.text)).join('');
}

/**
 * A `<text>` as HTML. Moodle escapes its HTML (`&lt;p&gt;`) or wraps it in CDATA, and then the
 * decoded text is the HTML; a hand-written file may hold the HTML as elements, and then those
 * elements are written back and the text between them escaped again.
 */
function htmlOf(element: XmlElement): string {
  if (!element.children.some(isElement))
    return element.children.map((node) => (isElement(node) ? '' : node.text)).join('');
  return element.children.map(nodeAsHtml).join('');
}

function nodeAsHtml(node: XmlNode): string {
  if (!isElement(node)) return node.cdata ? node.text : escapeHtml(node.text);
  const attrs = Object.entries(node.attrs)
    .map(([key, value]) => ` ${key}="${escapeHtml(value)}"`)
    .join('');
  return `<${node.name}${attrs}>${node.children.map(nodeAsHtml).join('')}</${node.name}>`;
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

const XML_ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

/** The five predefined entities and character references; any other `&name;` is left as written. */
function decodeXmlText(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(/&(?:#(\d{1,7})|#x([0-9A-Fa-f]{1,6})|(lt|gt|amp|quot|apos));/g, (whole, dec, hex, named) => {
    if (named) return XML_ENTITIES[named as string]!;
    const code = dec ? Number.parseInt(dec as string, 10) : Number.parseInt(hex as string, 16);
    return code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff) ? String.fromCodePoint(code) : whole;
  });
}
