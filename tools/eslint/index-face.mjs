// The `indusagi/index-face` lint rule: a file in src/ that imports from another folder of src/ goes
// through that folder's index.ts, its public face (docs/architecture.md), so a folder can rearrange its
// inside without breaking anyone. A folder here is the deepest folder holding the imported file that has
// an index.ts (src/ itself is the package root, not a folder's face); a file inside that folder, or in a
// folder beneath it, imports its insides freely.
//
// The imports that bypassed a face when the rule came in are listed in index-face-exceptions.json, and
// only those: a new bypass is an error, and so is a listed one that is gone (delete its line), so the
// list can only shrink. `node tools/eslint/index-face.mjs` prints the counts.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const src = path.join(root, 'src');
const exceptionsFile = path.join(here, 'index-face-exceptions.json');

const posix = (p) => p.split(path.sep).join('/');
const hasIndex = new Map();
function faceOf(dir) {
  if (!hasIndex.has(dir)) hasIndex.set(dir, fs.existsSync(path.join(dir, 'index.ts')));
  return hasIndex.get(dir);
}

/** The file a relative specifier names (`./x.js` is `./x.ts`, `./x.tsx` or `./x/index.ts`), or null. */
function resolve(fromFile, specifier) {
  const base = path.resolve(path.dirname(fromFile), specifier).replace(/\.js$/, '');
  for (const candidate of [base + '.ts', base + '.tsx', path.join(base, 'index.ts')]) {
    if (fs.existsSync(candidate)) return candidate;
  }
  return null;
}

/** The folder whose face `file` sits behind: the deepest folder above it with an index.ts, below src/. */
function folderOf(file) {
  for (let dir = path.dirname(file); dir.startsWith(src + path.sep); dir = path.dirname(dir)) {
    if (faceOf(dir)) return dir;
  }
  return null;
}

/**
 * How an import from `fromFile` of `specifier` stands: 'inside' (same folder or no face to use),
 * 'face' (a cross-folder import through index.ts) or 'bypass' (a cross-folder import of an inner file),
 * with the face it should use.
 */
export function classify(fromFile, specifier) {
  if (!specifier.startsWith('.')) return { kind: 'inside' };
  const target = resolve(fromFile, specifier);
  if (target === null) return { kind: 'inside' };
  const folder = folderOf(target);
  if (folder === null || (fromFile + path.sep).startsWith(folder + path.sep) || fromFile.startsWith(folder + path.sep)) {
    return { kind: 'inside' };
  }
  if (target === path.join(folder, 'index.ts')) return { kind: 'face' };
  let face = posix(path.relative(path.dirname(fromFile), path.join(folder, 'index.js')));
  if (!face.startsWith('.')) face = './' + face;
  return { kind: 'bypass', face };
}

let exceptions;
function exceptionsFor(file) {
  exceptions ??= JSON.parse(fs.readFileSync(exceptionsFile, 'utf8'));
  return exceptions[posix(path.relative(root, file))] ?? [];
}

const rule = {
  meta: {
    type: 'problem',
    docs: { description: "Imports from another src/ folder go through that folder's index.ts" },
    schema: [],
    messages: {
      bypass: "'{{specifier}}' reaches inside another folder: import it from its face '{{face}}' (export it there if it is not).",
      stale: "'{{specifier}}' is listed in tools/eslint/index-face-exceptions.json but no longer imported here: delete it from the list.",
    },
  },
  create(context) {
    const file = context.filename;
    if (!file.startsWith(src + path.sep)) return {};
    const allowed = new Set(exceptionsFor(file));
    const seen = new Set();
    const check = (source) => {
      if (source == null || typeof source.value !== 'string') return;
      const verdict = classify(file, source.value);
      if (verdict.kind !== 'bypass') return;
      if (allowed.has(source.value)) {
        seen.add(source.value);
        return;
      }
      context.report({ node: source, messageId: 'bypass', data: { specifier: source.value, face: verdict.face } });
    };
    return {
      ImportDeclaration: (node) => check(node.source),
      ExportNamedDeclaration: (node) => check(node.source),
      ExportAllDeclaration: (node) => check(node.source),
      ImportExpression: (node) => check(node.source.type === 'Literal' ? node.source : null),
      TSImportType: (node) => check(node.argument?.type === 'TSLiteralType' ? node.argument.literal : node.source),
      'Program:exit': (node) => {
        for (const specifier of allowed) {
          if (!seen.has(specifier)) context.report({ node, messageId: 'stale', data: { specifier } });
        }
      },
    };
  },
};

export default { meta: { name: 'indusagi' }, rules: { 'index-face': rule } };

// `node tools/eslint/index-face.mjs`: the cross-folder imports of src/, how many bypass a face, and how
// many of those the exceptions list holds. `--list` prints the bypasses as an exceptions file would.
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const files = fs.readdirSync(src, { recursive: true, encoding: 'utf8' }).filter((f) => /\.tsx?$/.test(f) && !f.endsWith('.d.ts'));
  const spec = /(?:import|export)\s+(?:type\s+)?(?:[^'"]*?\sfrom\s+)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;
  const cross = new Set();
  const bypasses = {};
  for (const name of files.sort()) {
    const file = path.join(src, name);
    for (const m of fs.readFileSync(file, 'utf8').matchAll(spec)) {
      const verdict = classify(file, m[1] ?? m[2]);
      if (verdict.kind === 'inside') continue;
      cross.add(file + '\0' + (m[1] ?? m[2]));
      if (verdict.kind === 'bypass') (bypasses[posix(path.relative(root, file))] ??= new Set()).add(m[1] ?? m[2]);
    }
  }
  const list = Object.fromEntries(Object.entries(bypasses).map(([f, s]) => [f, [...s].sort()]));
  const count = Object.values(list).reduce((n, s) => n + s.length, 0);
  const listed = Object.values(JSON.parse(fs.readFileSync(exceptionsFile, 'utf8'))).reduce((n, s) => n + s.length, 0);
  if (process.argv.includes('--list')) console.log(JSON.stringify(list, null, 2));
  else
    console.log(
      `${cross.size} distinct cross-folder imports, ${count} bypass a face, in ${Object.keys(list).length} files (${((100 * count) / cross.size).toFixed(1)}%), ${listed} listed as exceptions`,
    );
}
