/**
 * The text filter's detection engine (server/src/modules/moderation/text-filter.ts), in process:
 * µs per scanText call on typical 200-character answers (target: under 20 µs), clean and with a
 * flagged word, in four languages and full of evasions; with a workspace's lists; maskFlagged; and
 * hostile inputs of 1,000 / 10,000 / 100,000 characters, whose µs per 1,000 characters must stay
 * flat (linear time: no catastrophic backtracking). Every call passes `{ blocked, allowed }` as the
 * server does (FilterTermsCache compiles both lists for every workspace, most of them empty).
 *
 *   npx tsx --conditions=@pollkit/source server/bench/text-filter.ts [rounds]
 *
 * Each row is measured in `rounds` rounds (default 7) of at least 200 ms after a warm-up, as this
 * process's CPU time (process.cpuUsage: time waiting for a core while other work runs on the
 * machine's two shared cores does not count); it prints the median round and the best one.
 */
import { compileTermList, maskFlagged, scanText } from '../src/modules/moderation/text-filter.js';

const rounds = Number(process.argv[2] ?? 7);

const texts = {
  cleanEn:
    'I think the presentation was really good, but the second part about the quarterly numbers went a bit too ' +
    'fast for me. Could we get the slides afterwards? Thanks a lot to the whole team, see you next week!',
  flaggedEn:
    'Honestly the first half was fine, but the part about the new travel policy was complete bullshit and ' +
    'nobody in our team agrees with it. Could we please discuss it again at the next all-hands meeting?',
  cleanDe:
    'Die Präsentation war sehr gut, aber beim zweiten Teil über die Quartalszahlen ging es mir etwas zu ' +
    'schnell. Können wir die Folien danach bekommen? Vielen Dank an das ganze Team und bis nächste Woche!',
  flaggedFr:
    "La présentation était claire, mais franchement ce nouveau planning c'est de la merde, personne dans " +
    "l'équipe n'a été consulté. Est-ce qu'on peut en reparler à la prochaine réunion, s'il vous plaît ?",
  evasions:
    'Th1s m33ting is f*cking l0ng, the a$$hole in row 3 keeps talking and the ѕhit slides are unreadable, ' +
    'can we s.t.o.p here? ｆｕｃｋ this, honestly. Schei\u200bße, what a waste of everyone’s time today!!',
};

/** What most workspaces have: no terms of their own. */
const noLists = { blocked: compileTermList([]), allowed: compileTermList([]) };
const lists = {
  blocked: compileTermList([
    ...Array.from({ length: 40 }, (_, i) => `competitor${i}`),
    'synergy',
    'circle back',
    'low hanging fruit',
    '*gate',
    'idiot*',
  ]),
  allowed: compileTermList(['Dick Smith', 'Scunthorpe United', 'cocktail hour']),
};

function measure(fn: () => unknown): { median: number; best: number } {
  const perRound: number[] = [];
  // Warm-up: the JIT, the character cache.
  for (let i = 0; i < 20_000; i++) fn();
  for (let round = 0; round < rounds; round++) {
    let calls = 0;
    const started = process.cpuUsage();
    let cpuUs = 0;
    do {
      for (let i = 0; i < 200; i++) fn();
      calls += 200;
      const used = process.cpuUsage(started);
      cpuUs = used.user + used.system;
    } while (cpuUs < 200_000);
    perRound.push(cpuUs / calls);
  }
  perRound.sort((a, b) => a - b);
  return { median: perRound[Math.floor(perRound.length / 2)] as number, best: perRound[0] as number };
}

function row(label: string, chars: number, flagged: boolean, fn: () => unknown): Record<string, string | number> {
  const { median, best } = measure(fn);
  return {
    scenario: label,
    chars,
    flagged: flagged ? 'yes' : 'no',
    'µs median': Number(median.toFixed(2)),
    'µs best': Number(best.toFixed(2)),
    'µs / 1k chars': Number(((median * 1000) / chars).toFixed(2)),
  };
}

const table: Record<string, string | number>[] = [];
for (const [name, text] of Object.entries(texts)) {
  table.push(row(`scanText ${name}`, text.length, scanText(text, noLists).flagged, () => scanText(text, noLists)));
}
for (const name of ['cleanEn', 'flaggedEn'] as const) {
  const text = texts[name];
  table.push(
    row(`scanText ${name}, 45 terms`, text.length, scanText(text, lists).flagged, () => scanText(text, lists)),
  );
}
table.push(row('maskFlagged flaggedFr', texts.flaggedFr.length, true, () => maskFlagged(texts.flaggedFr, noLists)));
console.table(table);

const hostile: Record<string, (n: number) => string> = {
  'a a a a …': (n) => 'a '.repeat(n / 2),
  'f u c k f u c k …': (n) => 'f u c k '.repeat(n / 8),
  'separators . - _ …': (n) => '.-_ /'.repeat(n / 5),
  'one word aaaa…': (n) => 'a'.repeat(n),
  'combining marks': (n) => `a${'\u0301'.repeat(n - 1)}`,
  'zero-width inside': (n) => `f${'\u200b'.repeat(n - 2)}k`,
  'wildcards *a*a*…': (n) => '*a'.repeat(n / 2),
  'leet 5h1t5h1t…': (n) => '5h1t'.repeat(n / 4),
  'CamelCase AbAbAb…': (n) => 'Ab'.repeat(n / 2),
  'shitshitshit…': (n) => 'shit'.repeat(n / 4),
  'phrase heads "a a a"': (n) => 'you a '.repeat(n / 6),
};
const linear: Record<string, string | number>[] = [];
for (const [name, make] of Object.entries(hostile)) {
  const line: Record<string, string | number> = { input: name };
  for (const n of [1_000, 10_000, 100_000]) {
    const text = make(n);
    const runs = n >= 100_000 ? 20 : n >= 10_000 ? 100 : 1000;
    for (let i = 0; i < 3; i++) scanText(text, noLists);
    const started = process.cpuUsage();
    for (let i = 0; i < runs; i++) scanText(text, noLists);
    const used = process.cpuUsage(started);
    const us = (used.user + used.system) / runs;
    line[`µs / 1k chars @ ${n / 1000}k`] = Number(((us * 1000) / text.length).toFixed(2));
  }
  linear.push(line);
}
console.table(linear);
