/**
 * Votes sent without pause by `concurrency` clients at once, each with a new voter and its voter id
 * as `Idempotency-Key`, for the fault tests: what every vote got back is kept, so a test can say
 * which were acknowledged (201), which were refused as the spec allows during an outage (503 in the
 * envelope), and which got anything else (a 500, a body outside the envelope, a hang, a reset).
 */

export interface VoteOutcome {
  voterId: string;
  /** The HTTP status, or the network error's code when there was no response. */
  status: number | string;
  /** The envelope's `error.code`, if the body was one. */
  code: string | undefined;
  /** When the answer arrived, and how long it took (ms). */
  at: number;
  ms: number;
}

export interface VoteLoadOptions {
  /** Where each vote goes: the API base URL (`…/api/v1`); read per vote, so a test can switch it. */
  api: () => string;
  apiKey: string;
  pollId: string;
  slideId: string;
  optionId: string;
  /** Votes in flight at once (50: the load). */
  concurrency?: number;
  /** Prefix of the voter ids, so several loads on one poll never share a voter. */
  voterPrefix?: string;
  /** A vote not answered in this long counts as a hang (`status: 'hang'`). */
  hangMs?: number;
}

export interface VoteLoad {
  readonly outcomes: readonly VoteOutcome[];
  /** Stops sending and waits for the votes in flight. */
  stop(): Promise<VoteSummary>;
}

export interface VoteSummary {
  outcomes: VoteOutcome[];
  acknowledged: string[];
  /** Voters refused with 503 `service_unavailable` in the envelope: never acknowledged, safe to retry. */
  unavailable: string[];
  /** Anything else: the test fails on any. */
  unexpected: VoteOutcome[];
  byStatus: Record<string, number>;
}

export function startVoteLoad(options: VoteLoadOptions): VoteLoad {
  const outcomes: VoteOutcome[] = [];
  const concurrency = options.concurrency ?? 50;
  const hangMs = options.hangMs ?? 30_000;
  let stopped = false;
  let next = 0;
  const client = async () => {
    while (!stopped) {
      const voterId = `${options.voterPrefix ?? 'voter'}-${next++}`;
      const started = Date.now();
      const outcome = await vote(options, voterId, hangMs);
      outcomes.push({ voterId, ...outcome, at: Date.now(), ms: Date.now() - started });
      // A refused connection answers at once: do not spin on it.
      if (typeof outcome.status === 'string') await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  const clients = Array.from({ length: concurrency }, client);
  return {
    outcomes,
    async stop() {
      stopped = true;
      await Promise.all(clients);
      return summarize(outcomes);
    },
  };
}

/** One vote with its Idempotency-Key: what came back. */
export async function vote(
  options: Pick<VoteLoadOptions, 'api' | 'apiKey' | 'pollId' | 'slideId' | 'optionId'>,
  voterId: string,
  hangMs = 30_000,
): Promise<Pick<VoteOutcome, 'status' | 'code'>> {
  try {
    const response = await fetch(`${options.api()}/polls/${options.pollId}/votes`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${options.apiKey}`,
        'content-type': 'application/json',
        'idempotency-key': voterId,
      },
      body: JSON.stringify({ voterId, slideId: options.slideId, optionIds: [options.optionId] }),
      signal: AbortSignal.timeout(hangMs),
    });
    const text = await response.text();
    return { status: response.status, code: envelopeCode(text) };
  } catch (error) {
    const cause = (error as { cause?: { code?: string }; name?: string }).cause;
    return {
      status: (error as Error).name === 'TimeoutError' ? 'hang' : (cause?.code ?? String(error)),
      code: undefined,
    };
  }
}

function envelopeCode(text: string): string | undefined {
  try {
    const body = JSON.parse(text) as { error?: { code?: unknown; message?: unknown } };
    return typeof body.error?.code === 'string' && typeof body.error.message === 'string' ? body.error.code : undefined;
  } catch {
    return undefined;
  }
}

function summarize(outcomes: readonly VoteOutcome[]): VoteSummary {
  const byStatus: Record<string, number> = {};
  const acknowledged: string[] = [];
  const unavailable: string[] = [];
  const unexpected: VoteOutcome[] = [];
  for (const outcome of outcomes) {
    byStatus[outcome.status] = (byStatus[outcome.status] ?? 0) + 1;
    if (outcome.status === 201) acknowledged.push(outcome.voterId);
    else if (outcome.status === 503 && outcome.code === 'service_unavailable') unavailable.push(outcome.voterId);
    else unexpected.push(outcome);
  }
  return { outcomes: [...outcomes], acknowledged, unavailable, unexpected, byStatus };
}
