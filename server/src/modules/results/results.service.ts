import type { Poll, PollResults, Slide, SlideResult } from '@pollkit/contracts';
import { tallyKey } from '../answers/tallies.js';
import { getPoll, type PollsDeps } from '../polls/polls.service.js';
import { csvChunks } from './csv-export.js';
import * as results from './results.repository.js';
import { multipleChoiceResult, quizResult, rankingResult, scaleResult, TallyIndex } from './slide-aggregates.js';

/** How many items the top-N lists of the results hold (the contract's descriptions say the same). */
export const resultLimits = { recentAnswers: 20, cloudWords: 50, topQuestions: 50 } as const;

/**
 * `GET /polls/{id}/results`. A fixed number of indexed reads whatever the number of answers: poll_stats,
 * the poll's slide_tallies, and per open-ended and Q&A slide one or two bounded top-N lists.
 */
export async function getResults(deps: PollsDeps, workspaceId: string, pollId: string): Promise<PollResults> {
  // Resolving the poll first keeps workspaces apart: another workspace's poll id is a 404.
  return resultsOf(deps, await getPoll(deps, workspaceId, pollId));
}

/** The results of a poll already resolved (live sessions read them for their summary). */
export async function resultsOf(deps: PollsDeps, poll: Poll): Promise<PollResults> {
  const [totals, tallyRows] = await Promise.all([
    results.findPollTotals(deps.db, poll.id),
    results.listTallies(deps.db, poll.id),
  ]);
  const tallies = new TallyIndex(tallyRows);
  const slides = await Promise.all(poll.content.questions.map((slide) => slideResult(deps, poll, slide, tallies)));
  return { pollId: poll.id, totalVoters: totals.voters, slides };
}

/** One slide's results: what a live session shows on screen, refreshed a few times a second. */
export async function slideResultOf(deps: PollsDeps, poll: Poll, slide: Slide): Promise<SlideResult> {
  const tallies = new TallyIndex(await results.listSlideTallies(deps.db, poll.id, slide.id));
  return slideResult(deps, poll, slide, tallies);
}

/** How many answers a result counts (questions, on a Q&A slide). */
export function answerCountOf(result: SlideResult): number {
  if (result.kind === 'qa') return result.totalQuestions;
  if (result.kind === 'content') return 0;
  return result.totalAnswers;
}

async function slideResult(deps: PollsDeps, poll: Poll, slide: Slide, tallies: TallyIndex): Promise<SlideResult> {
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
      const [recent, words] = await Promise.all([
        results.listRecentTexts(deps.db, poll.id, slide.id, resultLimits.recentAnswers),
        results.listTopWords(deps.db, poll.id, slide.id, resultLimits.cloudWords),
      ]);
      return {
        slideId: slide.id,
        text: slide.text,
        kind: 'open_ended',
        totalAnswers: tallies.count(slide.id, tallyKey.answers),
        recent: recent.map((answer) => ({ text: answer.text, createdAt: answer.createdAt.toISOString() })),
        words,
      };
    }
    case 'qa': {
      const questions = await results.listTopQuestions(deps.db, poll.id, slide.id, resultLimits.topQuestions);
      return {
        slideId: slide.id,
        text: slide.text,
        kind: 'qa',
        totalQuestions: tallies.count(slide.id, tallyKey.answers),
        questions: questions.map((q) => ({
          id: q.id,
          text: q.text,
          upvotes: q.upvotes,
          createdAt: q.createdAt.toISOString(),
        })),
      };
    }
    case 'content':
      return { slideId: slide.id, text: slide.text, kind: 'content' };
  }
}

/**
 * `GET /polls/{id}/export`. The poll is resolved and its counters read before anything is sent, so a
 * 404 is still a proper error; the rows then stream (see csv-export.ts).
 */
export async function exportResults(
  deps: PollsDeps,
  workspaceId: string,
  pollId: string,
): Promise<{ filename: string; chunks: AsyncGenerator<string> }> {
  const poll = await getPoll(deps, workspaceId, pollId);
  const tallies = new TallyIndex(await results.listTallies(deps.db, poll.id));
  return { filename: `poll-${poll.id}-results.csv`, chunks: csvChunks(deps.db, poll, tallies) };
}
