/**
 * The text filter's detection engine (server/src/modules/moderation/text-filter.ts): evasions, words
 * that contain a listed one (the Scunthorpe problem), inflections and compounds, language-local
 * terms, masking, a workspace's blocked and allowed terms, hostile input, and the dev phrase sets
 * written by others (server/test/fixtures/text-filter/dev-a.json, dev-b.json).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  compileTermList,
  maskFlagged,
  maskText,
  type ScanOptions,
  scanText,
} from '../../src/modules/moderation/text-filter.js';

/** The words a scan flags, as typed. */
function flaggedWords(text: string, options?: ScanOptions): string[] {
  return scanText(text, options).spans.map((span) => text.slice(span.start, span.end));
}

describe('text filter: plain words, inflections, compounds', () => {
  it.each([
    ['This meeting is fucking long', 'fucking'],
    ['We are so fucked for Q4', 'fucked'],
    ['Motherfucker, that was hard', 'Motherfucker'],
    ['Total bullshit numbers', 'bullshit'],
    ['Why is the wifi so shitty?', 'shitty'],
    ['What a dipshit', 'dipshit'],
    ['Our manager is an asshole', 'asshole'],
    ['Who is the bitch who muted me', 'bitch'],
    ['son of a bitch, sonofabitch', 'bitch'],
    ['Was für ein Scheißtag', 'Scheißtag'],
    ['Die Scheißpräsentation nervt', 'Scheißpräsentation'],
    ['Hundescheiße im Park', 'Hundescheiße'],
    ['Der Chef ist ein Arschloch', 'Arschloch'],
    ['So eine Arschgeige', 'Arschgeige'],
    ['Welcher Wichser war das?', 'Wichser'],
    ['Der Ton ist echt beschissen', 'beschissen'],
    ['Mit der Deadline sind wir gefickt', 'gefickt'],
    ['Ma che cazzata è questa?', 'cazzata'],
    ['Basta con queste stronzate', 'stronzate'],
    ['Sono incazzato nero', 'incazzato'],
    ['Questo rompicoglioni parla ancora', 'rompicoglioni'],
    ['Vaya lunes más jodido', 'jodido'],
    ['El jefe es un gilipollas', 'gilipollas'],
    ['Vaya putada', 'putada'],
    ['Tô fodido com esse prazo', 'fodido'],
    ['Foda-se, vou embora', 'Foda'],
    ['Que putaria é essa?', 'putaria'],
    ['Le nouveau chef est un connard', 'connard'],
    ['Quelle connasse', 'connasse'],
    ['Quelle salope', 'salope'],
    ["C'est quel enculé qui a coupé le son ?", 'enculé'],
    ['Die manager is een klootzak', 'klootzak'],
    ['Wat een kankerlijer', 'kankerlijer'],
    ['Tering, wat duurt dit lang', 'Tering'],
    ['Welke teringlijer heeft dit gepland?', 'teringlijer'],
  ])('%s → %s', (text, word) => {
    expect(flaggedWords(text)).toContain(word);
  });

  it('matches multi-word phrases as one span', () => {
    expect(flaggedWords('Porco dio, ancora problemi')).toEqual(['Porco dio']);
    expect(flaggedWords('Vai tomar no cu, organizador')).toEqual(['Vai tomar no cu']);
    expect(flaggedWords('Mandou tomar no cu')).toEqual(['tomar no cu']);
    expect(flaggedWords('Nique ta mère')).toEqual(['Nique ta mère']);
    expect(flaggedWords('Ce mec est un vrai trou du cul')).toEqual(['trou du cul']);
  });
});

describe('text filter: evasions', () => {
  it.each([
    // letters repeated
    ['Fuuuuuck, wrong option', 'Fuuuuuck'],
    ['shiiiit, late again', 'shiiiit'],
    ['caaazzo che noia', 'caaazzo'],
    ['Merrrrrde, raté', 'Merrrrrde'],
    ['mierdaaaa de wifi', 'mierdaaaa'],
    ['fuuck this', 'fuuck'],
    // digits and symbols for letters
    ['sh1t slides', 'sh1t'],
    ['f*ck this survey', 'f*ck'],
    ['What a c*nt move', 'c*nt'],
    ['The a$$hole in row 3', 'a$$hole'],
    ['the a**hole in row 3', 'a**hole'],
    ["Who's the b!tch who muted me?", 'b!tch'],
    ['Why won’t this b1tch connect', 'b1tch'],
    ['Der Typ ist ein @rschloch', '@rschloch'],
    ['p0rra de internet', 'p0rra'],
    ['m1erda de presentación', 'm1erda'],
    ['Ma che c@zzo dici?', 'c@zzo'],
    ['Quelle c0nnasse', 'c0nnasse'],
    ['n1gg3r', 'n1gg3r'],
    ['$hit happens', '$hit'],
    // spaced-out letters
    ['f u c k mondays', 'f u c k'],
    ['s.h.i.t happens', 's.h.i.t'],
    ['m-e-r-d-e, encore une panne', 'm-e-r-d-e'],
    ['Basta c_a_z_z_o', 'c_a_z_z_o'],
    ['The presenter is an a s s h o l e', 'a s s h o l e'],
    ['S c h e i ß e, schon wieder', 'S c h e i ß e'],
    ['¡Callaos ya, c.a.b.r.o.n.e.s!', 'c.a.b.r.o.n.e.s'],
    ['f . u . c . k this', 'f . u . c . k'],
    ['s h 1 t, again', 's h 1 t'],
    // look-alike letters from Cyrillic and Greek
    ['ѕhit, I missed it', 'ѕhit'],
    ['fuсk off', 'fuсk'],
    ['So ein Аrschloch', 'Аrschloch'],
    ['Quel cοnnard', 'cοnnard'],
    ['Il prof è uno strοnzo', 'strοnzo'],
    ['Wat een klоotzak', 'klоotzak'],
    ['Que pоrra é essa?', 'pоrra'],
    // accents added or stripped, ß and ss
    ['alles scheisse hier', 'scheisse'],
    ['SCHEISSE!!!', 'SCHEISSE'],
    ['Scheiße, verpasst', 'Scheiße'],
    ['Vai se fóder', 'fóder'],
    ["J'ai complètement merdé le quiz", 'merdé'],
    ['¿Por qué coño no se oye nada?', 'coño'],
    ['El cabron que puso la reunión', 'cabron'],
    // fullwidth and other compatibility forms
    ['ｆｕｃｋ this quiz', 'ｆｕｃｋ'],
    ['Qué ｍｉｅｒｄａ de sonido', 'ｍｉｅｒｄａ'],
    ['𝐟𝐮𝐜𝐤 this', '𝐟𝐮𝐜𝐤'],
    ['ⓕⓤⓒⓚ this', 'ⓕⓤⓒⓚ'],
    // mixed case
    ['MoThErFuCkEr', 'MoThErFuCkEr'],
    ['JoDeR, otra vez', 'JoDeR'],
    ['PuTaIn de quiz', 'PuTaIn'],
  ])('%s → %s', (text, word) => {
    expect(flaggedWords(text)).toEqual([word]);
  });

  it.each([
    ['U+200B zero-width space', '\u200b'],
    ['U+200C zero-width non-joiner', '\u200c'],
    ['U+200D zero-width joiner', '\u200d'],
    ['U+2060 word joiner', '\u2060'],
    ['U+FEFF zero-width no-break space', '\ufeff'],
    ['U+00AD soft hyphen', '\u00ad'],
    ['U+034F combining grapheme joiner', '\u034f'],
  ])('skips %s inside a word, and the span keeps it', (_name, invisible) => {
    const text = `Che m${invisible}erda di audio`;
    const scan = scanText(text);
    expect(scan.flagged).toBe(true);
    expect(scan.spans).toEqual([{ start: 4, end: 10 }]);
    expect(maskText(text, scan.spans)).toBe('Che m**** di audio');
  });

  it('reads combining accents and strike-through marks as the letters they sit on', () => {
    expect(flaggedWords('me\u0301rde alors')).toEqual(['me\u0301rde']);
    expect(flaggedWords('f\u0336u\u0336c\u0336k\u0336 it')).toEqual(['f\u0336u\u0336c\u0336k\u0336']);
  });

  it('nicknames: CamelCase parts and digits at the ends', () => {
    expect(flaggedWords('BigDick69', { language: 'en' })).toEqual(['Dick']);
    expect(flaggedWords('B1gD1ck')).toEqual(['D1ck']); // typed with an evasion: local terms apply
    expect(flaggedWords('Slut4U')).toEqual(['Slut']);
    expect(flaggedWords('Schlampe99')).toEqual(['Schlampe']);
    expect(flaggedWords('CazzoDuro')).toEqual(['Cazzo']);
    expect(flaggedWords('Stronzo_88')).toEqual(['Stronzo']);
    expect(flaggedWords('FuCkFaCe')).toEqual(['FuCkFaCe']);
  });

  it('joins only runs of three or more single characters', () => {
    expect(scanText('a s s').flagged).toBe(true); // spaced-out: local "ass" applies (an evasion)
    expect(scanText('I am a s...').flagged).toBe(false);
    expect(scanText('Plan A, B or C, your call').flagged).toBe(false);
    expect(scanText('Options a b c d e f').flagged).toBe(false);
    expect(scanText('U.S.A. and the E.U.').flagged).toBe(false);
  });

  it('keeps what maskText writes clean, and self-censored junk too', () => {
    for (const masked of ['f***', 'f****** long', 's***', 'a******', 'c*', 'b***h', 'T?%T', 'co#80']) {
      expect(scanText(masked).flagged, masked).toBe(false);
    }
  });
});

describe('text filter: words that contain a listed one are never touched', () => {
  const traps = [
    // from the brief
    'Scunthorpe',
    'Sussex',
    'Essex',
    'Penistone',
    'Cockburn',
    'Dickens',
    'Hancock',
    'assassin',
    'assessment',
    'cocktail',
    'peacock',
    'classic',
    'passion',
    'shiitake',
    'therapist',
    'analysis',
    'grapefruit',
    'Matsushita',
    'Cumberbatch',
    'Hitchcock',
    'sextant',
    'computadora',
    'disputa',
    'stronzio',
    'cazzuola',
    'concombre',
    'habiter',
    'Schmuck',
    'Gift',
    'Kunst',
    'Bitche',
    // more, from every language
    'Shiite',
    'mishit',
    'Arsenal',
    'Cumbria',
    'Middlesex',
    'title',
    'kit',
    'Bitte',
    'Barsch',
    'Marsch',
    'Aarschot',
    'Schießstand',
    'Spaß',
    'Kassel',
    'Passau',
    'Analyse',
    'Pute',
    'Putenbrust',
    'FDP',
    'huren',
    'akut',
    'Fokker',
    'trafficker',
    'Schwank',
    'saloppe',
    'négligé',
    'réputation',
    'député',
    'salopette',
    'culture',
    'curriculum',
    'vehículo',
    'diputado',
    'cabrito',
    'coñac',
    'pollo',
    'cojín',
    'cazo',
    'Putumayo',
    'cono',
    'retrasado',
    'Troia',
    'cogliere',
    'ficus',
    'puttanesca',
    'Cazzago',
    'Cazzaniga',
    'Ficarra',
    'certificato',
    'merenda',
    'ritardo',
    'Cocullo',
    'Hoera',
    'kanker',
    'verhoer',
    'negeer',
    'Lulu',
    'kunt',
    'joden',
    'ietwat',
    'spouwanker',
    'carnavalshit',
    'meerde',
    'porta',
    'mercado',
    'cuidado',
    'Cuiabá',
    'Carvalho',
    'Pinto',
    'fodder',
    'fickle',
    'Kutcher',
    'Yakut',
    'Nipissing',
    'tapisser',
    'cullo',
    'puttee',
    'Elul',
    'Jodi',
    'Dick Advocaat',
    'Dick Smith',
    'Moby Dick',
    'De Cock',
    'Maricá',
    // technical text: certificate lists, base64, printf formats
    'CRL',
    'KRL',
    'CuMfoIS0BmFiY2RlZoiQBBMWCgA4FiEE',
    'co#80',
    '%s/%?T?%T/?%S',
    'ƒ(x) = 2x',
    '1 2 3 4',
  ];
  it.each(traps)('%s', (word) => {
    expect(scanText(word).flagged).toBe(false);
    expect(scanText(`We talked about ${word} today`).flagged).toBe(false);
  });

  it.each([
    ['Let’s list the pros and cons before we vote', 'fr'],
    ['¿Se puede votar con el móvil?', 'fr'],
    ['Un café con leche, por favor', 'fr'],
    ['Possiamo parlare con il fornitore?', 'fr'],
    ['Der Bericht ist ganz schön dick, 80 Seiten', 'en'],
    ['Er ist ein Ass im Tennis', 'en'],
    ['Hicimos una porra para el Mundial', 'pt'],
    ['Bitte etwas lauter sprechen', 'fr'],
    ['Ik doneer aan KWF voor onderzoek naar kanker', 'nl'],
    ['We gaan een auto huren', 'de'],
    ['Putenbrust mit Reis', 'fr'],
    ['El vuelo va retrasado una hora', 'es'],
    ['Abbiamo visitato Troia, in provincia di Foggia', 'it'],
    ['¿Cómo se calcula el volumen de un cono?', 'es'],
    ['Die FDP hat gewonnen', 'fr'],
    ['On va pique-niquer au parc', 'fr'],
    ['Il habite au fond d’un cul-de-sac', 'fr'],
    ['Der Hund lief bellend davon', 'en'],
    ['Tem mofo no pão, que nojo', 'en'],
    ['Le case sono arse dal sole', 'en'],
  ])('in context: %s (poll language %s)', (text, language) => {
    expect(scanText(text, { language }).flagged).toBe(false);
  });
});

describe('text filter: language-local terms', () => {
  it('applies a local term in its own language only', () => {
    expect(scanText('Quel con, celui-là', { language: 'fr' }).flagged).toBe(true);
    expect(scanText('Quel con, celui-là').flagged).toBe(true); // the words tell French
    expect(scanText('con', { language: 'es' }).flagged).toBe(false);
    expect(scanText('con', { language: 'fr' }).flagged).toBe(true);
    expect(scanText('con').flagged).toBe(false);
  });

  it('guesses the text’s own language from its function words', () => {
    expect(scanText('Porra, de novo o microfone falhando').flagged).toBe(true);
    expect(scanText('Che figa la relatrice').flagged).toBe(true);
    expect(scanText('Seul un pédé choisirait la réponse B').flagged).toBe(true);
    expect(scanText('You are such an ass').flagged).toBe(true);
    expect(scanText('What a dick move').flagged).toBe(true);
    // the text's language beats the poll's
    expect(scanText('Hicimos una porra para el Mundial', { language: 'pt' }).flagged).toBe(false);
  });

  it('applies a local term typed with an evasion whatever the language', () => {
    expect(scanText('p0rra').flagged).toBe(true);
    expect(scanText('p-o-r-r-a, cadê o slide?').flagged).toBe(true);
    expect(scanText('pоrra').flagged).toBe(true); // Cyrillic о
    expect(scanText('porra').flagged).toBe(false);
  });

  it('accepts BCP 47 tags', () => {
    expect(scanText('porra', { language: 'pt-BR' }).flagged).toBe(true);
    expect(scanText('porra', { language: 'PT_pt' }).flagged).toBe(true);
  });
});

describe('text filter: masking', () => {
  it('keeps the first letter of each flagged word and stars the rest', () => {
    expect(maskFlagged('This meeting is fucking long').text).toBe('This meeting is f****** long');
    expect(maskFlagged('Total bullshit, shitty numbers').text).toBe('Total b*******, s***** numbers');
    expect(maskFlagged('The a$$hole in row 3').text).toBe('The a****** in row 3');
    expect(maskFlagged('Der Typ ist ein @rschloch').text).toBe('Der Typ ist ein @********');
    expect(maskFlagged('Porco dio, ancora').text).toBe('P**** ***, ancora');
  });

  it('leaves none of the word’s letters after the first, whatever the evasion', () => {
    const cases = ['f u c k', 's.h.i.t', 'fu\u200bck', 'ѕhit', '𝐟𝐮𝐜𝐤', 'me\u0301rde', 'S c h e i ß e', 'sh1t'];
    for (const text of cases) {
      const { text: masked, flagged } = maskFlagged(text);
      expect(flagged, text).toBe(true);
      expect(masked.slice(0, 1), text).toBe(text.slice(0, 1));
      expect(
        [...masked.slice((text.codePointAt(0) as number) > 0xffff ? 2 : 1)].every((c) => c === '*' || c === ' '),
        masked,
      ).toBe(true);
    }
    expect(maskFlagged('f u c k mondays').text).toBe('f * * * mondays');
    expect(maskFlagged('𝐟𝐮𝐜𝐤 this').text).toBe('𝐟*** this');
  });

  it('spans are UTF-16 offsets into the original text', () => {
    const text = '😀 ok 𝐟𝐮𝐜𝐤 and s.h.i.t';
    const { spans } = scanText(text);
    expect(spans.map((s) => text.slice(s.start, s.end))).toEqual(['𝐟𝐮𝐜𝐤', 's.h.i.t']);
  });

  it('returns clean text unchanged, and flags nothing', () => {
    expect(maskFlagged('Great session, thanks! 🙌')).toEqual({ text: 'Great session, thanks! 🙌', flagged: false });
    expect(maskText('unchanged', [])).toBe('unchanged');
  });

  it('masks overlapping or unordered spans once', () => {
    expect(
      maskText('shit and fuck', [
        { start: 9, end: 13 },
        { start: 0, end: 4 },
        { start: 1, end: 3 },
      ]),
    ).toBe('s*** and f***');
  });
});

describe('text filter: a workspace’s blocked and allowed terms', () => {
  it('blocked terms add to the built-ins, with the same evasions, whole words only', () => {
    const blocked = compileTermList(['synergy', 'Acme Corp', 'idiot*', '*gate']);
    expect(blocked.size).toBe(4);
    expect(flaggedWords('More synergy please', { blocked })).toEqual(['synergy']);
    expect(flaggedWords('More syn3rgy, s y n e r g y', { blocked })).toEqual(['syn3rgy', 's y n e r g y']);
    expect(flaggedWords('synergyst synergies', { blocked })).toEqual([]);
    expect(flaggedWords('We hate ACME  corp.', { blocked })).toEqual(['ACME  corp']);
    expect(flaggedWords('idiots and idiotic', { blocked })).toEqual(['idiots', 'idiotic']);
    expect(flaggedWords('Watergate, gate', { blocked })).toEqual(['Watergate', 'gate']);
    expect(flaggedWords('this is shit', { blocked })).toEqual(['shit']);
  });

  it('allowed terms beat built-in and blocked terms on the exact same word', () => {
    const allowed = compileTermList(['shit', 'Hancock Dick', 'synergy']);
    const blocked = compileTermList(['synergy']);
    expect(scanText('shit', { allowed }).flagged).toBe(false);
    expect(flaggedWords('shit and bullshit', { allowed })).toEqual(['bullshit']);
    expect(scanText('Hancock Dick', { allowed, language: 'en' }).flagged).toBe(false);
    expect(flaggedWords('dick', { allowed, language: 'en' })).toEqual(['dick']);
    expect(scanText('synergy', { allowed, blocked }).flagged).toBe(false);
  });

  it('leaves out terms with no letter or digit, and trims to 64 characters', () => {
    expect(compileTermList(['', '   ', '***', '!!', 'ok']).size).toBe(1);
    const long = compileTermList(['a'.repeat(80)]);
    expect(scanText('a'.repeat(64), { blocked: long }).flagged).toBe(true);
  });
});

describe('text filter: hostile input stays linear', () => {
  it.each([
    ['a a a a …', 'a '.repeat(50_000), 0],
    ['f u c k repeated', 'f u c k '.repeat(12_500), 1],
    ['separators', '.-_ /'.repeat(20_000), 0],
    ['one long word', 'a'.repeat(100_000), 0],
    ['combining marks', `a${'\u0301'.repeat(100_000)}`, 0],
    ['zero-width run', `f${'\u200b'.repeat(100_000)}uck`, 1],
    ['wildcards', '*a'.repeat(50_000), 0],
    ['leet', '5h1t '.repeat(20_000), 20_000],
    ['CamelCase', 'Ab'.repeat(50_000), 0],
    ['phrase heads', 'you a '.repeat(16_000), 0],
    ['fuck fuck …', 'fuck '.repeat(20_000), 20_000],
  ])('%s', (_name, text, spans) => {
    const scan = scanText(text);
    // Spaced-out letters join into one word however long the run is.
    expect(scan.spans.length).toBe(spans);
    expect(maskText(text, scan.spans).length).toBeLessThanOrEqual(text.length);
  });
});

interface Phrase {
  text: string;
  language: string;
  field: string;
  expect: 'flagged' | 'clean' | 'borderline';
  terms?: string[];
  note?: string;
}

/** Scores a phrase set: caught rate over `flagged`, and `clean` phrases the filter altered. */
function score(phrases: Phrase[], withLanguage: boolean) {
  const misses: string[] = [];
  const altered: string[] = [];
  let flagged = 0;
  let caught = 0;
  for (const phrase of phrases) {
    const result = maskFlagged(phrase.text, withLanguage ? { language: phrase.language } : {});
    if (phrase.expect === 'flagged') {
      flagged += 1;
      if (result.flagged) caught += 1;
      else misses.push(`[${phrase.language}] ${phrase.text} (${phrase.note ?? ''})`);
    } else if (phrase.expect === 'clean' && result.text !== phrase.text) {
      altered.push(`[${phrase.language}] ${phrase.text} → ${result.text}`);
    }
  }
  return { rate: caught / flagged, caught, flagged, misses, altered };
}

describe('text filter: dev phrase sets', () => {
  // Only dev-a and dev-b: holdout.json is scored by someone else, never here.
  const phrases = ['dev-a.json', 'dev-b.json'].flatMap(
    (file) => JSON.parse(readFileSync(new URL(`../fixtures/text-filter/${file}`, import.meta.url), 'utf8')) as Phrase[],
  );

  it('catches ≥ 95 % of flagged phrases and alters no clean one (with the poll language)', () => {
    const result = score(phrases, true);
    console.log(
      `dev sets, with language: caught ${result.caught}/${result.flagged} (${(result.rate * 100).toFixed(1)} %), ` +
        `clean altered ${result.altered.length}`,
    );
    for (const miss of result.misses) console.log(`  missed: ${miss}`);
    for (const line of result.altered) console.log(`  altered: ${line}`);
    expect(result.rate).toBeGreaterThanOrEqual(0.95);
    expect(result.altered).toEqual([]);
  });

  it('catches ≥ 95 % of flagged phrases and alters no clean one (without a language)', () => {
    const result = score(phrases, false);
    console.log(
      `dev sets, no language: caught ${result.caught}/${result.flagged} (${(result.rate * 100).toFixed(1)} %), ` +
        `clean altered ${result.altered.length}`,
    );
    for (const miss of result.misses) console.log(`  missed: ${miss}`);
    for (const line of result.altered) console.log(`  altered: ${line}`);
    expect(result.rate).toBeGreaterThanOrEqual(0.95);
    expect(result.altered).toEqual([]);
  });
});
