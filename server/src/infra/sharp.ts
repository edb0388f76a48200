import type sharpModule from 'sharp';

export type Sharp = typeof sharpModule;

let loading: Promise<Sharp> | undefined;

/**
 * sharp (libvips, a native module) takes 0.1–0.25 s to load, and only media requests use it: it is
 * loaded on the first of them instead of delaying every start (server/bench/RESULTS.md, "Issue 10").
 */
export function loadSharp(): Promise<Sharp> {
  loading ??= import('sharp').then((module) => module.default);
  return loading;
}
