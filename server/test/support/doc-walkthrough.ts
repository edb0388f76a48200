import { spawn } from 'node:child_process';

/**
 * Guides whose ```sh blocks are a walkthrough run in order in one shell (docs/live-sessions.md,
 * docs/branching.md): their tests extract the blocks, run them as one script against a real server,
 * and check what they printed.
 */

export interface ShBlock {
  /** 1-based line of the opening fence. */
  line: number;
  code: string;
}

/** The ```sh blocks of a Markdown text, in order. */
export function shBlocks(markdown: string): ShBlock[] {
  const blocks: ShBlock[] = [];
  let current: { line: number; lines: string[] } | undefined;
  markdown.split('\n').forEach((text, index) => {
    if (current === undefined) {
      if (text.trim() === '```sh') current = { line: index + 1, lines: [] };
    } else if (text.trim() === '```') {
      blocks.push({ line: current.line, code: current.lines.join('\n') });
      current = undefined;
    } else {
      current.lines.push(text);
    }
  });
  if (current !== undefined) throw new Error(`unclosed \`\`\`sh block at line ${current.line}`);
  return blocks;
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
