import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestServer, type TestServer } from '../../../server/test/support/server.js';
import { createClient } from '../../src/index.js';

/**
 * `POLLKIT_API_KEY` and `POLLKIT_BASE_URL` stand in for absent options, as OPENAI_API_KEY does for
 * openai-node, against a real server.
 */

let t: TestServer;
let apiKey: string;

beforeAll(async () => {
  t = await startTestServer();
  ({ apiKey } = await t.workspace('pro'));
});
afterAll(() => t?.close());
afterEach(() => {
  vi.unstubAllEnvs();
  vi.unstubAllGlobals();
});

describe('options from the environment', () => {
  it('reads POLLKIT_API_KEY and POLLKIT_BASE_URL when the options are absent', async () => {
    vi.stubEnv('POLLKIT_API_KEY', apiKey);
    vi.stubEnv('POLLKIT_BASE_URL', t.url);
    const poll = await createClient().polls.create({ title: 'From the environment' });
    expect(poll.title).toBe('From the environment');
    // Each on its own, the other given as an option.
    expect((await createClient({ baseUrl: t.url }).polls.get({ id: poll.id })).id).toBe(poll.id);
    expect((await createClient({ apiKey }).polls.get({ id: poll.id })).id).toBe(poll.id);
  });

  it('prefers the options to the environment', async () => {
    vi.stubEnv('POLLKIT_API_KEY', 'pk_live_not_this_one');
    vi.stubEnv('POLLKIT_BASE_URL', 'http://127.0.0.1:9');
    const client = createClient({ apiKey, baseUrl: t.url });
    expect((await client.polls.list()).data).toBeInstanceOf(Array);
  });

  it('says what is missing when neither the options nor the environment give it, never echoing a key', () => {
    vi.stubEnv('POLLKIT_API_KEY', '');
    vi.stubEnv('POLLKIT_BASE_URL', '');
    expect(() => createClient({ baseUrl: t.url })).toThrow(
      'apiKey is required: pass apiKey (a workspace API key) or clientId and clientSecret (an OAuth client), or set the POLLKIT_API_KEY environment variable',
    );
    expect(() => createClient({ apiKey })).toThrow(
      'baseUrl is required: pass baseUrl (such as https://polls.example.com) or set the POLLKIT_BASE_URL environment variable',
    );
    expect(() => createClient()).toThrow(TypeError);
    // An explicit empty key is a mistake, not a request for the environment's.
    vi.stubEnv('POLLKIT_API_KEY', apiKey);
    expect(() => createClient({ apiKey: '', baseUrl: t.url })).toThrow(/apiKey is required/);
    // OAuth client credentials do not pick up an API key from the environment.
    expect(() => createClient({ clientId: 'oc_x', clientSecret: 's', baseUrl: t.url })).not.toThrow();
  });

  it('works where there is no process (browsers, edge runtimes): options only', () => {
    vi.stubGlobal('process', undefined);
    expect(() => createClient()).toThrow(/baseUrl is required/);
    expect(() => createClient({ baseUrl: 'https://polls.example.com' })).toThrow(/apiKey is required/);
    expect(() => createClient({ apiKey: 'pk_x', baseUrl: 'https://polls.example.com' })).not.toThrow();
  });
});
