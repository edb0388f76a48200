/**
 * How heavy and how fast the audience page is for a phone (issue 12): the bytes a first visit
 * transfers and the time until the page shows the joined participant waiting, cold (new browser
 * context, nothing cached) and warm (a reload: the HTML revalidated, the assets from the cache),
 * on loopback and on an emulated poor venue Wi-Fi (Chrome's network emulation: 1.6 Mbit/s down,
 * 750 kbit/s up, 150 ms round trip). Chromium at phone size against the real server
 * (targets/live.ts, built code) in its own process.
 */
import { fileURLToPath } from 'node:url';
import { type Browser, chromium } from 'playwright-core';
import { CHROMIUM_PATH } from '../test/support/browser.js';
import { startTarget } from './support.js';

export interface PageLoadRow {
  network: string;
  visit: 'first' | 'reload';
  transferredBytes: number;
  medianMs: number;
  p90Ms: number;
}

const NETWORKS = {
  loopback: undefined,
  'poor Wi-Fi (1.6 Mbit/s, 150 ms RTT)': {
    offline: false,
    latency: 150,
    downloadThroughput: (1.6 * 1024 * 1024) / 8,
    uploadThroughput: (750 * 1024) / 8,
  },
} as const;

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
}

export async function pageLoadScenario(options: {
  loads: number;
  /** The session's language (issue 37): its catalog is part of a first visit. Default `en`. */
  language?: string;
}): Promise<{ rows: PageLoadRow[] }> {
  const target = await startTarget(fileURLToPath(new URL('./targets/live.ts', import.meta.url)), {
    RATE_LIMIT_PER_MINUTE: '100000000',
    LIVE_RATE_LIMIT_PER_IP_PER_MINUTE: '100000000',
    LIVE_PIN_MISSES_PER_IP_PER_MINUTE: '100000000',
    LIVE_JOINS_PER_IP_PER_MINUTE: '100000000',
  });
  const info = target.info as { url: string; apiKey: string; pollId: string };
  let browser: Browser | undefined;
  try {
    const created = await fetch(`${info.url}/api/v1/sessions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${info.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ pollId: info.pollId, language: options.language ?? 'en' }),
    });
    const session = (await created.json()) as { joinUrl: string };
    browser = await chromium.launch({
      executablePath: CHROMIUM_PATH,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
    });
    const rows: PageLoadRow[] = [];
    for (const [network, conditions] of Object.entries(NETWORKS)) {
      const first: number[] = [];
      const reload: number[] = [];
      let firstBytes = 0;
      let reloadBytes = 0;
      for (let i = 0; i < options.loads; i++) {
        const context = await browser.newContext({ viewport: { width: 360, height: 740 }, isMobile: true });
        const page = await context.newPage();
        const cdp = await context.newCDPSession(page);
        await cdp.send('Network.enable');
        if (conditions) await cdp.send('Network.emulateNetworkConditions', conditions);
        let bytes = 0;
        cdp.on('Network.loadingFinished', (event: { encodedDataLength: number }) => {
          bytes += event.encodedDataLength;
        });
        // First visit: the form, a name, Join, until the participant is shown waiting.
        let started = performance.now();
        await page.goto(session.joinUrl);
        // By position, not by label: the words are the session's language.
        await page.locator('form input').last().fill(`p${i}`);
        await page.locator('form button[type=submit]').click();
        await page.getByTestId('waiting').waitFor();
        first.push(performance.now() - started);
        firstBytes = bytes;
        // A reload rejoins with the stored token, without the form.
        bytes = 0;
        started = performance.now();
        await page.reload();
        await page.getByTestId('waiting').waitFor();
        reload.push(performance.now() - started);
        reloadBytes = bytes;
        await context.close();
      }
      rows.push(
        {
          network,
          visit: 'first',
          transferredBytes: firstBytes,
          medianMs: quantile(first, 0.5),
          p90Ms: quantile(first, 0.9),
        },
        {
          network,
          visit: 'reload',
          transferredBytes: reloadBytes,
          medianMs: quantile(reload, 0.5),
          p90Ms: quantile(reload, 0.9),
        },
      );
    }
    return { rows };
  } finally {
    await browser?.close();
    await target.stop();
  }
}
