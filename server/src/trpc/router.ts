import type { contract } from '@pollkit/contracts';
import { responses, votes } from '../modules/answers/answers.router.js';
import { keys } from '../modules/api-keys/api-keys.router.js';
import { media } from '../modules/media/media.router.js';
import { polls } from '../modules/polls/polls.router.js';
import { questions } from '../modules/questions/questions.router.js';
import { results } from '../modules/results/results.router.js';
import type { Operation } from './implement.js';
import { t } from './init.js';

/** Every group of `contract`, implemented. A group added to the contract is added here. */
const groups = { polls, votes, responses, results, questions, media, keys } satisfies Record<
  keyof typeof contract,
  { router: unknown; operations: Operation[] }
>;

/** The tRPC router: what trpc-to-openapi generates the OpenAPI document from. */
export const appRouter = t.router(
  Object.fromEntries(Object.entries(groups).map(([name, group]) => [name, group.router])) as {
    [G in keyof typeof groups]: (typeof groups)[G]['router'];
  },
);
export type AppRouter = typeof appRouter;

/** Every implemented operation, as the HTTP layer serves them. */
export const operations: readonly Operation[] = Object.values(groups).flatMap((group) => group.operations);
