/**
 * A generated block inside a hand-written document (docs/errors.md's error table, the scope table in
 * docs/authentication.md, the instruction table in docs/branching.md): `document` with what stands between the two markers replaced by
 * `content`. `npx -y pnpm@10 generate` writes the result; `generated:check` and the tests compare it with the
 * committed file.
 */
export function withGeneratedBlock(
  document: string,
  markers: { start: string; end: string; where: string },
  content: string,
): string {
  const start = document.indexOf(markers.start);
  const end = document.indexOf(markers.end);
  if (start < 0 || end < start) throw new Error(`${markers.where} lacks the ${markers.start} markers`);
  return `${document.slice(0, start + markers.start.length)}\n${content}\n${document.slice(end)}`;
}
