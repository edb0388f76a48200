import { createHash } from 'node:crypto';

/**
 * Paths whose parameter is a person: `/respondents/{id}` takes a voter id, which may be an e-mail
 * address, and an access or erasure request must not leave it behind in the logs it is erasing from.
 */
const PERSONAL_PATH = /^(\/+api\/+v1\/+respondents\/+)([^/?#]+)/i;

/**
 * Query parameters whose value is a person, by name in lower case: `voterId` (the filter of
 * `GET /polls/{id}/votes` and `/responses`, and `GET /polls/{id}/next-slide`'s respondent),
 * `respondentId` (the customer's id of a participant) and `rid` (the same id in a join link,
 * `/join/{pin}?rid=…`, docs/privacy.md), whatever the route. A name that differs only in case, or
 * written as a list (`voterId[]`), is no filter the API reads, but it is the same person in the log.
 */
const PERSONAL_QUERY_NAMES = new Set(['voterid', 'respondentid', 'rid']);
/**
 * The prefixes of Pollkit's secrets (an API key, a host token, a participant token, a signing secret,
 * an OAuth token or client secret). None belongs in a URL, but a client may put one there: its value
 * is never logged, whatever the parameter's name.
 */
const SECRET_PREFIXES = /^(pk_live_|pht_|ptk_|whsec_|oat_|ocs_)/;
/** A query string that may hold one of them: the only ones parsed (a name may be percent-encoded). */
const MAY_NEED_HIDING = /voterid|respondentid|rid|%|pk_live_|pht_|ptk_|whsec_|oat_|ocs_/i;

/**
 * The URL as the access log writes it: a respondent's id — the `/respondents/{id}` path segment, a
 * `voterId` or `respondentId` query value — becomes `sha256:` and the first 16 hex digits of its
 * SHA-256 (of the id as decoded, so one id logs alike however it was escaped) — enough to correlate
 * requests about one respondent, without the id itself.
 */
export function accessLogUrl(url: string): string {
  const queryAt = url.indexOf('?');
  const path = queryAt === -1 ? url : url.slice(0, queryAt);
  const query = queryAt === -1 ? '' : url.slice(queryAt + 1);
  const loggedPath = hashPersonalPath(path);
  if (!MAY_NEED_HIDING.test(query)) return `${loggedPath}${url.slice(path.length)}`;
  return `${loggedPath}?${hashPersonalQuery(query)}`;
}

function hashPersonalPath(path: string): string {
  const match = PERSONAL_PATH.exec(path);
  if (!match) return path;
  const [whole, prefix, segment] = match as unknown as [string, string, string];
  return `${prefix}${digestOf(decoded(segment))}${path.slice(whole.length)}`;
}

/** Each `name=value` pair kept as sent, but the value of a personal one hashed, and a secret's hidden. */
function hashPersonalQuery(query: string): string {
  return query
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      if (equals === -1) return SECRET_PREFIXES.test(decoded(pair)) ? '[secret]' : pair;
      const name = decoded(pair.slice(0, equals).replaceAll('+', ' '));
      // A query string decodes `+` as a space (the id the API reads), a path segment does not.
      const value = decoded(pair.slice(equals + 1).replaceAll('+', ' '));
      if (SECRET_PREFIXES.test(value)) return `${pair.slice(0, equals)}=[secret]`;
      if (!PERSONAL_QUERY_NAMES.has(name.toLowerCase().replace(/\[[^\]]*\]$/, ''))) return pair;
      return `${pair.slice(0, equals)}=${digestOf(value)}`;
    })
    .join('&');
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    // Not valid percent-encoding: hashed as received.
    return text;
  }
}

function digestOf(id: string): string {
  return `sha256:${createHash('sha256').update(id).digest('hex').slice(0, 16)}`;
}
