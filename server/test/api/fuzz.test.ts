import { contract, inputInQuery, operationId, pathParams, type RouteDefinition } from '@pollkit/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  allWrites,
  firstWorld,
  imageUrl,
  lastWrites,
  onlyWorkspacesChanged,
  problemWith,
  sampleStrings,
  send,
  startFuzzServer,
  stopFuzzServer,
  storedState,
  useNewWorld,
  type World,
  world,
  worldMark,
  worldUsed,
} from '../support/fuzz.js';
import { hostileVariants } from '../support/hostile-variants.js';
import { sampleContent } from '../support/polls.js';
import { sampleOf } from '../support/schemas.js';

/**
 * A generated fuzz test over the whole contract. For every operation it takes a valid input — built
 * from the route's input schema (schemas.ts `sampleOf`), or for the few whose cross-field rules a
 * generic sample cannot meet, from `seeds` below — checks that the input is accepted, then sends
 * every hostile variant of it (support/hostile-variants.ts) and asserts:
 *
 * - no 5xx, ever;
 * - every error is the envelope: JSON, `{ error: { code, message, details? } }`, a registered code
 *   whose status is the response's, `details` with field and form errors on `validation_failed`;
 * - every error's code is one the served OpenAPI document lists for that operation and status;
 * - a variant that breaks a path parameter is 404 `not_found`;
 * - nothing is stored on a 4xx: every table the API writes (idempotency records aside, which keep
 *   4xx outcomes for replay by design) and the media folder are as they were.
 *
 * A route added to the contract is fuzzed by this file without a line added here, unless a generic
 * sample of its input is refused — then the test says so and asks for a seed.
 */

/** Valid inputs for the operations whose rules span fields (unique ids, the slide an answer fits). */
const seeds: Record<string, (world: World) => Record<string, unknown>[]> = {
  pollsCreate: () => {
    const content = sampleContent();
    const first = content.questions[0] as { options: { media?: unknown }[] };
    (first.options[0] as { media?: unknown }).media = { type: 'link', url: 'https://example.com/menu' };
    return [{ title: 'Fuzzed poll', content }];
  },
  pollsUpdate: (world) => [
    { id: world.pollId, title: 'Renamed' },
    { id: world.pollId, closed: true },
  ],
  pollsBranch: (world) => [{ id: world.pollId, instruction: 'If Q1 is "Pizza", skip to Q3' }],
  pollsImport: () => [
    { format: 'gift', source: '::Lunch:: Where shall we eat? {=Pizza ~Sushi}\n\nAnything else? {}\n' },
    { format: 'aiken', source: 'Capital of France?\nA) Paris\nB) Lyon\nANSWER: A\n', dryRun: true },
  ],
  pollsNextSlide: (world) => [{ id: world.pollId, voterId: 'fuzz-voter', afterSlideId: 'lunch' }],
  votesCast: (world) => [{ id: world.pollId, voterId: 'fuzz-voter', slideId: 'lunch', optionIds: ['pizza'] }],
  responsesCreate: (world) => [
    { id: world.pollId, voterId: 'fuzz-voter', slideId: 'words', text: 'hello' },
    { id: world.pollId, voterId: 'fuzz-voter', slideId: 'mood', scaleValues: { work: 4 } },
    { id: world.pollId, voterId: 'fuzz-voter', slideId: 'rank', rankingOrder: ['b', 'a', 'c'] },
    { id: world.pollId, voterId: 'fuzz-voter', slideId: 'capital', optionIds: ['paris'] },
    { id: world.pollId, voterId: 'fuzz-voter', slideId: 'ask', text: 'Why?' },
  ],
  // The world's session is on its Q&A slide (`ask`), so questions are answers and upvotes apply.
  sessionsControl: (world) => [
    { id: world.sessionId, action: 'showResults' },
    { id: world.sessionId, action: 'goto', slideIndex: 1 },
  ],
  // A URL the server can reach (the image host answers 200 to anything): allowed under the file's settings.
  webhooksCreate: () => [{ url: imageUrl, events: ['vote.created', 'poll.closed'], description: 'Fuzzed endpoint' }],
  webhooksUpdate: (world) => [
    { id: world.webhookId, description: 'Renamed', events: ['*'] },
    { id: world.webhookId, status: 'disabled' },
  ],
  sessionsRemoveParticipant: (world) => [{ id: world.sessionId, participantId: world.participantId }],
  liveJoin: (world) => [{ pin: world.pin, name: 'Fuzzer' }],
  liveAnswer: (world) => [{ pin: world.pin, slideId: 'ask', text: 'Why?' }],
  liveUpvote: (world) => [{ pin: world.pin, questionId: world.questionId }],
  // The world's self-paced session, joined by its link: its participant stands on the first slide.
  liveAdvance: (world) => [{ pin: world.walkLink, slideId: 'lunch' }],
  // One answer of the world's poll each: a vote, and its Q&A question (deleted with its upvotes).
  votesDelete: (world) => [{ id: world.pollId, voteId: world.voteId }],
  responsesDelete: (world) => [{ id: world.pollId, responseId: world.questionId }],
  // The world's question is a text the filter moderates, asked in the world's session.
  responsesModerate: (world) => [{ id: world.pollId, responseId: world.questionId, status: 'approved' }],
  sessionsModerateResponse: (world) => [{ id: world.sessionId, responseId: world.questionId, status: 'approved' }],
  // A theme's colours must pass the contrast rules, and its logo comes from the image host.
  themesCreate: () => [
    {
      name: 'Fuzzed theme',
      colors: { primary: '#1d4ed8', background: '#ffffff', text: '#111827' },
      logo: { url: imageUrl, alt: 'Fuzz' },
      font: 'serif',
    },
  ],
  themesGet: (world) => [{ id: world.themeId }],
  themesUpdate: (world) => [
    { id: world.themeId, name: 'Renamed', colors: { primary: '#60a5fa', background: '#101418', text: '#f0f0f0' } },
  ],
  themesDelete: (world) => [{ id: world.themeId }],
  workspaceUpdate: (world) => [
    { language: 'de-AT', embedOrigins: ['https://events.example.com'], themeId: world.themeId },
    { blockedTerms: ['project bluebird'], allowedTerms: ['Scunthorpe'] },
  ],
  sessionsUpdate: (world) => [
    { id: world.sessionId, joinsLocked: false },
    { id: world.sessionId, closesAt: '2999-01-01T00:00:00.000Z' },
  ],
};

beforeAll(startFuzzServer);
afterAll(stopFuzzServer);

const operations = Object.entries(contract).flatMap(([group, routes]) =>
  Object.entries(routes).map(([name, route]) => ({ id: operationId(group, name), route: route as RouteDefinition })),
);

describe('fuzz: hostile variants of a valid input, for every operation of the contract', () => {
  const totals = { requests: 0, rejected: 0 };

  it.each(operations)(
    '$id',
    async ({ id, route }) => {
      const bases = seeds[id]?.(firstWorld) ?? [sampleOf(route.input, sampleStrings(firstWorld))];
      const inUrl = (field: string) => pathParams(route.path).includes(field) || inputInQuery(route.method);
      const problems: string[] = [];
      for (const base of bases) {
        // A generic sample the route refuses: give the operation a seed above.
        expect(base, `${id}: no valid sample input; add a seed`).toBeDefined();
        const accepted = await send(route, base as Record<string, unknown>);
        expect(accepted.status, `${id}: its valid input was refused: ${accepted.text}`).toBeLessThan(300);
        // The variants meet a world as made: a fresh one, unless the current one is still as it was
        // made (nothing written since, and no write succeeded: a read on a world only read since).
        if (worldUsed || (await allWrites()) !== worldMark) await useNewWorld(world.apiKey);

        const variants = hostileVariants(base as Record<string, unknown>, route.input, { inUrl });
        expect(variants.length).toBeGreaterThan(10);
        let before = await storedState();
        for (const variant of variants) {
          const res = await send(route, variant.input);
          totals.requests += 1;
          const problem = problemWith(res, variant, route);
          if (problem) problems.push(`${variant.label} -> ${problem}`);
          if (res.status >= 400) {
            totals.rejected += 1;
            const after = await storedState();
            if (after !== before)
              problems.push(`${variant.label} -> ${res.status} but stored: ${before} -> ${after} (${lastWrites})`);
          } else {
            // A hostile-looking input that is still valid (a title named `constructor`) may have been
            // stored: then a fresh world, so the next variant meets the same state as the first did. A
            // read, or a delete that found nothing (any text names a respondent, or nobody), changed
            // nothing and keeps the world — making one costs a dozen requests.
            // A create (201) leaves the world as it was, one thing more: the stored state becomes the
            // baseline (a later variant may then meet a 409, still an answer in the envelope). So does
            // a write to the workspace alone (its settings): a fresh world is made in the same
            // workspace and could not undo it.
            const after = await storedState();
            if (after !== before && (route.successStatus === 201 || onlyWorkspacesChanged(before, after)))
              before = after;
            else if (after !== before) {
              await useNewWorld(world.apiKey);
              before = await storedState();
            }
          }
          // Routes with a limit of their own (POST /media: 30 a minute) move to a fresh workspace.
          if (Number(res.headers.get('x-ratelimit-remaining') ?? 100) < 3) {
            await useNewWorld();
            before = await storedState();
          }
        }
      }
      expect(problems).toEqual([]);
    },
    // Hundreds of requests per operation: 'pollsCreate' ran past 240 s on a busy 2-core machine.
    600_000,
  );

  it('sent thousands of hostile requests', () => {
    // Guards against a walk that silently stops deriving variants.
    expect(totals.requests).toBeGreaterThan(2000);
    expect(totals.rejected).toBeGreaterThan(totals.requests * 0.8);
  });
});
