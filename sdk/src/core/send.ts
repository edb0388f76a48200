// One call of a route: the retry loop around single exchanges (exchange.ts), with one renewal of a
// rejected OAuth token (oauth.ts).
import { PollkitError } from './errors.js';
import { interpretResponse, sendOnce } from './exchange.js';
import { rejectedOAuthToken } from './oauth.js';
import { prepareRequest } from './prepare-request.js';
import { log } from './request-log.js';
import {
  type CallableRoute,
  checkCount,
  checkTimeout,
  type DownloadOptions,
  type RequestConfig,
  type RequestOptions,
} from './request-options.js';
import { backoffDelay, retryReasonOf, sleep } from './retry.js';

/**
 * One call of one route: prepare the request once, then send it until it succeeds, fails in a way
 * that is not retried, or runs out of retries. Every retry resends the same prepared request, so the
 * body and the `Idempotency-Key` stay the same.
 */
export async function request(
  config: RequestConfig,
  route: CallableRoute,
  input: unknown,
  options: RequestOptions = {},
): Promise<unknown> {
  const stream = (options as DownloadOptions).stream === true;
  if (stream && route.format !== 'file') {
    throw new TypeError(`stream: true applies to file downloads only, not to ${route.method} ${route.path}`);
  }
  const prepared = prepareRequest(config, route, input, options);
  const maxRetries = checkCount('maxRetries', options.maxRetries ?? config.maxRetries);
  const timeout = checkTimeout(options.timeout ?? config.timeout);
  const validate = options.validateResponse ?? config.validateResponses;
  const tokens = 'tokens' in config.credential ? config.credential.tokens : undefined;
  let renewedToken = false;
  for (let number = 1, retries = 0; ; number++) {
    let accessToken: string | undefined;
    try {
      let attempt = prepared;
      if (tokens) {
        accessToken = await tokens.token(config, options.signal);
        const headers = new Headers(prepared.headers);
        headers.set('authorization', `Bearer ${accessToken}`);
        attempt = { ...prepared, headers };
      }
      const response = await sendOnce(config, attempt, { number, timeout, signal: options.signal, stream });
      return interpretResponse(route, response, validate);
    } catch (error) {
      // A token the API no longer takes (revoked, or expired early): one new token, one new attempt,
      // outside the retry budget; a second rejection is the caller's to see.
      if (!renewedToken && rejectedOAuthToken(error, tokens, accessToken)) {
        renewedToken = true;
        continue;
      }
      const reason = retryReasonOf(error);
      if (reason === undefined || retries >= maxRetries) throw error;
      const delay = backoffDelay(reason, retries++, config);
      log(config, 'warn', 'pollkit retry', {
        method: prepared.method,
        url: prepared.url,
        attempt: number,
        status: error instanceof PollkitError ? error.status : undefined,
        error: error instanceof Error ? error.message : String(error),
        retryInMs: delay,
      });
      await sleep(delay, options.signal);
    }
  }
}
