import type { SlideKind } from '@pollkit/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resultsContent } from '../support/decks.js';
import { type LooseJson, rawCall } from '../support/http.js';
import { UNLIMITED } from '../support/limits.js';
import { pollPublisher } from '../support/polls.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { expectStatus, slideOf, testClient } from '../support/test-client.js';

/**
 * GET /polls/{id}/results over real HTTP. Answers are submitted through the API; every aggregate is
 * recomputed here from what was submitted and compared with what the server reports.
 */

let t: TestServer;
const api = testClient(() => t.api);
let apiKey: string;
let otherApiKey: string;

beforeAll(async () => {
  // A few hundred calls per file: lift the per-key limit so 429s don't interfere.
  t = await startTestServer(UNLIMITED);
  ({ apiKey } = await t.workspace('pro'));
  ({ apiKey: otherApiKey } = await t.workspace('pro'));
});
afterAll(() => t?.close());

type Json = LooseJson;

const publishedPoll = pollPublisher(() => ({ api: t.api, apiKey, title: 'Results', content: resultsContent() }));

interface Ballot {
  voterId: string;
  slideId: string;
  optionIds?: string[];
  scaleValue?: number;
  scaleValues?: Record<string, number>;
  rankingOrder?: string[];
  text?: string;
}

/** A submitted answer as the server acknowledged it. */
interface Submitted extends Ballot {
  id: string;
  createdAt: string;
}

/** Votes for multiple-choice slides, responses for the rest, as the API wants them. */
async function submit(pollId: string, slides: Json[], ballot: Ballot): Promise<Submitted> {
  const kind = slides.find((s) => s.id === ballot.slideId)?.kind;
  const path = kind === 'multiple_choice' ? 'votes' : 'responses';
  const res = await rawCall<{ id: string; createdAt: string }>('POST', `${t.api}/polls/${pollId}/${path}`, {
    apiKey,
    body: ballot,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { ...ballot, id: res.body.id, createdAt: res.body.createdAt };
}

const round2 = (part: number, whole: number) => (whole === 0 ? 0 : Math.round((part * 10_000) / whole) / 100);
const mean = (values: number[]) => (values.length === 0 ? null : values.reduce((a, b) => a + b, 0) / values.length);
const range = (min: number, max: number) => Array.from({ length: max - min + 1 }, (_, i) => min + i);
const countOf = (values: number[], value: number) => values.filter((v) => v === value).length;

interface QuestionState {
  id: string;
  slideId: string;
  text: string;
  status: 'pending' | 'approved' | 'dismissed';
  upvotes: number;
  createdAt: string;
}

/** What the results must say, computed from the deck and what was submitted — not from the server. */
function expectedResults(pollId: string, slides: Json[], answers: Submitted[], questions: QuestionState[]) {
  const voters = new Set([...answers.map((a) => a.voterId)]);
  return {
    pollId,
    totalVoters: voters.size,
    slides: slides.map((slide) => {
      const mine = answers.filter((a) => a.slideId === slide.id);
      const base = { slideId: slide.id, text: slide.text, kind: slide.kind };
      switch (slide.kind) {
        case 'multiple_choice':
        case 'quiz': {
          const options = slide.options.map((o: Json) => {
            const count = mine.filter((a) => a.optionIds?.includes(o.id)).length;
            return {
              id: o.id,
              label: o.label,
              count,
              percentage: round2(count, mine.length),
              ...(slide.kind === 'quiz' ? { correct: slide.correctOptionIds.includes(o.id) } : {}),
            };
          });
          if (slide.kind === 'multiple_choice') return { ...base, totalAnswers: mine.length, options };
          const correct = [...slide.correctOptionIds].sort().join();
          const correctAnswers = mine.filter((a) => [...(a.optionIds ?? [])].sort().join() === correct).length;
          return {
            ...base,
            totalAnswers: mine.length,
            correctAnswers,
            correctRate: round2(correctAnswers, mine.length),
            options,
          };
        }
        case 'scale': {
          const distribution = (values: number[]) =>
            range(slide.min, slide.max).map((value) => ({ value, count: countOf(values, value) }));
          const statements = slide.statements.map((s: Json) => {
            const values = mine.map((a) => a.scaleValues?.[s.id]).filter((v): v is number => v !== undefined);
            return {
              id: s.id,
              text: s.text,
              totalAnswers: values.length,
              average: mean(values),
              distribution: distribution(values),
            };
          });
          // With statements, the slide level pools every rating of every statement.
          const all = mine.flatMap((a) =>
            a.scaleValues ? Object.values(a.scaleValues) : a.scaleValue === undefined ? [] : [a.scaleValue],
          );
          return {
            ...base,
            totalAnswers: mine.length,
            average: mean(all),
            distribution: distribution(all),
            statements,
          };
        }
        case 'ranking': {
          const n = slide.options.length;
          return {
            ...base,
            totalAnswers: mine.length,
            options: slide.options.map((o: Json) => {
              const positions = mine.map((a) => (a.rankingOrder ?? []).indexOf(o.id) + 1);
              return {
                id: o.id,
                label: o.label,
                averageRank: mean(positions),
                score: positions.reduce((sum, p) => sum + (n - p), 0),
              };
            }),
          };
        }
        case 'open_ended': {
          const texts = mine.map((a) => (a.text ?? '').trim().replace(/\s+/g, ' '));
          const words = new Map<string, number>();
          for (const text of texts) {
            for (const word of new Set(text.toLowerCase().split(' '))) words.set(word, (words.get(word) ?? 0) + 1);
          }
          return {
            ...base,
            totalAnswers: mine.length,
            recent: mine
              .map((a, i) => ({ text: texts[i], createdAt: a.createdAt }))
              .reverse()
              .slice(0, 20),
            words: [...words.entries()]
              .map(([word, count]) => ({ word, count }))
              .sort((a, b) => b.count - a.count || (a.word < b.word ? -1 : 1))
              .slice(0, 50),
          };
        }
        case 'qa':
          return {
            ...base,
            totalQuestions: questions.filter((q) => q.slideId === slide.id).length,
            questions: questions
              .filter((q) => q.slideId === slide.id && q.status === 'approved')
              .sort((a, b) => b.upvotes - a.upvotes || (a.id < b.id ? -1 : 1))
              .slice(0, 50)
              .map(({ id, text, upvotes, createdAt }) => ({ id, text, upvotes, createdAt })),
          };
        default:
          return base;
      }
    }),
  };
}

const getResults = (pollId: string, key = apiKey) =>
  api.request('GET /polls/{id}/results', { params: { id: pollId }, apiKey: key });

describe('GET /polls/{id}/results', () => {
  it('aggregates every slide kind from the submitted answers', async () => {
    const { id: pollId, slides } = await publishedPoll();
    const ballots: Ballot[] = [
      { voterId: 'v1', slideId: 'lunch', optionIds: ['pizza'] },
      { voterId: 'v2', slideId: 'lunch', optionIds: ['sushi'] },
      { voterId: 'v3', slideId: 'lunch', optionIds: ['pizza'] },
      { voterId: 'v4', slideId: 'lunch', optionIds: ['pizza'] },
      { voterId: 'v5', slideId: 'lunch', optionIds: ['sushi'] },
      { voterId: 'v1', slideId: 'toppings', optionIds: ['cheese', 'ham'] },
      { voterId: 'v2', slideId: 'toppings', optionIds: ['cheese'] },
      { voterId: 'v3', slideId: 'toppings', optionIds: ['olives', 'cheese', 'ham'] },
      { voterId: 'v6', slideId: 'toppings', optionIds: ['ham'] },
      { voterId: 'v1', slideId: 'capital', optionIds: ['paris'] },
      { voterId: 'v2', slideId: 'capital', optionIds: ['lyon'] },
      { voterId: 'v3', slideId: 'capital', optionIds: ['paris', 'lyon'] },
      { voterId: 'v4', slideId: 'capital', optionIds: ['paris'] },
      { voterId: 'v6', slideId: 'capital', optionIds: ['lyon', 'paris'] },
      { voterId: 'v1', slideId: 'mood', scaleValues: { work: 4 } },
      { voterId: 'v2', slideId: 'mood', scaleValues: { work: 5 } },
      { voterId: 'v3', slideId: 'mood', scaleValues: { work: 4 } },
      { voterId: 'v4', slideId: 'mood', scaleValues: { work: 1 } },
      { voterId: 'v1', slideId: 'temp', scaleValue: -2 },
      { voterId: 'v2', slideId: 'temp', scaleValue: 0 },
      { voterId: 'v3', slideId: 'temp', scaleValue: 2 },
      { voterId: 'v4', slideId: 'temp', scaleValue: -1 },
      { voterId: 'v5', slideId: 'temp', scaleValue: -1 },
      { voterId: 'v1', slideId: 'pulse', scaleValues: { pace: 1, load: 3 } },
      { voterId: 'v2', slideId: 'pulse', scaleValues: { pace: 2, load: 3 } },
      { voterId: 'v3', slideId: 'pulse', scaleValues: { pace: 3, load: 3 } },
      { voterId: 'v1', slideId: 'rank', rankingOrder: ['a', 'b', 'c'] },
      { voterId: 'v2', slideId: 'rank', rankingOrder: ['b', 'a', 'c'] },
      { voterId: 'v3', slideId: 'rank', rankingOrder: ['c', 'a', 'b'] },
      { voterId: 'v4', slideId: 'rank', rankingOrder: ['a', 'c', 'b'] },
    ];
    const answers = await Promise.all(ballots.map((ballot) => submit(pollId, slides, ballot)));

    // Open-ended, one after another so "newest" is well defined: 26 answers (more than the 20 recent
    // ones), 55 distinct words (more than the 50 in the cloud), words repeated at different rates.
    for (let i = 0; i < 26; i++) {
      const text = `common ${i % 3 === 0 ? 'fizz' : 'buzz'}  w${i}x y${i}z${i === 25 ? ' Common' : ''}`;
      answers.push(await submit(pollId, slides, { voterId: `w${i}`, slideId: 'words', text }));
    }

    // Q&A: a moderated slide (approve two of three) and an open one with more than 50 questions.
    const questions: QuestionState[] = [];
    const ask = async (slideId: string, voterId: string, text: string, status: QuestionState['status']) => {
      const receipt = await submit(pollId, slides, { voterId, slideId, text });
      answers.push(receipt);
      const question = { id: receipt.id, slideId, text, status, upvotes: 0, createdAt: receipt.createdAt };
      questions.push(question);
      return question;
    };
    const releases = await ask('ask', 'v1', 'When is the next release?', 'pending');
    const pizza = await ask('ask', 'v2', 'Will there be pizza?', 'pending');
    await ask('ask', 'v1', 'Can we work remotely?', 'pending');
    const open = await Promise.all(
      Array.from({ length: 53 }, (_, i) => ask('ama', `v${(i % 6) + 1}`, `Open question ${i}`, 'approved')),
    );

    const moderate = async (question: QuestionState, status: QuestionState['status']) => {
      const res = await api.request('PATCH /polls/{id}/questions/{questionId}', {
        params: { id: pollId, questionId: question.id },
        apiKey,
        body: { status },
      });
      expectStatus(res, 200);
      question.status = status;
    };
    const upvote = async (question: QuestionState, voterId: string) => {
      const res = await api.request('POST /polls/{id}/questions/{questionId}/upvotes', {
        params: { id: pollId, questionId: question.id },
        apiKey,
        body: { voterId },
      });
      expectStatus(res, 201);
      question.upvotes += 1;
    };
    await moderate(releases, 'approved');
    await moderate(pizza, 'approved');
    await upvote(releases, 'v2');
    await upvote(releases, 'v3');
    await upvote(pizza, 'v1');
    // The newest open question climbs to the top; another is dismissed and drops out.
    await upvote(open[52]!, 'v1');
    await upvote(open[52]!, 'v2');
    await upvote(open[40]!, 'v3');
    await moderate(open[0]!, 'dismissed');

    const res = await getResults(pollId);
    expectStatus(res, 200);
    const expected = expectedResults(pollId, slides, answers, questions);
    expect(res.body).toEqual(expected);

    // Spot checks that the expectation itself covers what the contract promises.
    expect(expected.totalVoters).toBe(6 + 26);
    const slide = <K extends SlideKind>(id: string, kind: K) => slideOf(res.body.slides, id, kind);
    expect(slide('words', 'open_ended').recent).toHaveLength(20);
    expect(slide('words', 'open_ended').words).toHaveLength(50);
    expect(slide('words', 'open_ended').words[0]).toEqual({ word: 'common', count: 26 });
    expect(slide('ama', 'qa').questions).toHaveLength(50);
    expect(slide('ama', 'qa').questions[0]!.id).toBe(open[52]!.id);
    expect(slide('ama', 'qa').totalQuestions).toBe(53);
    expect(slide('ask', 'qa').questions.map((q: Json) => q.id)).toEqual([releases.id, pizza.id]);
    expect(slide('intro', 'content')).toEqual({ slideId: 'intro', text: 'Welcome', kind: 'content' });
    expect(slide('temp', 'scale').average).toBeCloseTo(-0.4, 10);
    expect(slide('capital', 'quiz')).toMatchObject({ correctAnswers: 2, correctRate: 40 });
  });

  it('reports zeros and nulls for a poll nobody answered, and only the deck’s own options', async () => {
    const { id: pollId, slides } = await publishedPoll();
    // A counter for an option the deck does not have (it cannot happen through the API) is ignored.
    await t.server.deps.db
      .insertInto('slide_tallies')
      .values({ poll_id: pollId, slide_id: 'lunch', key: 'option:ghost', count: 7, total: 0 })
      .execute();

    const res = await getResults(pollId);
    expectStatus(res, 200);
    expect(res.body).toEqual(expectedResults(pollId, slides, [], []));
    const lunch = slideOf(res.body.slides, 'lunch', 'multiple_choice');
    expect(lunch.options).toEqual([
      { id: 'pizza', label: 'Pizza', count: 0, percentage: 0 },
      { id: 'sushi', label: 'Sushi', count: 0, percentage: 0 },
    ]);
    const mood = slideOf(res.body.slides, 'mood', 'scale');
    expect(mood.average).toBeNull();
    expect(mood.distribution).toEqual(range(1, 5).map((value) => ({ value, count: 0 })));
  });

  it('reads a draft poll too (its results are empty)', async () => {
    const created = await api.request('POST /polls', { apiKey, body: { title: 'Draft', content: resultsContent() } });
    expectStatus(created, 201);
    const res = await getResults(created.body.id);
    expectStatus(res, 200);
    expect(res.body).toEqual(expectedResults(created.body.id, created.body.content.questions, [], []));
  });

  it('answers 404 for another workspace’s poll and an unknown one, 402 for a free workspace', async () => {
    const { id: pollId } = await publishedPoll();
    const foreign = await getResults(pollId, otherApiKey);
    expectStatus(foreign, 404);
    expect(foreign.body.error.code).toBe('not_found');

    const unknown = await getResults('poll_01AAAAAAAAAAAAAAAAAAAAAAAA');
    expectStatus(unknown, 404);
    expect(unknown.body.error.code).toBe('not_found');

    const malformed = await getResults('nope');
    expectStatus(malformed, 404);
    expect(malformed.body.error.code).toBe('not_found');

    const { apiKey: freeKey } = await t.workspace('free');
    const free = await getResults(pollId, freeKey);
    expectStatus(free, 402);
    expect(free.body.error.code).toBe('upgrade_required');
  });
});
