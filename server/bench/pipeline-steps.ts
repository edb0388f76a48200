/**
 * Scenario: the cost of each pipeline step of `GET /polls/{id}` in µs, measured in a child process
 * running the bundled server code (bench/targets/pipeline-steps.ts).
 */
import { fileURLToPath } from 'node:url';
import { startTarget } from './support.js';

export interface StepCosts {
  calls: number;
  rounds: number;
  wholeNs: number;
  handlerNs: number;
  steps: { name: string; ns: number }[];
}

export async function pipelineStepsScenario(options: { rounds: number }): Promise<StepCosts> {
  const target = await startTarget(fileURLToPath(new URL('./targets/pipeline-steps.ts', import.meta.url)), {
    BENCH_ROUNDS: String(options.rounds),
  });
  await new Promise((resolve) => target.process.once('exit', resolve));
  return target.info as unknown as StepCosts;
}
