/**
 * Regenerates the two vendored data files of the text filter (server/src/modules/moderation/):
 *
 *   npx tsx server/scripts/text-filter-lexicon.ts [--check]
 *
 * - `lexicon/confusables.ts`: look-alike letters (Cyrillic, Greek, Armenian, Cherokee, IPA, small
 *   capitals…) mapped to the Latin letter they imitate, from the npm package `unhomoglyph` (MIT),
 *   whose data is Unicode's confusables.txt (https://www.unicode.org/Public/security/latest/).
 *   Only sources outside Latin-1/Latin Extended-A (accents are stripped by NFD instead) whose
 *   skeleton is a Latin letter a–z are kept; a few skeletons that are themselves non-ASCII look-alikes
 *   (small capitals, ĸ, ß for Greek beta) are resolved one step further by SECOND_STEP below.
 * - `lexicon/ldnoobw.ts`: the words of the "List of Dirty, Naughty, Obscene, and Otherwise Bad Words"
 *   (LDNOOBW, CC-BY-4.0) for the seven supported languages, from the npm package `naughty-words`,
 *   curated: only the words listed in KEEP (always on) or LOCAL (on when the poll's language matches)
 *   are taken; every other word of those lists was reviewed and left out as an ordinary word in one
 *   of the languages (es "martillo", nl "gat", pt "comer"…), a clinical or neutral term ("vagina",
 *   "sexual"), a phrase that occurs innocently ("big black", "tied up", "strip club"), or something
 *   other than vulgarity (es "Drogas", "Racista"). The script fails on a KEEP/LOCAL word that the
 *   source no longer has, and prints source words it has never seen (neither kept nor in REVIEWED).
 *
 * With `--check` it writes nothing and exits 1 when either file differs from what it would write.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const here = (path: string) => fileURLToPath(new URL(`../src/modules/moderation/lexicon/${path}`, import.meta.url));
const check = process.argv.includes('--check');
let stale = false;

/** Formats as `pnpm lint` wants it (biome, the repository's formatter). */
function format(file: string, text: string): string {
  return execFileSync('npx', ['biome', 'format', `--stdin-file-path=${file}`], {
    input: text,
    encoding: 'utf8',
    cwd: fileURLToPath(new URL('../..', import.meta.url)),
  });
}

function emit(path: string, raw: string): void {
  const file = here(path);
  const text = format(file, raw);
  let old = '';
  try {
    old = readFileSync(file, 'utf8');
  } catch {}
  if (old === text) return;
  if (check) {
    console.error(`${path} is out of date: run npx tsx server/scripts/text-filter-lexicon.ts`);
    stale = true;
    return;
  }
  writeFileSync(file, text);
  console.log(`wrote ${path}`);
}

// ---------------------------------------------------------------------------------------------
// Confusables

/** Skeletons that are look-alikes themselves, resolved to the Latin letter they stand for. */
const SECOND_STEP: Record<string, string> = {
  ʙ: 'b', // Cyrillic в
  ʜ: 'h', // Cyrillic н
  ĸ: 'k', // Cyrillic к, Greek κ
  ᴛ: 't', // Cyrillic т, Greek τ
  ʍ: 'm', // Cyrillic м
  ꞓ: 'e', // Greek ε, Cyrillic є
  ß: 'b', // Greek β
  ƅ: 'b', // Cyrillic ь
  π: 'n', // Cyrillic п
  ᴎ: 'n', // Cyrillic и (a mirrored N, written for N)
};

/** Look-alikes Unicode does not list as confusable with a Latin letter, but that are written for one. */
const EXTRA: Record<string, string> = {
  χ: 'x',
  ω: 'w',
  μ: 'u',
  ϰ: 'k',
  г: 'r',
  ш: 'w',
  д: 'a',
  я: 'r',
  ё: 'e',
  ї: 'i',
  ђ: 'h',
  ћ: 'h',
  ѝ: 'n',
  й: 'n',
};

const strip = (s: string) => s.normalize('NFD').replace(/[\u0300-\u036f\u0483-\u0489]/g, '');

function confusables(): string {
  const data = require('unhomoglyph/data.json') as Record<string, string>;
  const map = new Map<string, string>();
  for (const [source, skeleton] of Object.entries(data)) {
    const cp = source.codePointAt(0) as number;
    if ([...source].length !== 1 || cp < 0x180) continue; // ASCII, Latin-1, Latin Extended-A: NFD strips accents
    // Latin Extended-B: only letters NFD cannot take apart (ƒ, ƅ…), never those of the seven languages.
    if (cp < 0x250 && /^[a-z]$/i.test(strip(source))) continue;
    if (cp >= 0x300 && cp < 0x370) continue; // combining marks
    if ([...source.normalize('NFKC')].every((c) => (c.codePointAt(0) as number) < 128)) continue; // NFKC makes it ASCII
    let target = strip(skeleton);
    target = SECOND_STEP[target] ?? target;
    target = target.toLowerCase();
    if (!/^[a-z]$/.test(target)) continue; // one letter (a look-alike of a digraph such as ӕ is left out)
    map.set(source, target === 'l' ? 'li' : target); // I and l look alike: a capital-I look-alike may be either
  }
  for (const [source, target] of Object.entries(EXTRA)) {
    map.set(source, target);
    const upper = source.toUpperCase();
    if (upper !== source && !map.has(upper)) map.set(upper, target);
  }
  const entries = [...map].sort(([a], [b]) => (a.codePointAt(0) as number) - (b.codePointAt(0) as number));
  const lines = entries.map(([s, t]) => `  [0x${(s.codePointAt(0) as number).toString(16)}, '${t}'], // ${s}`);
  return `/**
 * GENERATED by server/scripts/text-filter-lexicon.ts — do not edit by hand.
 *
 * Look-alike characters and the Latin letter(s) they imitate: a code point, then the letters it may
 * stand for ("li" where it may be read as l or i). Source: Unicode confusables.txt as packaged by the
 * npm package unhomoglyph ${require('unhomoglyph/package.json').version} (MIT, © Vitaly Puzrin), filtered and resolved as the script says.
 */
export const CONFUSABLES: ReadonlyArray<readonly [number, string]> = [
${lines.join('\n')}
];
`;
}

// ---------------------------------------------------------------------------------------------
// LDNOOBW

type Lang = 'en' | 'de' | 'fr' | 'es' | 'pt' | 'it' | 'nl';

/** Words (and phrases) of each source list that are on for every poll. */
const KEEP: Record<Lang, string[]> = {
  en: [
    '2g1c',
    '2 girls 1 cup',
    'acrotomophilia',
    'alabama hot pocket',
    'anilingus',
    'apeshit',
    'arsehole',
    'asshole',
    'assmunch',
    'babeland',
    'ball gag',
    'ball gravy',
    'ball licking',
    'ball sack',
    'ball sucking',
    'bangbros',
    'bangbus',
    'bastard',
    'bastardo',
    'bdsm',
    'beaner',
    'beaners',
    'beaver cleaver',
    'beaver lips',
    'beastiality',
    'big knockers',
    'big tits',
    'birdlock',
    'bitch',
    'bitches',
    'black cock',
    'blowjob',
    'blow job',
    'blow your load',
    'blue waffle',
    'blumpkin',
    'bollocks',
    'boner',
    'boobs',
    'booty call',
    'brown showers',
    'bukkake',
    'bulldyke',
    'bullet vibe',
    'bullshit',
    'buttcheeks',
    'butthole',
    'camel toe',
    'camslut',
    'camwhore',
    'carpet muncher',
    'carpetmuncher',
    'chocolate rosebuds',
    'circlejerk',
    'cleveland steamer',
    'clit',
    'clover clamps',
    'clusterfuck',
    'creampie',
    'cumshot',
    'cumshots',
    'cunt',
    'darkie',
    'deepthroat',
    'dildo',
    'dingleberry',
    'dingleberries',
    'dirty pillows',
    'dirty sanchez',
    'doggie style',
    'doggiestyle',
    'doggy style',
    'doggystyle',
    'dolcett',
    'donkey punch',
    'double dong',
    'double penetration',
    'dp action',
    'dry hump',
    'dvda',
    'eat my ass',
    'fag',
    'faggot',
    'felch',
    'feltch',
    'female squirting',
    'femdom',
    'figging',
    'fingerbang',
    'footjob',
    'fuck',
    'fuck buttons',
    'fuckin',
    'fucking',
    'fucktards',
    'fudge packer',
    'fudgepacker',
    'futanari',
    'gangbang',
    'gang bang',
    'giant cock',
    'goatcx',
    'goatse',
    'gokkun',
    'golden shower',
    'goodpoop',
    'goo girl',
    'goregasm',
    'hand job',
    'handjob',
    'hentai',
    'honkey',
    'horny',
    'hot carl',
    'jack off',
    'jailbait',
    'jerk off',
    'jigaboo',
    'jiggaboo',
    'jiggerboo',
    'jizz',
    'juggs',
    'kike',
    'knobbing',
    'livesex',
    'male squirting',
    'milf',
    'motherfucker',
    'mr hands',
    'muff diver',
    'muffdiving',
    'nambla',
    'nigga',
    'nigger',
    'nig nog',
    'nutten',
    'omorashi',
    'one cup two girls',
    'one guy one jar',
    'paki',
    'pedobear',
    'piece of shit',
    'pikey',
    'pissing',
    'piss pig',
    'pisspig',
    'pole smoker',
    'poontang',
    'punany',
    'poop chute',
    'poopchute',
    'porn',
    'porno',
    'pthc',
    'pussy',
    'queaf',
    'queef',
    'quim',
    'raghead',
    'raging boner',
    'reverse cowgirl',
    'rimjob',
    'rosy palm and her 5 sisters',
    'rusty trombone',
    'schlong',
    'sexcam',
    'shaved beaver',
    'shaved pussy',
    'shemale',
    'shit',
    'shitblimp',
    'shitty',
    'slanteye',
    'slut',
    'spic',
    'splooge',
    'splooge moose',
    'spooge',
    'strapon',
    'style doggy',
    'throating',
    'thumbzilla',
    'tits',
    'titties',
    'titty',
    'tosser',
    'towelhead',
    'tranny',
    'tub girl',
    'tubgirl',
    'twat',
    'two girls one cup',
    'upskirt',
    'urethra play',
    'voyeurweb',
    'wank',
    'wetback',
    'white power',
    'whore',
    'worldsex',
    'wrinkled starfish',
    'yellow showers',
    'yiffy',
  ],
  de: [
    'analritter',
    'arsch',
    'arschficker',
    'arschlecker',
    'arschloch',
    'bumsen',
    'fick',
    'ficken',
    'flittchen',
    'fotze',
    'hackfresse',
    'hurensohn',
    'kackbratze',
    'kacke',
    'kacken',
    'kackwurst',
    'kampflesbe',
    'kanake',
    'MILF',
    'morgenlatte',
    'neger',
    'nigger',
    'nutte',
    'pimmel',
    'pimpern',
    'pissen',
    'pisser',
    'porno',
    'schlampe',
    'scheiße',
    'scheisser',
    'schwanzlutscher',
    'schwuchtel',
    'titten',
    'wichsen',
    'wichser',
  ],
  fr: [
    'bigornette',
    'bloblos',
    'brackmard',
    'branlage',
    'branler',
    'branlette',
    'branleur',
    'branleuse',
    'brouter le cresson',
    'chiasse',
    'chier',
    'chiottes',
    'clito',
    'connard',
    'connasse',
    'conne',
    'couilles',
    'cramouille',
    'emmerdant',
    'emmerder',
    'emmerdeur',
    'emmerdeuse',
    'enculé',
    'enculée',
    'enculeur',
    'enculeurs',
    'enfoiré',
    'enfoirée',
    'étron',
    'fille de pute',
    'fils de pute',
    'foutre',
    'gouine',
    'grogniasse',
    'la putain de ta mère',
    'MALPT',
    'merde',
    'merdeuse',
    'merdeux',
    'nique ta mère',
    'nique ta race',
    'palucher',
    'pisser',
    'pouffiasse',
    'pousse-crotte',
    'putain',
    'sac à foutre',
    'sac à merde',
    'salaud',
    'salope',
    'teuch',
    'tringler',
    'troncher',
    'trou du cul',
  ],
  es: [
    'bastardo',
    'Bollera',
    'Cabrón',
    'Chupapollas',
    'Concha de tu madre',
    'Coño',
    'Culo',
    'Follador',
    'Follar',
    'Gilipichis',
    'Gilipollas',
    'Hacer una paja',
    'Hija de puta',
    'Hijaputa',
    'Hijo de puta',
    'Hijoputa',
    'Jilipollas',
    'Kapullo',
    'Lameculos',
    'Maricón',
    'Mariconazo',
    'Mierda',
    'Pendejo',
    'Puta',
    'Soplapollas',
    'vete a la mierda',
  ],
  pt: [
    'bastardo',
    'boceta',
    'bosta',
    'cabrao',
    'cacete',
    'caralho',
    'chochota',
    'colhoes',
    'cona',
    'dar o rabo',
    'esporra',
    'filho da puta',
    'foda',
    'foda-se',
    'foder',
    'merda',
    'paneleiro',
    'puta',
    'puta que pariu',
    'puta que te pariu',
    'queca',
    'vadia',
    'vai-te foder',
    'vai tomar no cu',
    'xochota',
  ],
  it: [
    'arrusa',
    'arruso',
    'bagascia',
    'bagassa',
    'baldracca',
    'battona',
    'bocchinara',
    'bucaiolo',
    'budiùlo',
    'busone',
    'cazzata',
    'cazzo',
    'cazzone',
    'ciucciami il cazzo',
    'coglione',
    'coglioni',
    'culattone',
    'culo',
    'figlio di puttana',
    'fottere',
    'fottersi',
    'fregna',
    'frocio',
    'froscio',
    'incazzarsi',
    'incoglionirsi',
    'leccaculo',
    'merda',
    'merdata',
    'merdoso',
    'mignotta',
    'minchia',
    'minchione',
    'nerchia',
    'patonza',
    'pompino',
    'porca madonna',
    'porca puttana',
    'puppami',
    'puttana',
    'recchione',
    'rincoglionire',
    'sborra',
    'sborrata',
    'sborrone',
    'socmel',
    'sorca',
    'spompinare',
    'sticchio',
    'stronza',
    'stronzata',
    'stronzo',
    'terrone',
    'testa di cazzo',
    'vaffanculo',
    'zoccola',
  ],
  nl: [
    'afrukken',
    'besodemieteren',
    'boerelul',
    'bokkelul',
    'flamoes',
    'flikker',
    'gesodemieter',
    'godverdomme',
    'gratenkut',
    'hoer',
    'hoerenloper',
    'klootzak',
    'kloten',
    'kontneuken',
    'kut',
    'kuttelikkertje',
    'lul',
    'lulhannes',
    'neuken',
    'neukstier',
    'oetlul',
    'opkankeren',
    'opsodemieteren',
    'paardelul',
    'pleurislaaier',
    'portiekslet',
    'reetridder',
    'rothoer',
    'schijt',
    'schijten',
    'shit',
    'slet',
    'sletterig',
    'slik mijn zaad',
    'stoephoer',
    'stront',
    'teringlijer',
    'trottoirteef',
    'verneuken',
  ],
};

/**
 * Words that are vulgar in one language and ordinary in another of the seven (or in the same one): on
 * only when the poll's language is one of those given.
 */
const LOCAL: Record<Lang, Record<string, Lang[]>> = {
  // cock, dick, negro, poon: in terms.ts, with their rules. German Ass (ace), Italian "bimbo" (child).
  en: { ass: ['en'], bimbos: ['en'] },
  // French "hure" (a boar's head), Dutch "huren" (to rent).
  de: { hure: ['de'] },
  // Spanish/Italian "con" (with), English "bite", German "Pute" (turkey), Catalan "negre" (black).
  fr: { bite: ['fr'], con: ['fr'], cul: ['fr'], pute: ['fr'], nègre: ['fr'] },
  // French "ramera" (will row), the Brazilian town Maricá.
  es: { Marica: ['es', 'pt'], Verga: ['es'], Ramera: ['es'] },
  pt: { cu: ['pt'], porra: ['pt'] },
  // French "tette" (suckles).
  it: { fica: ['it'], figa: ['it'], tette: ['it'] },
  nl: {},
};

/** How many words each list had when KEEP and LOCAL were last reviewed: the script warns when that grows. */
const REVIEWED_SIZES: Record<Lang, number> = { en: 403, de: 66, fr: 91, es: 68, pt: 76, it: 168, nl: 190 };

function ldnoobw(): string {
  const version = require('naughty-words/package.json').version as string;
  const out: string[] = [];
  for (const lang of Object.keys(KEEP) as Lang[]) {
    const source = require(`naughty-words/${lang}.json`) as string[];
    const have = new Set(source);
    if (source.length !== REVIEWED_SIZES[lang]) {
      console.warn(
        `naughty-words ${lang}: ${source.length} words, ${REVIEWED_SIZES[lang]} reviewed — review the new ones`,
      );
    }
    const always = KEEP[lang];
    const local = LOCAL[lang];
    for (const word of [...always, ...Object.keys(local)]) {
      if (!have.has(word)) throw new Error(`naughty-words ${lang} has no "${word}"`);
    }
    const quote = (s: string) => `'${s.toLowerCase().replace(/'/g, "\\'")}'`;
    out.push(`  ${lang}: {`);
    out.push(`    always: [${always.map(quote).join(', ')}],`);
    out.push(
      `    local: [${Object.entries(local)
        .map(([w, langs]) => `[${quote(w)}, [${langs.map((l) => `'${l}'`).join(', ')}]]`)
        .join(', ')}],`,
    );
    out.push('  },');
  }
  return `/**
 * GENERATED by server/scripts/text-filter-lexicon.ts — do not edit by hand (edit KEEP/LOCAL there).
 *
 * Curated words of the "List of Dirty, Naughty, Obscene, and Otherwise Bad Words" (LDNOOBW,
 * https://github.com/LDNOOBW/List-of-Dirty-Naughty-Obscene-and-Otherwise-Bad-Words), © its
 * contributors, licensed CC-BY-4.0 (https://creativecommons.org/licenses/by/4.0/), as packaged by the
 * npm package naughty-words ${version}. Changes: most words of each list were left out (see the
 * script), the rest lower-cased. Each word matches as a whole word (with the filter's evasions); a
 * phrase as consecutive words. \`local\` words apply only when the poll's language is one of those given.
 */
export const LDNOOBW: Record<string, { always: readonly string[]; local: ReadonlyArray<readonly [string, readonly string[]]> }> = {
${out.join('\n')}
};
`;
}

emit('confusables.ts', confusables());
emit('ldnoobw.ts', ldnoobw());
if (stale) process.exit(1);
