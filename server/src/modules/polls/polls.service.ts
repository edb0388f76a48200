import {
  type Branching,
  type CreatePollInput,
  type DuplicatePollInput,
  type ListPollsInput,
  type Poll,
  type PollContent,
  type PollStatus,
  pollLimits,
  type UpdatePollInput,
} from '@pollkit/contracts';
import type { Kysely } from 'kysely';
import type { z } from 'zod';
import { ApiError, invalidField } from '../../core/api-error.js';
import type { JsonText } from '../../core/json-text.js';
import { keysetPage } from '../../core/paging.js';
import { newId } from '../../db/ids.js';
import type { Database, PollRow, PollUpdate } from '../../db/schema.js';
import { naming } from '../../db/theme-reference.js';
import { outboxEvent, recordWebhookEvent } from '../webhooks/index.js';
import { workspaceLanguage } from '../workspaces/workspaces.service.js';
import { assertBranchingFits } from './branching-rules.js';
import type { PollCache } from './poll-cache.js';
import { type PollMediaDeps, resolveContentMedia } from './poll-media.js';
import * as polls from './polls.repository.js';

type Db = Kysely<Database>;

/** What the poll use cases need: the database and the read cache in front of it. */
export interface PollsDeps {
  db: Db;
  pollCache: PollCache;
}

function toPoll(row: PollRow): Poll {
  return {
    id: row.id,
    title: row.title,
    status: row.status,
    content: row.content,
    branching: row.branching,
    language: row.language,
    themeId: row.theme_id,
    textFilter: row.text_filter,
    maxRespondents: row.max_respondents,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    publishedAt: row.published_at?.toISOString() ?? null,
    closedAt: row.closed_at?.toISOString() ?? null,
  };
}

export async function listPolls({ db }: PollsDeps, workspaceId: string, input: z.output<typeof ListPollsInput>) {
  return keysetPage(
    input,
    'poll',
    ({ beforeId, limit }) => polls.listPolls(db, workspaceId, { limit, beforeId, status: input.status }),
    toPoll,
  );
}

/** Saving content also resolves its inline media (fetching images), so it needs the media deps. */
export type PollWriteDeps = PollsDeps & PollMediaDeps;

export async function createPoll(
  deps: PollWriteDeps,
  workspaceId: string,
  /** `branching`: an imported deck's skip logic (`POST /polls` itself takes none). */
  input: z.output<typeof CreatePollInput> & { branching?: Branching | null },
): Promise<Poll> {
  if (input.branching) {
    assertBranchingFits(input.branching, input.content.questions, 'The skip logic does not fit the poll');
  }
  // Media first: a refused media URL fails the whole save and nothing is written.
  const content = await resolveContentMedia(deps, input.content);
  const language = input.language ?? (await workspaceLanguage(deps, workspaceId));
  const now = new Date();
  return naming(input.themeId, () =>
    deps.db.transaction().execute(async (trx) => {
      const poll = toPoll(
        await polls.insertPoll(trx, {
          id: newId('poll'),
          workspace_id: workspaceId,
          title: input.title,
          status: 'draft',
          content: JSON.stringify(content),
          branching: input.branching ? JSON.stringify(input.branching) : null,
          language,
          theme_id: input.themeId ?? null,
          text_filter: input.textFilter ?? 'mask',
          max_respondents: input.maxRespondents ?? null,
          created_at: now,
          updated_at: now,
        }),
      );
      await recordWebhookEvent(trx, workspaceId, outboxEvent('poll.created', poll, now));
      return poll;
    }),
  );
}

/**
 * A theme's deletion: the polls that name it go back to the default, in the caller's transaction.
 * Answers their ids, whose cached copies the caller forgets once it commits.
 */
export function clearThemeFromPolls(trx: Kysely<Database>, workspaceId: string, themeId: string): Promise<string[]> {
  return polls.clearTheme(trx, workspaceId, themeId);
}

/**
 * `POST /polls/{id}/duplicate`: a draft with the poll's content and skip logic, as a template. The
 * content is copied as stored: its media already point at files this server holds (they are never
 * deleted with a poll), so nothing is fetched again. Answers, results and sessions stay with the original.
 */
export async function duplicatePoll(
  deps: PollsDeps,
  workspaceId: string,
  input: z.output<typeof DuplicatePollInput>,
): Promise<Poll> {
  const original = await getPoll(deps, workspaceId, input.id);
  const now = new Date();
  const title = input.title ?? copyTitle(original.title);
  return deps.db.transaction().execute(async (trx) => {
    const poll = toPoll(
      await polls.insertPoll(trx, {
        id: newId('poll'),
        workspace_id: workspaceId,
        title,
        status: 'draft',
        content: JSON.stringify(original.content),
        branching: original.branching ? JSON.stringify(original.branching) : null,
        language: original.language,
        theme_id: original.themeId,
        text_filter: original.textFilter,
        max_respondents: original.maxRespondents,
        created_at: now,
        updated_at: now,
      }),
    );
    await recordWebhookEvent(trx, workspaceId, outboxEvent('poll.created', poll, now));
    return poll;
  });
}

/** "Team lunch" → "Team lunch (copy)", within the title's length (the original's end gives way). */
function copyTitle(title: string): string {
  const suffix = ' (copy)';
  const room = pollLimits.titleLength - suffix.length;
  return `${title.length > room ? title.slice(0, room).trimEnd() : title}${suffix}`;
}

/** The poll, from the read cache (every answer checks its poll, so this is the hot read). */
export async function getPoll(deps: PollsDeps, workspaceId: string, id: string): Promise<Poll> {
  return (await readPoll(deps, workspaceId, id)).value;
}

/** `GET /polls/{id}`: the poll with its JSON text, made once per cached poll rather than per request. */
export async function readPoll({ db, pollCache }: PollsDeps, workspaceId: string, id: string): Promise<JsonText<Poll>> {
  const poll = await pollCache.get(workspaceId, id, async () => {
    const row = await polls.findPoll(db, workspaceId, id);
    return row && toPoll(row);
  });
  if (!poll) throw ApiError.notFound('Poll');
  return poll;
}

/**
 * The status machine: draft -(publish)-> published -(close)-> closed; `publish: true` also reopens a
 * closed poll and `publish: false` returns any poll to draft. Returns the columns to change.
 */
function transition(current: PollRow, input: { publish?: boolean; closed?: boolean }, now: Date): PollUpdate {
  const to = (status: PollStatus): PollUpdate => {
    if (status === current.status) return {};
    if (status === 'published') return { status, published_at: now, closed_at: null };
    if (status === 'closed') return { status, closed_at: now };
    return { status, published_at: null, closed_at: null };
  };
  if (input.publish === true) return to('published');
  if (input.publish === false) return to('draft');
  if (input.closed === true) {
    if (current.status === 'draft') {
      throw new ApiError('poll_not_published', 'A draft poll cannot be closed; publish it first');
    }
    return to('closed');
  }
  if (input.closed === false && current.status === 'closed') return to('published');
  return {};
}

const hasAnswersError = () =>
  new ApiError(
    'poll_has_responses',
    'This poll already has answers, so its slides can no longer change; DELETE /polls/{id}/answers deletes them',
  );

/**
 * A published poll takes answers, so it needs a slide to answer: publishing (or reopening) a poll with
 * no slides, or emptying a published poll's deck, is a 422 on `content.questions`. A change that
 * touches neither status nor slides (a new title) is left alone.
 */
function assertPublishable(current: PollRow, changes: PollUpdate, content: PollContent | undefined): void {
  const status = changes.status ?? current.status;
  if (status !== 'published' || (changes.status === undefined && content === undefined)) return;
  if ((content ?? current.content).questions.length === 0) {
    throw invalidField('content.questions', 'A poll needs at least one slide before it can be published');
  }
}

/**
 * What changing a deck asks of the answers module — whether the poll has answers — which depends on
 * this one and so cannot be imported here: the composition root (deps.ts) hands over its function.
 */
export interface AnsweredPolls {
  pollHasAnswers(db: Db, pollId: string): Promise<boolean>;
}

export type PollUpdateDeps = PollWriteDeps & { answeredPolls: AnsweredPolls };

export async function updatePoll(
  deps: PollUpdateDeps,
  workspaceId: string,
  input: z.output<typeof UpdatePollInput>,
): Promise<Poll> {
  const { db, pollCache, answeredPolls } = deps;
  let content: PollContent | undefined;
  if (input.content !== undefined) {
    // Fetching media can take seconds, so it happens before the transaction (no row lock held while
    // downloading), after the cheap checks that would refuse the save anyway; the transaction checks again.
    const current = await polls.findPoll(db, workspaceId, input.id);
    if (!current) throw ApiError.notFound('Poll');
    if (await answeredPolls.pollHasAnswers(db, input.id)) throw hasAnswersError();
    content = await resolveContentMedia(deps, input.content);
  }
  const updated = await naming(input.themeId, () =>
    db.transaction().execute(async (trx) => {
      const current = await polls.findPollForUpdate(trx, workspaceId, input.id);
      if (!current) throw ApiError.notFound('Poll');
      const now = new Date();
      const changes: PollUpdate = transition(current, input, now);
      if (input.title !== undefined && input.title !== current.title) changes.title = input.title;
      if (input.language !== undefined && input.language !== current.language) changes.language = input.language;
      if (input.themeId !== undefined && input.themeId !== current.theme_id) changes.theme_id = input.themeId;
      if (input.textFilter !== undefined && input.textFilter !== current.text_filter) {
        changes.text_filter = input.textFilter;
      }
      if (input.maxRespondents !== undefined && input.maxRespondents !== current.max_respondents) {
        changes.max_respondents = input.maxRespondents;
      }
      if (content !== undefined) {
        // Answers refer to slides and options by id; changing the deck under them would corrupt results.
        if (await answeredPolls.pollHasAnswers(trx, input.id)) throw hasAnswersError();
        changes.content = JSON.stringify(content);
      }
      const slides = (content ?? current.content).questions;
      if (input.branching !== undefined) {
        if (input.branching !== null)
          assertBranchingFits(input.branching, slides, 'The skip logic does not fit the poll');
        changes.branching = input.branching === null ? null : JSON.stringify(input.branching);
      } else if (content !== undefined && current.branching) {
        assertBranchingFits(
          current.branching,
          slides,
          'The new slides break the poll’s skip logic: send `branching` with them (or `null` to remove it)',
        );
      }
      assertPublishable(current, changes, content);
      if (Object.keys(changes).length === 0) return toPoll(current);
      changes.updated_at = now;
      const poll = toPoll(await polls.updatePoll(trx, workspaceId, input.id, changes));
      for (const type of pollUpdateEvents(current, changes)) {
        await recordWebhookEvent(trx, workspaceId, outboxEvent(type, poll, now));
      }
      return poll;
    }),
  );
  await pollCache.invalidate(workspaceId, input.id);
  return updated;
}

/**
 * The webhook events of one PATCH: `poll.published` (published or reopened) or `poll.closed` for a
 * status change, and `poll.updated` when anything else changed (title, slides, branching; or the
 * poll went back to draft) — a PATCH that publishes and retitles makes both.
 */
function pollUpdateEvents(
  current: PollRow,
  changes: PollUpdate,
): Array<'poll.updated' | 'poll.published' | 'poll.closed'> {
  const types: Array<'poll.updated' | 'poll.published' | 'poll.closed'> = [];
  const statusChanged = changes.status !== undefined && changes.status !== current.status;
  if (statusChanged && changes.status === 'published') types.push('poll.published'); // published, or reopened
  if (statusChanged && changes.status === 'closed') types.push('poll.closed');
  const unpublished = statusChanged && changes.status === 'draft';
  if (
    unpublished ||
    changes.title !== undefined ||
    changes.content !== undefined ||
    changes.branching !== undefined ||
    changes.language !== undefined ||
    changes.theme_id !== undefined ||
    changes.text_filter !== undefined ||
    changes.max_respondents !== undefined
  ) {
    types.push('poll.updated');
  }
  return types;
}

export async function deletePoll({ db, pollCache }: PollsDeps, workspaceId: string, id: string) {
  const deleted = await db.transaction().execute(async (trx) => {
    const gone = await polls.deletePoll(trx, workspaceId, id);
    if (gone) await recordWebhookEvent(trx, workspaceId, outboxEvent('poll.deleted', { id, deleted: true }));
    return gone;
  });
  await pollCache.invalidate(workspaceId, id);
  if (!deleted) throw ApiError.notFound('Poll');
  return { id, deleted: true as const };
}

/**
 * The poll row locked FOR UPDATE in the caller's transaction (undefined: no such poll in the
 * workspace). Answer batches hold it FOR SHARE while they write (answers/answer-batch.repository.ts):
 * a caller holding it changes the poll's answers with no batch half-written beside it.
 */
export function lockPoll(trx: Kysely<Database>, workspaceId: string, id: string): Promise<PollRow | undefined> {
  return polls.findPollForUpdate(trx, workspaceId, id);
}

/** Moves the poll's version (`updated_at`) in the caller's transaction: answers judged before it are judged again. */
export async function setPollVersion(trx: Kysely<Database>, workspaceId: string, id: string, version: Date) {
  await polls.updatePoll(trx, workspaceId, id, { updated_at: version });
}

/**
 * Locks the workspace's polls among `pollIds` FOR UPDATE in the caller's transaction, in id order
 * (as answer batches lock them FOR SHARE), and answers their decks: an erasure's polls, whose
 * answers it then removes with no batch half-written beside them.
 */
export function lockPollDecks(
  trx: Kysely<Database>,
  workspaceId: string,
  pollIds: string[],
): Promise<Map<string, PollContent['questions']>> {
  return polls.lockPollDecks(trx, workspaceId, pollIds);
}

/**
 * Each poll's id and workspace, as a subquery another module's query joins to keep to one
 * workspace (one statement, as a join on polls itself).
 */
export function pollWorkspaces(db: Kysely<Database>) {
  return polls.pollWorkspaces(db);
}

/** Each poll's id, theme and language, as a subquery the pages' read model joins. */
export function pollPageSettings(db: Kysely<Database>) {
  return polls.pollPageSettings(db);
}
