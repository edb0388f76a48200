import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that take longest, longest first, as CI measured them on the 2-core machine (seconds in
 * a fresh clone with its builds cold, 2026-11-29; webhooks-multi-process runs on the PostgreSQL leg
 * only). Two workers share ~150 files: a file of 100 s started last keeps one worker busy for 100 s
 * after the other is done. Vitest orders a fresh clone (no results cache) project by project and,
 * within one, by file size, which put the docs build, a small file taking minutes, near the end.
 * Longest first (LPT) ends both workers close together.
 */
export const SLOW_FILES: readonly string[] = [
  'server/test/system/docs-site.browser.test.ts', // 184
  'server/test/system/webhooks-multi-process.test.ts', // 142
  'server/test/system/docs-samples.test.ts', // 128
  'server/test/api/fuzz.test.ts', // 53
  'server/test/system/entry-point.test.ts', // 48
  'server/test/system/cli.workspaces-and-keys.test.ts', // 40
  'server/test/system/api-reference.browser.test.ts', // 38
  'server/test/system/self-paced.browser.test.ts', // 35
  'server/test/system/live-pages.edge-cases.browser.test.ts', // 34
  'server/test/api/webhooks-durability.test.ts', // 34
  'server/test/system/faults-postgres.test.ts', // 33
  'server/test/system/pages-i18n.languages.browser.test.ts', // 29
  'server/test/system/live-pages.walkthrough.browser.test.ts', // 28
  'server/test/system/pages-i18n.themes-and-keyboard.browser.test.ts', // 27
  'server/test/system/cli.webhook-secrets.test.ts', // 23
  'server/test/system/embedding.browser.test.ts', // 21
  'server/test/system/faults-redis.test.ts', // 19
  'sdk/test/api/export-stream.test.ts', // 15
];

/** Vitest's order (failed first, then by the last run's duration or by size), the slow files moved to the front. */
export class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification) => {
      const index = SLOW_FILES.indexOf(relative(this.ctx.config.root, spec.moduleId));
      return index === -1 ? SLOW_FILES.length : index;
    };
    return sorted
      .map((spec, order) => ({ spec, order, rank: rank(spec) }))
      .sort((a, b) => a.rank - b.rank || a.order - b.order)
      .map(({ spec }) => spec);
  }
}
