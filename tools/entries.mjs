// `npm run entries`: writes the three places that name the package's entry points from the one list,
// tools/entries.json: package.json `exports` (and `main`/`types`, the root for tools older than
// `exports`), package.json `typesVersions` (what `moduleResolution: node10` reads for a subpath) and
// tsconfig.json `paths` (how the repo's own tests, examples and docs resolve `indusagi/...` to the
// sources). Kept by hand they drifted: an entry added to `exports` but not to `paths` type-checks
// nowhere until a user installs it.
//
// `npm run entries -- --check` writes nothing and exits 1, naming each file that differs, when any of
// them is not what the list gives (part of `npm test`, and tests/entries/entry-list.test.ts).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The entry list: `{ 'indusagi/x': 'src/.../file.ts' }`, in the order the files list them. */
export function readEntries(dir = root) {
  const { entries } = JSON.parse(fs.readFileSync(path.join(dir, 'tools/entries.json'), 'utf8'));
  for (const [entry, source] of Object.entries(entries)) {
    if (entry !== 'indusagi' && !entry.startsWith('indusagi/'))
      throw new Error(`tools/entries.json: entry "${entry}" is not "indusagi" or "indusagi/<subpath>"`);
    if (!/^src\/.+\.tsx?$/.test(source))
      throw new Error(`tools/entries.json: "${entry}" maps to "${source}", not a .ts or .tsx file under src/`);
    if (!fs.existsSync(path.join(dir, source))) throw new Error(`tools/entries.json: "${entry}" maps to "${source}", which does not exist`);
  }
  if (!('indusagi' in entries)) throw new Error('tools/entries.json: the root entry "indusagi" is missing');
  return entries;
}

/** The built files of a source: `src/a/b.ts` -> `./dist/a/b.d.ts` and `./dist/a/b.js`. */
const built = (source) => {
  const stem = './dist/' + source.slice('src/'.length).replace(/\.tsx?$/, '');
  return { types: `${stem}.d.ts`, default: `${stem}.js` };
};
const subpath = (entry) => (entry === 'indusagi' ? '.' : `./${entry.slice('indusagi/'.length)}`);

/** package.json with `main`, `types`, `exports` and `typesVersions` as the list gives them. */
export function packageJsonFor(pkg, entries) {
  const exports = {};
  const typesVersions = {};
  for (const [entry, source] of Object.entries(entries)) {
    exports[subpath(entry)] = built(source);
    if (entry !== 'indusagi') typesVersions[entry.slice('indusagi/'.length)] = [built(source).types];
  }
  exports['./package.json'] = './package.json';
  return {
    ...pkg,
    main: built(entries.indusagi).default,
    types: built(entries.indusagi).types,
    exports,
    typesVersions: { '*': typesVersions },
  };
}

/** tsconfig.json's text with its `paths` object rewritten (the file has comments, so it is edited as text). */
export function tsconfigFor(text, entries) {
  const start = text.indexOf('"paths": {');
  if (start < 0) throw new Error('tsconfig.json: no `"paths": {` to rewrite');
  const end = text.indexOf('}', start);
  const lineStart = text.lastIndexOf('\n', start) + 1;
  const indent = text.slice(lineStart, start);
  const lines = Object.entries(entries).map(([entry, source]) => `${indent}  ${JSON.stringify(entry)}: ["./${source}"]`);
  return `${text.slice(0, start)}"paths": {\n${lines.join(',\n')}\n${indent}}${text.slice(end + 1)}`;
}

/** What each generated file should hold, beside what it holds: `[{ file, now, wanted }]`. */
export function plan(dir = root) {
  const entries = readEntries(dir);
  const pkgFile = path.join(dir, 'package.json');
  const tsconfigFile = path.join(dir, 'tsconfig.json');
  const pkgText = fs.readFileSync(pkgFile, 'utf8');
  const tsconfigText = fs.readFileSync(tsconfigFile, 'utf8');
  return [
    { file: pkgFile, now: pkgText, wanted: JSON.stringify(packageJsonFor(JSON.parse(pkgText), entries), null, 2) + '\n' },
    { file: tsconfigFile, now: tsconfigText, wanted: tsconfigFor(tsconfigText, entries) },
  ];
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const check = process.argv.includes('--check');
  const stale = plan().filter((file) => file.now !== file.wanted);
  if (check) {
    for (const file of stale) console.error(`${path.relative(root, file.file)} does not match tools/entries.json: run \`npm run entries\``);
    process.exit(stale.length === 0 ? 0 : 1);
  }
  for (const file of stale) {
    fs.writeFileSync(file.file, file.wanted);
    console.log(`wrote ${path.relative(root, file.file)}`);
  }
}
