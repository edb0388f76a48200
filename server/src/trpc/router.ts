import { contract, type RouteDefinition } from '@pollkit/contracts';
import { pollsRouter } from '../modules/polls/polls.router.js';
import { t } from './init.js';

/** Every group of `contract`, implemented. A group added to the contract is added here. */
export const appRouter = t.router({
  polls: pollsRouter,
} satisfies Record<keyof typeof contract, unknown>);

export type AppRouter = typeof appRouter;

/** tRPC procedure path (`polls.create`) -> its route object, for status codes and docs. */
export const routesByProcedure: ReadonlyMap<string, RouteDefinition> = new Map(
  Object.entries(contract).flatMap(([group, routes]) =>
    Object.entries(routes).map(([name, route]) => [`${group}.${name}`, route as RouteDefinition] as const),
  ),
);
