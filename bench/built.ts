// The package as users get it: src/ compiled the way `npm run build` compiles it into dist/, so a bench
// times that JavaScript rather than tsx's on-the-fly esbuild transform of the sources (`npm run bench`
// runs every bench under tsx). That transform keeps function names by wrapping every function and
// class it defines in a helper call, each closure made per step included, which the loop pays for on
// every step and a user's build never does.
//
// Each file goes through TypeScript's own emitter (`transpileModule`) with tsconfig.build.json's
// options: the project compiles with `isolatedModules`, so a file's output depends on that file alone and
// is what `tsc -p tsconfig.build.json` writes for it, without the whole-program type check (seconds,
// not a minute, and nothing fetched). The output goes to .bench-dist/ at the repository's root, one
// level down as dist/ is, so relative paths out of it (the CLI's ../../package.json) and bare imports
// (node_modules) resolve as they do from dist/. A file is emitted again only when its source is newer.
import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'src');
const out = join(root, '.bench-dist');

/** What a bench prints so that its figures say what they timed. */
export const BUILT_NOTE = 'timing the compiled package (src/ as tsc emits it for dist/, in .bench-dist/), not the tsx transform';

let built: Promise<void> | undefined;

/**
 * The compiled file of the package's published entry `name` (`indusagi/runtime`), as package.json's
 * `exports` maps it into dist/, built first: what a user's `import` of that entry loads, for a bench
 * that runs it in a child process of its own.
 */
export async function builtEntry(name: string): Promise<string> {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { exports: Record<string, { default?: string }> };
  const target = manifest.exports[name === 'indusagi' ? '.' : `.${name.slice('indusagi'.length)}`]?.default;
  if (target === undefined || !target.startsWith('./dist/')) throw new Error(`package.json exports no entry ${name} from dist/`);
  built ??= Promise.resolve().then(build);
  await built;
  return join(out, target.slice('./dist/'.length));
}

/**
 * Imports a module of the compiled package, `path` relative to src/ with its `.js` name (as in dist/):
 * `await importBuilt<typeof import('../src/entries/runtime.js')>('entries/runtime.js')`.
 */
export async function importBuilt<T>(path: string): Promise<T> {
  built ??= Promise.resolve().then(build);
  await built;
  return (await import(pathToFileURL(join(out, path)).href)) as T;
}

function build(): void {
  const options = compilerOptions();
  for (const file of sources(src)) {
    const target = join(out, relative(src, file)).replace(/\.tsx?$/, '.js');
    if (newer(target, file)) continue;
    const result = ts.transpileModule(readFileSync(file, 'utf8'), { compilerOptions: options, fileName: file, reportDiagnostics: true });
    const problems = result.diagnostics ?? [];
    if (problems.length > 0) {
      throw new Error(
        `compiling ${relative(root, file)} for the bench failed: ${ts.flattenDiagnosticMessageText(problems[0].messageText, '\n')}`,
      );
    }
    mkdirSync(dirname(target), { recursive: true });
    // Written aside and renamed, so a bench starting meanwhile never imports half a file.
    const partial = `${target}.${process.pid}.tmp`;
    writeFileSync(partial, result.outputText);
    renameSync(partial, target);
  }
}

function compilerOptions(): ts.CompilerOptions {
  const configFile = join(root, 'tsconfig.build.json');
  const read = ts.readConfigFile(configFile, ts.sys.readFile);
  if (read.error !== undefined) throw new Error(`tsconfig.build.json: ${ts.flattenDiagnosticMessageText(read.error.messageText, '\n')}`);
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, root, undefined, configFile);
  if (parsed.errors.length > 0)
    throw new Error(`tsconfig.build.json: ${ts.flattenDiagnosticMessageText(parsed.errors[0].messageText, '\n')}`);
  // The JavaScript is all a bench runs: no declarations or maps beside it. One file alone cannot tell
  // NodeNext its format (package.json says: every file here is an ES module), and ESNext emits an ES
  // module exactly as NodeNext does.
  return {
    ...parsed.options,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    declaration: false,
    declarationMap: false,
    sourceMap: false,
    noEmit: false,
  };
}

function* sources(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sources(path);
    else if (/\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')) yield path;
  }
}

function newer(target: string, source: string): boolean {
  const emitted = statSync(target, { throwIfNoEntry: false });
  return emitted !== undefined && emitted.mtimeMs >= statSync(source).mtimeMs;
}
