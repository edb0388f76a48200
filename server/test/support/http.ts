import type { Slide } from '@pollkit/contracts';
import type { z } from 'zod';
/** Raw HTTP helpers for tests: fetch against the test server, JSON in and out. */
export interface JsonResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  apiKey?: string;
  body?: unknown;
  /** Sent as is, bypassing JSON encoding. */
  rawBody?: string;
  headers?: Record<string, string>;
}

export async function call<T = any>(
  method: string,
  url: string,
  { apiKey, body, rawBody, headers = {} }: RequestOptions = {},
): Promise<JsonResponse<T>> {
  const init: RequestInit = { method, headers: { ...headers } };
  const h = init.headers as Record<string, string>;
  if (apiKey) h.authorization = `Bearer ${apiKey}`;
  if (rawBody !== undefined) {
    init.body = rawBody;
  } else if (body !== undefined) {
    h['content-type'] ??= 'application/json';
    init.body = JSON.stringify(body);
  }
  const response = await fetch(url, init);
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: response.status, headers: response.headers, body: parsed as T, text };
}

/** A small valid deck with one slide of every kind. */
export function sampleContent(): { questions: z.input<typeof Slide>[] } {
  return {
    questions: [
      {
        id: 'lunch',
        kind: 'multiple_choice',
        text: 'Where shall we eat?',
        type: 'single',
        options: [
          { id: 'pizza', label: 'Pizza' },
          { id: 'sushi', label: 'Sushi' },
        ],
      },
      {
        id: 'capital',
        kind: 'quiz',
        text: 'Capital of France?',
        options: [
          { id: 'paris', label: 'Paris' },
          { id: 'lyon', label: 'Lyon' },
        ],
        correctOptionIds: ['paris'],
        timeLimitSec: 20,
        points: 500,
        speedBonus: true,
      },
      {
        id: 'mood',
        kind: 'scale',
        text: 'How do you feel?',
        min: 1,
        max: 5,
        minLabel: 'Bad',
        maxLabel: 'Great',
        statements: [{ id: 'work', text: 'About work' }],
      },
      {
        id: 'rank',
        kind: 'ranking',
        text: 'Rank these',
        options: [
          { id: 'a', label: 'A' },
          { id: 'b', label: 'B' },
          { id: 'c', label: 'C' },
        ],
      },
      { id: 'words', kind: 'open_ended', text: 'One word?', maxLength: 40, render: 'cloud' },
      { id: 'ask', kind: 'qa', text: 'Questions?', moderated: true, allowUpvotes: true },
      { id: 'intro', kind: 'content', text: 'Welcome' },
    ],
  };
}
