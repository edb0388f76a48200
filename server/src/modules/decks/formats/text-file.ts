import { BankRefused } from '../bank.js';

/**
 * A text format's file as lines: a byte-order mark dropped, any line ending (CRLF, CR, LF) taken.
 * An empty file, or one that is not text at all, is refused naming `formatName`.
 */
export function linesOfTextFile(text: string, formatName: string): string[] {
  if (text.trim() === '' || text.trim() === '\ufeff') {
    throw new BankRefused('The file is empty.', [{ message: 'The file holds no text.' }]);
  }
  if (looksBinary(text)) {
    throw new BankRefused(`The file is not ${formatName}: it is not text.`, [
      { message: 'The file holds control characters that a text file does not.' },
    ]);
  }
  return text.replace(/^\ufeff/, '').split(/\r\n|\r|\n/);
}

/** NUL anywhere, or many control characters (tab, line breaks and form feeds aside) or undecodable bytes. */
function looksBinary(text: string): boolean {
  let suspicious = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === 0) return true;
    if ((code < 0x20 && (code < 0x09 || code > 0x0d)) || code === 0x7f || code === 0xfffd) suspicious++;
  }
  return suspicious > text.length * 0.05;
}
