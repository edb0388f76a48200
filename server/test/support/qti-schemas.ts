import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * The IMS QTI 2.1 and IMS CP 1.1 schemas for server/test/system/deck-qti-schema.test.ts, found at test
 * time: they are not in the repository (the workplace keeps content brought from public
 * repositories out of commits; server/test/fixtures/qti/README.md). They are used unmodified, and
 * the addresses they import are mapped to local files by an OASIS XML catalog
 * (`XML_CATALOG_FILES`), so `xmllint --nonet` loads nothing from the network.
 *
 * Where they come from, in this order:
 * 1. `QTI_SCHEMA_DIR`: a folder holding the published files under the names of `SCHEMA_FILES`
 *    (and whatever those import by relative path: TAO's `imscp_v1p1.xsd` imports `w3/xml.xsd`).
 *    Used in place; only the catalog is written, to a temporary folder.
 * 2. The snapshots of the two repositories as bare git directories under `QTI_MIRROR_ROOT`
 *    (default /work/.mirror, `<owner>+<name>/repo`): each file is extracted with
 *    `git show <commit>:<path>` into a temporary folder, byte for byte (its git blob id is checked).
 *
 * A relative `schemaLocation` cannot be mapped by a catalog: xmllint resolves it against the
 * importing file's own address first and asks the catalog about the result (`/tmp/…/w3/xml.xsd`),
 * so an entry named `w3/xml.xsd` never matches ("failed to load external entity"). Such a file is
 * put where the importing file expects it instead.
 */

interface QtiSchemas {
  /** imsqti_v2p1.xsd: for the test and every item. */
  qtiSchema: string;
  /** imscp_v1p1.xsd: for imsmanifest.xml. */
  cpSchema: string;
  /** The environment to run xmllint in: this process's, with `XML_CATALOG_FILES` set to the catalog. */
  env: NodeJS.ProcessEnv;
  /** Where the schemas were found, for messages. */
  source: string;
  /** Removes the temporary folder (the catalog, and the extracted files). */
  dispose(): void;
}

export type QtiSchemasLookup = { schemas: QtiSchemas; reason?: undefined } | { schemas: undefined; reason: string };

/** How to provide the schemas, for a message when they are missing. */
export const QTI_SCHEMAS_HELP =
  'set QTI_SCHEMA_DIR to a folder holding the IMS files (imsqti_v2p1.xsd, apipv1p0_qtiextv2p1_v1p0.xsd, xml.xsd, ' +
  'XInclude.xsd, imscp_v1p1.xsd, imsmd_v1p2p4.xsd, and w3/xml.xsd if the CP schema imports it so), or provide the git snapshots of davemckain/qtiworks ' +
  'and oat-sa/extension-tao-itemqti under QTI_MIRROR_ROOT (default /work/.mirror); ' +
  'see server/test/fixtures/qti/README.md';

const FIXTURES = join(import.meta.dirname, '../fixtures/qti');
/** Written for Pollkit (a stand-in for the W3C MathML 2 schema): in the repository. */
const MATHML_STAND_IN = join(FIXTURES, 'mathml2.xsd');

interface SchemaFile {
  /** Where the file goes in the schema folder (the name `QTI_SCHEMA_DIR` must use). */
  file: string;
  repo: string;
  commit: string;
  path: string;
  /** The git blob id of the file at `commit`: what the extracted bytes must hash to. */
  blob: string;
  /**
   * Imported by a relative path (TAO's copies of the CP and MD schemas import `w3/xml.xsd`): not
   * required in `QTI_SCHEMA_DIR`, whose IMS originals may import the W3C address instead.
   */
  relative?: true;
}

const QTIWORKS = 'davemckain/qtiworks';
const QTIWORKS_COMMIT = 'f1465aad49d575f7fc44ff9eaae3d0d57a323abb';
const QTIWORKS_CATALOG = 'qtiworks-jqtiplus/src/main/resources/uk/ac/ed/ph/jqtiplus/xml-catalog';
const TAO = 'oat-sa/extension-tao-itemqti';
const TAO_COMMIT = '2c7674c7123824e9fcabb85b15eb3993cb5b8250';

/** Every file the two schemas load, but the MathML stand-in. The README's table lists the same. */
const SCHEMA_FILES: readonly SchemaFile[] = [
  {
    file: 'imsqti_v2p1.xsd',
    repo: QTIWORKS,
    commit: QTIWORKS_COMMIT,
    path: `${QTIWORKS_CATALOG}/www.imsglobal.org/xsd/imsqti_v2p1.xsd`,
    blob: '724d3d3f35c11150625f30ab3c484c647c9d7396',
  },
  {
    file: 'apipv1p0_qtiextv2p1_v1p0.xsd',
    repo: QTIWORKS,
    commit: QTIWORKS_COMMIT,
    path: `${QTIWORKS_CATALOG}/www.imsglobal.org/profile/apip/apipv1p0/apipv1p0_qtiextv2p1_v1p0.xsd`,
    blob: 'ede47343fd27651cf8b6391f4f26f54615c14dda',
  },
  {
    file: 'xml.xsd',
    repo: QTIWORKS,
    commit: QTIWORKS_COMMIT,
    path: `${QTIWORKS_CATALOG}/www.imsglobal.org/xsd/w3/2001/xml.xsd`,
    blob: '813cb2b78347a22e774d8e2dae5e23d13e7f2977',
  },
  {
    file: 'XInclude.xsd',
    repo: QTIWORKS,
    commit: QTIWORKS_COMMIT,
    path: `${QTIWORKS_CATALOG}/www.imsglobal.org/xsd/w3/2001/XInclude.xsd`,
    blob: '8c25b8b9d4a97ad7ccf0f1a3a0afe38abe852ce8',
  },
  {
    file: 'imscp_v1p1.xsd',
    repo: TAO,
    commit: TAO_COMMIT,
    path: 'model/qti/data/imscp_v1p1.xsd',
    blob: 'f56af2705ed85ef7df21b230d468d686beceab18',
  },
  {
    file: 'imsmd_v1p2p4.xsd',
    repo: TAO,
    commit: TAO_COMMIT,
    path: 'model/qti/data/imsmd_v1p2p4.xsd',
    blob: '5b16629294995aa9a2abdfabd58da3f60416e7a4',
  },
  // imscp_v1p1.xsd and imsmd_v1p2p4.xsd import `w3/xml.xsd`, relative to themselves: TAO's own copy,
  // in the layout TAO has it.
  {
    file: 'w3/xml.xsd',
    repo: TAO,
    commit: TAO_COMMIT,
    path: 'model/qti/data/w3/xml.xsd',
    blob: 'd1ea3f4b4b7038a5ef440b1d143a7462c7222c93',
    relative: true,
  },
];

/**
 * The published addresses the schemas import, and the file of the schema folder each is mapped to
 * (`null`: the MathML stand-in). The last two are what IMS's own CP 1.1.4 and MD 1.2.4 files import
 * (TAO's copies import `w3/xml.xsd` instead), for a `QTI_SCHEMA_DIR` holding IMS's originals.
 */
const CATALOG_ENTRIES: readonly (readonly [address: string, file: string | null])[] = [
  ['http://www.imsglobal.org/xsd/w3/2001/xml.xsd', 'xml.xsd'],
  ['http://www.imsglobal.org/xsd/w3/2001/XInclude.xsd', 'XInclude.xsd'],
  ['http://www.w3.org/Math/XMLSchema/mathml2/mathml2.xsd', null],
  ['http://www.imsglobal.org/profile/apip/apipv1p0/apipv1p0_qtiextv2p1_v1p0.xsd', 'apipv1p0_qtiextv2p1_v1p0.xsd'],
  ['http://www.w3.org/2001/03/xml.xsd', 'xml.xsd'],
  ['http://www.w3.org/2001/xml.xsd', 'xml.xsd'],
];

/** The schemas, or why they cannot be had here. */
export function findQtiSchemas(): QtiSchemasLookup {
  const given = process.env.QTI_SCHEMA_DIR;
  if (given) {
    const missing = SCHEMA_FILES.filter(({ relative }) => !relative)
      .map(({ file }) => file)
      .filter((file) => !existsSync(join(given, file)));
    if (missing.length > 0)
      return { schemas: undefined, reason: `QTI_SCHEMA_DIR=${given} lacks ${missing.join(', ')}` };
    const work = mkdtempSync(join(tmpdir(), 'pollkit-qti-schemas-'));
    return { schemas: withCatalog(given, work, `QTI_SCHEMA_DIR (${given})`) };
  }
  const root = process.env.QTI_MIRROR_ROOT ?? '/work/.mirror';
  const work = mkdtempSync(join(tmpdir(), 'pollkit-qti-schemas-'));
  const reason = extractFromMirrors(root, join(work, 'schemas'));
  if (reason) {
    rmSync(work, { recursive: true, force: true });
    return { schemas: undefined, reason: `QTI_SCHEMA_DIR is not set, and ${reason}` };
  }
  return { schemas: withCatalog(join(work, 'schemas'), work, `the git snapshots under ${root}`) };
}

/** Writes every file of `SCHEMA_FILES` under `into`; the reason it could not, or undefined. */
function extractFromMirrors(root: string, into: string): string | undefined {
  const gitDirs = new Map<string, string>();
  for (const repo of new Set(SCHEMA_FILES.map((entry) => entry.repo))) {
    const gitDir = gitDirOf(join(root, repo.replace('/', '+')));
    if (!gitDir) return `no git snapshot of ${repo} at ${join(root, repo.replace('/', '+'))}`;
    gitDirs.set(repo, gitDir);
  }
  for (const { file, repo, commit, path, blob } of SCHEMA_FILES) {
    const gitDir = gitDirs.get(repo)!;
    const shown = spawnSync('git', [`--git-dir=${gitDir}`, 'show', `${commit}:${path}`], {
      maxBuffer: 64 * 1024 * 1024,
    });
    if (shown.error) return `git could not be run (${shown.error.message})`;
    if (shown.status !== 0) {
      return `the snapshot of ${repo} (${gitDir}) has no ${commit}:${path} (${shown.stderr.toString().trim()})`;
    }
    const bytes = shown.stdout;
    const id = gitBlobId(bytes);
    if (id !== blob) return `${repo} ${commit}:${path} came out as blob ${id}, not ${blob}`;
    const target = join(into, file);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, bytes);
  }
  return undefined;
}

/** The git directory of a snapshot: a bare one (`repo`), a clone's `.git`, or the folder itself. */
function gitDirOf(folder: string): string | undefined {
  return [join(folder, 'repo/.git'), join(folder, 'repo'), join(folder, '.git'), folder].find(
    (candidate) => existsSync(join(candidate, 'HEAD')) && existsSync(join(candidate, 'objects')),
  );
}

/** `git hash-object` of these bytes. */
function gitBlobId(bytes: Buffer): string {
  return createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
}

/** The catalog mapping `CATALOG_ENTRIES` into `schemaDir`, written to `work`. */
function withCatalog(schemaDir: string, work: string, source: string): QtiSchemas {
  const entries = CATALOG_ENTRIES.map(([address, file]) => {
    const target = pathToFileURL(file === null ? MATHML_STAND_IN : join(schemaDir, file)).href;
    return `  <uri name="${xmlAttribute(address)}" uri="${xmlAttribute(target)}"/>`;
  });
  const catalog = join(work, 'catalog.xml');
  writeFileSync(
    catalog,
    [
      '<?xml version="1.0" encoding="UTF-8"?>',
      '<catalog xmlns="urn:oasis:names:tc:entity:xmlns:xml:catalog">',
      ...entries,
      '</catalog>',
      '',
    ].join('\n'),
  );
  return {
    qtiSchema: join(schemaDir, 'imsqti_v2p1.xsd'),
    cpSchema: join(schemaDir, 'imscp_v1p1.xsd'),
    env: { ...process.env, XML_CATALOG_FILES: catalog },
    source,
    dispose: () => rmSync(work, { recursive: true, force: true }),
  };
}

function xmlAttribute(value: string): string {
  return value.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('"', '&quot;');
}
