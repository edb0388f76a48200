import { spawn } from 'node:child_process';

/**
 * Runnable samples in the guides: a fenced block whose info string carries the word `runnable`
 * (```` ```sh runnable ````, ```` ```ts runnable ````) is executed by a test. A page's `sh runnable`
 * blocks are one walkthrough, run in order in one bash script against a real server, with
 * `POLLKIT_BASE_URL` (the server's origin) and `POLLKIT_API_KEY` set; each `ts runnable` block is a
 * program of its own against the packed SDK. docs/live-sessions.md, docs/branching.md and
 * docs/webhooks.md have tests of their own (docs-*.test.ts); every other page is run by
 * docs-samples.test.ts.
 */

export interface ShBlock {
  /** 1-based line of the opening fence. */
  line: number;
  code: string;
}

/** Every fenced block of a Markdown text, in order, with the words of its info string. */
export function fencedBlocks(markdown: string): (ShBlock & { info: string[] })[] {
  const blocks: (ShBlock & { info: string[] })[] = [];
  let current: { line: number; info: string[]; fence: string; lines: string[] } | undefined;
  markdown.split('\n').forEach((text, index) => {
    if (current === undefined) {
      const open = /^(`{3,}|~{3,})\s*(.*)$/.exec(text.trim());
      if (open) current = { line: index + 1, fence: open[1] as string, info: (open[2] ?? '').split(/\s+/), lines: [] };
    } else if (text.trim() === current.fence) {
      blocks.push({ line: current.line, info: current.info, code: current.lines.join('\n') });
      current = undefined;
    } else {
      current.lines.push(text);
    }
  });
  if (current !== undefined) throw new Error(`unclosed \`\`\`${current.info.join(' ')} block at line ${current.line}`);
  return blocks;
}

/** The runnable blocks of one language (```` ```sh runnable ````), in order. */
export function runnableBlocks(markdown: string, language: string): ShBlock[] {
  return fencedBlocks(markdown)
    .filter((block) => block.info[0] === language && block.info.includes('runnable'))
    .map(({ line, code }) => ({ line, code }));
}

/** The ```` ```sh runnable ```` blocks of a Markdown text, in order. */
export function shBlocks(markdown: string): ShBlock[] {
  return runnableBlocks(markdown, 'sh');
}

/**
 * What a block says it prints: its comment lines (`# …` in sh, `// …` in ts) that are a whole
 * output line, a JSON value or a status line (`{…}`, `[…]`, `"…"`, `HTTP/1.1 …`). `…` in them
 * stands for text left out.
 */
export function promisedLines(code: string, comment: '#' | '//'): string[] {
  const prefix = `${comment} `;
  return code
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.startsWith(prefix) && /^([{["]|HTTP\/)/.test(line.slice(prefix.length)))
    .map((line) => line.slice(prefix.length));
}

/** Whether `printed` holds a line that `promised` describes, `…` matching any text. */
export function printedLine(printed: string, promised: string): boolean {
  const pattern = promised
    .split('…')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${pattern}$`, 'm').test(printed);
}

/** One bash script: strict mode, background streams killed on exit, a trace naming the doc's blocks. */
export function scriptOf(blocks: ShBlock[], docName: string): string {
  // `:` is a no-op the trace shows: a failure's trace names the block it happened in.
  const parts = blocks.map((block) => `: ${docName}:${block.line}\n${block.code}\n`);
  return [
    'set -euo pipefail',
    // A failing sample must not leave the background `curl -N` streams running.
    "trap 'kill $(jobs -p) 2>/dev/null || true' EXIT",
    // The trace goes to stderr, shown only when the script fails.
    "PS4='+ line $LINENO: '",
    'set -x',
    ...parts,
  ].join('\n');
}

export interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export function runScript(path: string, cwd: string, env: Record<string, string>, timeoutMs: number): Promise<Run> {
  return new Promise((resolveRun, reject) => {
    // A process group of its own, so that a timeout can stop the background streams too.
    const child = spawn('bash', [path], { cwd, env: { ...process.env, ...env }, detached: true });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const timer = setTimeout(() => {
      stderr += `\n[test] killed after ${timeoutMs} ms`;
      if (child.pid) process.kill(-child.pid, 'SIGKILL');
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolveRun({ code, signal, stdout, stderr });
    });
  });
}

export function which(command: string): Promise<boolean> {
  return new Promise((resolveWhich) => {
    const child = spawn('bash', ['-c', `command -v ${command}`], { stdio: 'ignore' });
    child.on('close', (code) => resolveWhich(code === 0));
    child.on('error', () => resolveWhich(false));
  });
}
