import { ERASED, eraserOfText } from '../../core/erase-in-text.js';
import type { Redaction } from '../webhooks/index.js';

/**
 * The fields of a stored record that hold a person: whose record it is (`voterId`, `participantId`,
 * `respondentId`), the name they joined with, the text they wrote. Only these are ever rewritten: an
 * option id, a poll id or a question's text that happens to equal the respondent's id stays as it is.
 */
const PERSON_FIELDS: ReadonlySet<string> = new Set(['voterId', 'participantId', 'respondentId', 'name', 'text']);

/** The fields that say whose record a stored event is (`data.voterId`, `data.participantId`). */
const OWNER_FIELDS = ['voterId', 'participantId'] as const;

/**
 * How stored copies are found and rewritten without one respondent (docs/privacy.md, "What erasure
 * reaches").
 *
 * - **Whose record.** `voterIds` are the respondent's server-side ids: the id the operator named and
 *   the participant ids (`prt_…`) it found. A stored event is theirs when its `data.voterId` or
 *   `data.participantId` is one of them. A participant's own `respondentId` (typed at join,
 *   unverified) is never a needle of its own: it finds nothing unless it is the id the operator named.
 * - **What is rewritten, in their records only.** A person field (`PERSON_FIELDS`) whose value is one
 *   of theirs — an id, a `respondentId` they joined with, a name they gave, a text they wrote —
 *   becomes `"[erased]"`, as a whole value. Free text of their records (a receiver's answer to their
 *   delivery) has those values replaced where they stand as JSON strings, and their ids where they
 *   stand as whole tokens, in one pass: the marker is never matched again.
 */
export function respondentRedaction(
  voterIds: string[],
  personal: { respondentIds: string[]; names: string[]; texts: string[] },
): Redaction {
  const ids = [...new Set(voterIds.filter((value) => value.length > 0))];
  const idSet = new Set(ids);
  const values = new Set(
    [...ids, ...personal.respondentIds, ...personal.names, ...personal.texts].filter((value) => value.length > 0),
  );
  const needles = ids.map((id) => JSON.stringify(id));

  const isAbout = (payload: string): boolean => {
    if (!needles.some((needle) => payload.includes(needle))) return false;
    const data = parseObject(payload)?.data;
    if (data === null || typeof data !== 'object') return false;
    return OWNER_FIELDS.some((field) => {
      const owner = (data as Record<string, unknown>)[field];
      return typeof owner === 'string' && idSet.has(owner);
    });
  };

  const json = (text: string): string => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      // Not JSON after all: rewritten as no one's (left as it is) rather than guessed at.
      return text;
    }
    const redacted = redactPersonFields(parsed, values);
    return redacted.changed ? JSON.stringify(redacted.value) : text;
  };

  const text = eraserOfText(values, ids);

  return { needles, isAbout, json, text };
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed !== null && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The value with every person field whose string is one of `values` replaced, at any depth. */
function redactPersonFields(value: unknown, values: ReadonlySet<string>): { value: unknown; changed: boolean } {
  if (Array.isArray(value)) {
    let changed = false;
    const items = value.map((item) => {
      const redacted = redactPersonFields(item, values);
      changed ||= redacted.changed;
      return redacted.value;
    });
    return { value: items, changed };
  }
  if (value !== null && typeof value === 'object') {
    let changed = false;
    const entries = Object.entries(value).map(([key, item]): [string, unknown] => {
      if (PERSON_FIELDS.has(key) && typeof item === 'string' && values.has(item)) {
        changed = true;
        return [key, ERASED];
      }
      const redacted = redactPersonFields(item, values);
      changed ||= redacted.changed;
      return [key, redacted.value];
    });
    return { value: Object.fromEntries(entries), changed };
  }
  return { value, changed: false };
}
