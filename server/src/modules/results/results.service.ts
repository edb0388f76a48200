import { type Poll, type PollResults, resultsFiles, type Slide, type SlideResult } from '@pollkit/contracts';
import type { FileDownload } from '../../core/file-download.js';
import {
  type ResultsScope,
  recentTexts,
  resultTallies,
  resultTotals,
  topQuestions,
  topWords,
} from '../answers/index.js';
import { tallyKey } from '../answers/tallies.js';
import { type HeldScopes, holdsScope } from '../credentials/credential-scopes.js';
import { type ModerationDeps, pollTextPolicies, type TextPolicy } from '../moderation/index.js';
import { getPoll, type PollsDeps } from '../polls/polls.service.js';
import { csvChunks } from './csv-export.js';
import { multipleChoiceResult, quizResult, rankingResult, scaleResult, TallyIndex } from './slide-aggregates.js';
import { xlsxChunks } from './xlsx-export.js';

/** What results read: the poll, its aggregates, and the workspace's text filter lists. */
export type ResultsDeps = PollsDeps & ModerationDeps;

/** How many items the top-N lists of the results hold (the contract's descriptions say the same). */
const resultLimits = { recentAnswers: 20, cloudWords: 50, topQuestions: 50 } as const;

/** Words read past the cloud's size, to fill the places of flagged words left out. */
const CLOUD_SPARE_WORDS = 10;

/**
 * `GET /polls/{id}/results`. A fixed number of indexed reads whatever the number of answers: poll_stats,
 * the poll's slide_tallies, and per open-ended and Q&A slide one or two bounded top-N lists.
 */
export async function getResults(
  deps: ResultsDeps,
  workspaceId: string,
  scopes: HeldScopes,
  pollId: string,
): Promise<PollResults> {
  // Resolving the poll first keeps workspaces apart: another workspace's poll id is a 404.
  return resultsReadableWith(scopes, await resultsOf(deps, workspaceId, await getPoll(deps, workspaceId, pollId)));
}

/**
 * The results as a caller holding `scopes` reads them. The quiz answer key (`correct`,
 * `correctAnswers`, `correctRate`) is the poll's (`polls:read`): a credential or a host token with
 * `responses:read` alone reads the counts without it, as its event stream does.
 */
export function resultsReadableWith(scopes: HeldScopes, results: PollResults): PollResults {
  if (holdsScope(scopes, 'polls:read')) return results;
  return { ...results, slides: results.slides.map(resultWithoutKey) };
}

/** A quiz's results without the answer key; other kinds as they are. */
export function resultWithoutKey(result: SlideResult): SlideResult {
  if (result.kind !== 'quiz') return result;
  const { correctAnswers: _count, correctRate: _rate, options, ...rest } = result;
  return { ...rest, options: options.map(({ correct: _correct, ...option }) => option) };
}

/**
 * The results of a poll already resolved: of the whole poll, or of one of its sessions (`sessionId`:
 * a room's own aggregates — what its screens, summary and `GET /sessions/{id}/results` show). Texts
 * read as everybody is shown them: flagged words masked, unless the slide's filter is `off`.
 */
export async function resultsOf(
  deps: ResultsDeps,
  workspaceId: string,
  poll: Poll,
  sessionId?: string,
): Promise<PollResults> {
  const scope = { pollId: poll.id, sessionId };
  const [totals, tallyRows, policies] = await Promise.all([
    resultTotals(deps.db, scope),
    resultTallies(deps.db, scope),
    pollTextPolicies(deps, workspaceId, poll),
  ]);
  const tallies = new TallyIndex(tallyRows);
  const slides = await Promise.all(
    poll.content.questions.map((slide) => slideResult(deps, scope, slide, tallies, policies.forSlide(slide))),
  );
  return { pollId: poll.id, totalVoters: totals.voters, slides };
}

/** One slide's results in a session: what a live session shows on screen, refreshed a few times a second. */
export async function slideResultOf(
  deps: ResultsDeps,
  workspaceId: string,
  poll: Poll,
  slide: Slide,
  sessionId: string,
): Promise<SlideResult> {
  const scope = { pollId: poll.id, sessionId };
  const [tallyRows, policies] = await Promise.all([
    resultTallies(deps.db, scope, slide.id),
    pollTextPolicies(deps, workspaceId, poll),
  ]);
  return slideResult(deps, scope, slide, new TallyIndex(tallyRows), policies.forSlide(slide));
}

/** How many answers a result counts (questions, on a Q&A slide). */
export function answerCountOf(result: SlideResult): number {
  if (result.kind === 'qa') return result.totalQuestions;
  if (result.kind === 'content') return 0;
  return result.totalAnswers;
}

async function slideResult(
  deps: ResultsDeps,
  scope: ResultsScope,
  slide: Slide,
  tallies: TallyIndex,
  policy: TextPolicy,
): Promise<SlideResult> {
  switch (slide.kind) {
    case 'multiple_choice':
      return multipleChoiceResult(slide, tallies);
    case 'quiz':
      return quizResult(slide, tallies);
    case 'scale':
      return scaleResult(slide, tallies);
    case 'ranking':
      return rankingResult(slide, tallies);
    case 'open_ended': {
      // Flagged words leave the cloud: a few more are read so that the cloud stays full without them.
      const [recent, words] = await Promise.all([
        recentTexts(deps.db, scope, slide.id, resultLimits.recentAnswers),
        topWords(deps.db, scope, slide.id, resultLimits.cloudWords + CLOUD_SPARE_WORDS),
      ]);
      return {
        slideId: slide.id,
        text: slide.text,
        kind: 'open_ended',
        totalAnswers: tallies.count(slide.id, tallyKey.answers),
        recent: recent.map((answer) => ({
          text: policy.shown(answer.text),
          createdAt: answer.createdAt.toISOString(),
        })),
        words: (policy.mode === 'off' ? words : words.filter((entry) => !policy.flagged(entry.word))).slice(
          0,
          resultLimits.cloudWords,
        ),
      };
    }
    case 'qa': {
      const questions = await topQuestions(deps.db, scope, slide.id, resultLimits.topQuestions);
      return {
        slideId: slide.id,
        text: slide.text,
        kind: 'qa',
        totalQuestions: tallies.count(slide.id, tallyKey.answers),
        questions: questions.map((q) => ({
          id: q.id,
          text: policy.shown(q.text),
          upvotes: q.upvotes,
          createdAt: q.createdAt.toISOString(),
        })),
      };
    }
    case 'content':
      return { slideId: slide.id, text: slide.text, kind: 'content' };
  }
}

/** The files a results export downloads: `csv` (the default) or `xlsx`. */
export type ExportFormat = keyof typeof resultsFiles;

/**
 * `GET /polls/{id}/export`. The poll is resolved and its counters read before anything is sent, so a
 * 404 is still a proper error; the rows then stream (see csv-export.ts and xlsx-export.ts).
 */
export async function exportResults(
  deps: ResultsDeps,
  workspaceId: string,
  pollId: string,
  format: ExportFormat = 'csv',
): Promise<FileDownload> {
  return exportOf(deps, workspaceId, await getPoll(deps, workspaceId, pollId), undefined, format);
}

/**
 * The export of a poll already resolved, or of one of its sessions (`sessionId`): the same rows,
 * from the session's own aggregates, named `session-<id>-results.<format>`.
 */
export async function exportOf(
  deps: ResultsDeps,
  workspaceId: string,
  poll: Poll,
  sessionId?: string,
  format: ExportFormat = 'csv',
): Promise<FileDownload> {
  const scope = { pollId: poll.id, sessionId };
  const [tallyRows, policies] = await Promise.all([
    resultTallies(deps.db, scope),
    pollTextPolicies(deps, workspaceId, poll),
  ]);
  const name = sessionId === undefined ? `poll-${poll.id}-results` : `session-${sessionId}-results`;
  const write = format === 'xlsx' ? xlsxChunks : csvChunks;
  return {
    filename: `${name}.${format}`,
    contentType: resultsFiles[format].contentType,
    chunks: write(deps.db, poll, new TallyIndex(tallyRows), scope, policies.forSlide),
  };
}
