/**
 * Bench target: what each step of the pipeline costs, in process, without HTTP. The real steps of
 * `GET /polls/{id}` (api/pipeline.ts `stepsFor`) run on the real server's deps against a cached
 * poll; the chain is timed whole, then with its first step removed, and so on, so each step's cost
 * is the difference between two neighbouring chains. A step that needs the credential gets it
 * pre-filled once authentication has been peeled off. Prints one JSON line with the results.
 */
import { contract } from '@pollkit/contracts';
import { newCall } from '../../src/api/call.js';
import { compose, handlerStep, stepsFor } from '../../src/api/pipeline.js';
import { createApiKey } from '../../src/modules/api-keys/api-keys.service.js';
import { handlers } from '../../src/modules/index.js';
import { createPoll, updatePoll } from '../../src/modules/polls/polls.service.js';
import { benchPollContent } from './fixtures.js';
import { benchWorkspace, startBenchServer } from './server.js';

// Below the bench workspace's 1,000,000 requests a minute per key.
const calls = Number(process.env.BENCH_STEP_CALLS ?? 200_000);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);

const server = await startBenchServer();
const { deps } = server;
const { workspaceId } = await benchWorkspace(deps.db);
const poll = await createPoll(deps, workspaceId, { title: 'Step bench', content: benchPollContent });
await updatePoll(deps, workspaceId, { id: poll.id, publish: true });

const route = contract.polls.get;
const steps = stepsFor(route, deps);
// With RESPONSE_VALIDATION the pipeline puts the declared-errors check first and the output check last.
const names = [
  ...(deps.config.RESPONSE_VALIDATION ? ['declared errors'] : []),
  ...['authenticate', 'rate limit', 'plan', 'scope', 'validate', 'output check'],
].slice(0, steps.length);
const terminal = handlerStep(route, handlers.polls.get as never, deps);
const silent = { error() {}, warn() {}, info() {}, debug() {} };

/**
 * ns per call of the chain starting at step `from` (steps.length: the handler alone). Each
 * measurement uses a key of its own, so no measurement meets the rate limit another one used up.
 */
async function time(from: number): Promise<number> {
  const { secret } = await createApiKey(deps.db, { workspaceId, name: `steps ${from}` });
  const credential = await deps.authenticator.authenticate(`Bearer ${secret}`);
  const request = {
    id: 'bench',
    log: silent,
    authorization: `Bearer ${secret}`,
    idempotencyKey: undefined,
    params: { id: poll.id },
    query: {},
    body: undefined,
  };
  const chain = compose(steps.slice(from), terminal);
  const start = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) {
    const call = newCall(route, request as never);
    if (from > 0) call.credential = credential;
    // What `validate` would have set, for the chains that start after it.
    call.input = { id: poll.id };
    await chain(call);
  }
  return Number(process.hrtime.bigint() - start) / calls;
}

const samples: number[][] = steps.map(() => []).concat([[]]);
for (let from = 0; from <= steps.length; from++) await time(from); // warm-up
for (let round = 0; round < rounds; round++) {
  for (let from = 0; from <= steps.length; from++) samples[from]?.push(await time(from));
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
const chainNs = samples.map(median);
process.stdout.write(
  `${JSON.stringify({
    url: server.url,
    calls,
    rounds,
    responseValidation: deps.config.RESPONSE_VALIDATION,
    wholeNs: chainNs[0],
    handlerNs: chainNs[steps.length],
    steps: names.map((name, i) => ({ name, ns: (chainNs[i] ?? 0) - (chainNs[i + 1] ?? 0) })),
  })}\n`,
);
await server.close();
process.exit(0);
