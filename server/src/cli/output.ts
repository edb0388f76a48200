export interface CliIo {
  env: Record<string, string | undefined>;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

/**
 * What a command prints. Human output is for people at a terminal; `--json` output is one JSON
 * document on stdout for scripts. Errors always go to stderr.
 */
export interface CliOutput {
  json: boolean;
  /** A line of human output (skipped in JSON mode). */
  line(text?: string): void;
  /** The command's JSON document (written in JSON mode only). */
  result(value: unknown): void;
}

export function createOutput(json: boolean, stdout: NodeJS.WritableStream = process.stdout): CliOutput {
  return {
    json,
    line(text = '') {
      if (!json) stdout.write(`${text}\n`);
    },
    result(value) {
      if (json) stdout.write(`${JSON.stringify(value, null, 2)}\n`);
    },
  };
}

/**
 * Names come from whoever created the record; control characters (newlines, terminal escape
 * sequences) are shown escaped so they cannot break a table or drive the terminal.
 */
export function printable(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** `2025-03-01 09:30:00Z`: ISO 8601, readable, and unambiguous about the zone. */
export function formatTime(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}Z`;
}

/** Left-aligned columns, two spaces apart, with a header row. */
export function formatTable(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = headers.map((header, column) =>
    Math.max(header.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const render = (cells: readonly string[]) =>
    cells
      .map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)))
      .join('  ')
      .trimEnd();
  return [render(headers), ...rows.map(render)].join('\n');
}
