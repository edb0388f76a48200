import { createHash } from 'node:crypto';

/**
 * Paths whose parameter is a person: `/respondents/{id}` takes a voter id, which may be an e-mail
 * address, and an access or erasure request must not leave it behind in the logs it is erasing from.
 */
const PERSONAL_PATH = /^(\/api\/v1\/respondents\/)([^/?#]+)/;

/**
 * The URL as the access log writes it: on a respondent route the id becomes `sha256:` and the first
 * 16 hex digits of its SHA-256 (of the id as decoded, so one id logs alike however it was escaped) —
 * enough to correlate requests about one respondent, without the id itself.
 */
export function accessLogUrl(url: string): string {
  const match = PERSONAL_PATH.exec(url);
  if (!match) return url;
  const [whole, prefix, segment] = match as unknown as [string, string, string];
  let id = segment;
  try {
    id = decodeURIComponent(segment);
  } catch {
    // Not valid percent-encoding: hashed as received.
  }
  const digest = createHash('sha256').update(id).digest('hex').slice(0, 16);
  return `${prefix}sha256:${digest}${url.slice(whole.length)}`;
}
