import { createHash } from 'node:crypto';
import { PassThrough, Writable } from 'node:stream';
import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import { accessLogUrl } from '../../src/http/access-log-url.js';
import { createLogger } from '../../src/logger.js';

/**
 * The logger: JSON or human-readable lines, and an output that never blocks the server — lines are
 * dropped and counted while nobody reads stdout. The server that keeps answering and still stops
 * while nobody reads its stdout is in logging-process.test.ts (a child process).
 */

/** What a logger wrote to `out`, as text without colours. */
function collect(out: PassThrough): () => string {
  let text = '';
  out.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
  });
  return () => stripVTControlCharacters(text);
}

describe('log formats', () => {
  it('writes JSON lines, with credentials redacted', () => {
    const out = new PassThrough();
    const text = collect(out);
    createLogger({ level: 'info', format: 'json', out }).info({ secret: 'pk_live_x', n: 1 }, 'hello');
    const line = JSON.parse(text());
    expect(line).toMatchObject({ level: 30, msg: 'hello', n: 1, secret: '[redacted]' });
  });

  it('redacts live-session tokens: the host and participant tokens, as headers and as fields', () => {
    const out = new PassThrough();
    const text = collect(out);
    createLogger({ level: 'info', format: 'json', out }).info(
      {
        req: { headers: { 'x-host-token': 'pht_secret', 'x-participant-token': 'ptk_secret' } },
        session: { hostToken: 'pht_secret' },
        joined: { participantToken: 'ptk_secret' },
      },
      'live',
    );
    expect(text()).not.toContain('_secret');
    expect(JSON.parse(text())).toMatchObject({
      req: { headers: { 'x-host-token': '[redacted]', 'x-participant-token': '[redacted]' } },
      session: { hostToken: '[redacted]' },
      joined: { participantToken: '[redacted]' },
    });
  });

  it('writes one human-readable line per entry in pretty format, and picks it for a terminal on auto', () => {
    const pipe = Object.assign(new PassThrough(), { isTTY: false });
    const terminal = Object.assign(new PassThrough(), { isTTY: true });
    const asked = new PassThrough();
    const [fromPipe, fromTerminal, fromAsked] = [pipe, terminal, asked].map(collect);
    createLogger({ level: 'info', format: 'auto', out: pipe }).info({ n: 1 }, 'hello');
    createLogger({ level: 'info', format: 'auto', out: terminal }).warn({ n: 1 }, 'hello');
    createLogger({ level: 'info', format: 'pretty', out: asked }).warn({ n: 1 }, 'hello');
    expect(JSON.parse(fromPipe?.() ?? '')).toMatchObject({ msg: 'hello' });
    for (const text of [fromTerminal?.(), fromAsked?.()]) {
      expect(text).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] WARN: hello \{"n":1\}\n$/);
    }
  });
});

describe('the access log’s URL', () => {
  const hashed = (id: string) => `sha256:${createHash('sha256').update(id).digest('hex').slice(0, 16)}`;

  it('hashes a respondent’s id in the path and in a voterId or respondentId query value, however escaped', () => {
    const email = 'alice@example.com';
    expect(accessLogUrl(`/api/v1/respondents/${encodeURIComponent(email)}?cursor=abc`)).toBe(
      `/api/v1/respondents/${hashed(email)}?cursor=abc`,
    );
    for (const value of [email, encodeURIComponent(email)]) {
      expect(accessLogUrl(`/api/v1/polls/poll_1/votes?voterId=${value}&limit=5`)).toBe(
        `/api/v1/polls/poll_1/votes?voterId=${hashed(email)}&limit=5`,
      );
    }
    // `+` is a space in a query value (as the API reads it); names match in any case or escape.
    expect(accessLogUrl('/api/v1/polls/p/next-slide?afterSlideId=a&voterId=ada+lovelace')).toBe(
      `/api/v1/polls/p/next-slide?afterSlideId=a&voterId=${hashed('ada lovelace')}`,
    );
    expect(accessLogUrl('/x?respondentId=crm-1&VOTERID=b&voter%49d=c&voterId=%E0%A4%A')).toBe(
      `/x?respondentId=${hashed('crm-1')}&VOTERID=${hashed('b')}&voter%49d=${hashed('c')}&voterId=${hashed('%E0%A4%A')}`,
    );
  });

  it('hashes a join link’s rid, a list-shaped name and a misspelt respondents path; hides any secret in a query', () => {
    const email = 'rid@example.com';
    expect(accessLogUrl(`/join/123456?rid=${encodeURIComponent(email)}`)).toBe(`/join/123456?rid=${hashed(email)}`);
    expect(accessLogUrl(`/api/v1/polls/p/votes?voterId[]=${email}`)).toBe(
      `/api/v1/polls/p/votes?voterId[]=${hashed(email)}`,
    );
    expect(accessLogUrl(`/api/v1//respondents/${email}`)).toBe(`/api/v1//respondents/${hashed(email)}`);
    expect(accessLogUrl(`/api/v1/Respondents/${email}`)).toBe(`/api/v1/Respondents/${hashed(email)}`);
    expect(accessLogUrl('/api/v1/workspace?key=pk_live_abc&t=pht_x&w=whsec_y&o=oat_z&pht_bare&limit=5')).toBe(
      '/api/v1/workspace?key=[secret]&t=[secret]&w=[secret]&o=[secret]&[secret]&limit=5',
    );
    expect(accessLogUrl('/api/v1/polls?q=ptk%5Fabc')).toBe('/api/v1/polls?q=[secret]');
  });

  it('leaves every other URL as it came', () => {
    for (const url of [
      '/api/v1/polls?status=draft&limit=5',
      '/healthz',
      '/api/v1/polls/p/votes?slideId=a',
      '/a?%41=b&c',
      '/api/v1/polls?grid=1&ride=pht',
    ]) {
      expect(accessLogUrl(url)).toBe(url);
    }
  });
});

describe('an output nobody reads', () => {
  it('drops lines past the bound without blocking, counts them and says so once it drains', async () => {
    // A reader that takes nothing until told to: every write stays queued.
    const held: Array<() => void> = [];
    const written: string[] = [];
    const out = new Writable({
      highWaterMark: 500,
      write(chunk: Buffer, _encoding, callback) {
        written.push(chunk.toString('utf8'));
        held.push(callback);
      },
    });
    const log = createLogger({ level: 'info', format: 'json', out, maxBuffered: 2_000 });
    for (let i = 0; i < 100; i++) log.info({ i }, 'a line of about a hundred characters');
    expect(out.writableLength).toBeLessThanOrEqual(2_200);
    const kept = out.writableLength;
    expect(kept).toBeGreaterThan(0);

    // The reader catches up: everything queued is written, then one line counts the rest.
    while (held.length > 0) {
      held.shift()?.();
      await new Promise((resolveTick) => setImmediate(resolveTick));
    }
    const lines = written
      .join('')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    const report = lines.at(-1);
    expect(report).toMatchObject({ level: 40, msg: expect.stringContaining('log lines were dropped') });
    expect(lines.length - 1 + report.droppedLines).toBe(100);
    expect(report.droppedLines).toBeGreaterThan(0);
  });
});
