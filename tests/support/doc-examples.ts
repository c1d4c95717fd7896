// The docs' TypeScript blocks, read, run and typechecked as docs/README.md says: a ```ts block is a
// program that runs as written and prints what its `// -> text` comments say; a ```ts fragment (or a
// ```tsx component) only shows a shape, so it is typechecked, its undefined names allowed.
//
// Blocks are written to a git-ignored scratch folder inside the repo (`.doc-examples/`), so that an
// example importing an SDK (`openai`, `zod`, `@ai-sdk/openai`) resolves it from the repo's node_modules
// as a project of the reader's would; `indusagi/*` imports point at src/ (tsconfig `paths` for the
// typecheck, rewritten to the source files for the run). Each block file starts with as many blank
// lines as precede the block on its page, so a stack trace or a compiler error names the page's line.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const repo = resolve(import.meta.dirname, '../..');

// Every entry of the package's exports map, at its source file: what `import 'indusagi/x'` loads once built.
const ENTRIES: Record<string, string> = Object.fromEntries(
  Object.entries(
    JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')).exports as Record<string, string | { import?: string; default?: string }>,
  )
    .map(([key, target]) => [key, typeof target === 'string' ? target : (target.import ?? target.default)] as const)
    .filter((entry): entry is readonly [string, string] => entry[1]?.startsWith('./dist/') === true)
    .map(([key, file]) => [`indusagi${key.slice(1)}`, file.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts')]),
);

/** A ```ts or ```tsx block of a page: `line` is the line of its opening fence (1-based). */
export type DocFence = { page: string; line: number; lang: 'ts' | 'tsx'; runnable: boolean; code: string };

/** A page's fence that says TypeScript or JavaScript in a way the checks would not read (```typescript, ```ts foo). */
export class DocFenceError extends Error {
  override name = 'DocFenceError';
}

// Info strings of code the checks do not read under any other name: a block fenced ```typescript or
// ```js would silently escape them.
const SCRIPT_LANGS = new Set(['typescript', 'mts', 'cts', 'js', 'javascript', 'jsx', 'mjs', 'cjs']);

/** Every ```ts / ```tsx block of a markdown page, in order; throws DocFenceError for an info string the checks would skip. */
export function readFences(markdown: string, page = 'markdown'): DocFence[] {
  const fences: DocFence[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = lines[i].match(/^( *)(`{3,}|~{3,})\s*(.*?)\s*$/);
    if (!open) continue;
    const [, indent, marker, info] = open;
    const body: string[] = [];
    let end = i + 1;
    const closing = new RegExp(`^ *${marker[0] === '`' ? '`' : '~'}{${marker.length},}\\s*$`);
    while (end < lines.length && !closing.test(lines[end])) body.push(lines[end++].replace(new RegExp(`^ {0,${indent.length}}`), ''));
    const [lang = '', ...attributes] = info.split(/\s+/).filter(Boolean);
    const where = `${page}:${i + 1}`;
    if (lang === 'ts' || lang === 'tsx') {
      const fragment = attributes.length === 1 && attributes[0] === 'fragment';
      if (attributes.length > 0 && !fragment)
        throw new DocFenceError(`${where}: unknown fence \`\`\`${info}; write \`\`\`${lang} or \`\`\`${lang} fragment`);
      // A tsx block is a component, which needs a page to render in: it is typechecked, never run.
      fences.push({ page, line: i + 1, lang, runnable: lang === 'ts' && !fragment, code: body.join('\n') + '\n' });
    } else if (SCRIPT_LANGS.has(lang)) {
      throw new DocFenceError(`${where}: \`\`\`${info} is neither run nor typechecked; write \`\`\`ts (or \`\`\`ts fragment)`);
    }
    i = end;
  }
  return fences;
}

/** The packages a block imports by bare name, or runs by a `node_modules/<package>/...` path. */
export function packagesUsed(code: string): string[] {
  const names = new Set<string>();
  for (const [, specifier] of code.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)['"]([^'"./][^'"]*)['"]/g)) {
    if (specifier.startsWith('node:')) continue;
    const parts = specifier.split('/');
    names.add(specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]);
  }
  for (const [, name] of code.matchAll(/node_modules\/((?:@[\w.-]+\/)?[\w.-]+)/g)) names.add(name);
  return [...names];
}

/** The runnable ```ts blocks of a page, as text. */
export function extractBlocks(markdown: string): string[] {
  return readFences(markdown)
    .filter((fence) => fence.runnable)
    .map((fence) => fence.code);
}

/** The `// -> text` annotations of a block: what it must print, in order. */
export function expectations(code: string): string[] {
  return [...code.matchAll(/\/\/ -> (.*)$/gm)].map((m) => m[1].trim());
}

/** The annotations not found, in order, among the lines the block printed. */
export function missing(block: { expected: string[]; printed: string[] }): string[] {
  let at = 0;
  const absent: string[] = [];
  for (const want of block.expected) {
    const found = block.printed.indexOf(want, at);
    if (found === -1) absent.push(want);
    else at = found + 1;
  }
  return absent;
}

/** A scratch folder inside the repo (git-ignored), where node_modules resolves; removed by `remove()`. */
export function docScratch(): { dir: string; remove: () => void } {
  mkdirSync(join(repo, '.doc-examples'), { recursive: true });
  const dir = mkdtempSync(join(repo, '.doc-examples', 'run-'));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Writes a block where its page's lines line up with the file's, `<scratch>/<page>/L<line>.<ext>`. */
function writeBlock(scratch: string, fence: DocFence, code: string): string {
  const file = join(scratch, fence.page, `L${fence.line}.${fence.lang === 'tsx' ? 'tsx' : 'mts'}`);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, '\n'.repeat(fence.line) + code);
  return file;
}

/** What one runnable block did: the lines it printed (trimmed), what it wrote to stderr, the error it threw. */
export type BlockRun = { fence: DocFence; expected: string[]; printed: string[]; stderr: string; ran: boolean; threw: boolean };

export type PageRun = { page: string; blocks: BlockRun[]; code: number | null; signal: string | null; stderr: string };

const BLOCK = '@@doc-block';
const FAILED = '@@doc-failed';
const DONE = '@@doc-done';

/**
 * Runs a page's runnable blocks one after another, each as its own module, in one fresh Node process
 * started in `cwd`. A block that throws is reported and the next one runs; the process then exits 1.
 * When every block returned, the process must end by itself, as the program would for a reader: one
 * still running a minute later holds something open, and says what before it is stopped.
 */
export async function runDocPage(
  scratch: string,
  fences: DocFence[],
  options: {
    cwd: string;
    env: NodeJS.ProcessEnv;
    installed?: boolean;
    /** The folder each block runs in (made by the caller): a block then finds nothing another block left. */
    blockDir?: (fence: DocFence) => string;
  },
): Promise<PageRun> {
  const runnable = fences.filter((fence) => fence.runnable);
  const page = runnable[0]?.page ?? '(no page)';
  // Installed: the blocks are files of the reader's project (`cwd`), importing the package it installed.
  const dir = options.installed ? join(options.cwd, '.blocks') : join(scratch, 'run');
  const files = runnable.map((fence) =>
    writeBlock(
      dir,
      fence,
      options.installed
        ? fence.code
        : // Every `indusagi` import must be rewritten: left alone, Node would load the package itself from dist/, maybe stale.
          fence.code.replace(
            /(from\s+|import\s*\(\s*|import\s+)(['"])(indusagi(?:\/[^'"]*)?)\2/g,
            (_whole, lead: string, _quote, entry: string) => {
              if (!(entry in ENTRIES))
                throw new DocFenceError(`${page}:${fence.line} imports ${entry}, which package.json does not export`);
              return `${lead}${JSON.stringify(join(repo, ENTRIES[entry]))}`;
            },
          ),
    ),
  );
  const runner = join(dir, page, 'run.mts');
  writeFileSync(
    runner,
    [
      "import { inspect } from 'node:util';",
      `const blocks = ${JSON.stringify(runnable.map((fence, i) => [fence.line, files[i], options.blockDir?.(fence) ?? null]))};`,
      'let failed = false;',
      '// Markers start a line of their own on both streams: a block may end its output without a newline.',
      'const mark = (text) => { process.stdout.write(`\\n${text}\\n`); process.stderr.write(`\\n${text}\\n`); };',
      'for (const [line, file, dir] of blocks) {',
      `  mark('${BLOCK} ' + line);`,
      '  if (dir !== null) process.chdir(dir);',
      '  try {',
      '    await import(file);',
      '  } catch (error) {',
      '    failed = true;',
      `    mark('${FAILED} ' + line);`,
      '    process.stderr.write(inspect(error) + "\\n");',
      '  }',
      '}',
      `mark('${DONE}');`,
      'if (failed) process.exit(1);',
      'setTimeout(() => {',
      "  process.stderr.write(`still running a minute after its last block returned, holding: ${process.getActiveResourcesInfo().join(', ')}\\n`);",
      '  process.exit(1);',
      '}, 60_000).unref();',
    ].join('\n'),
  );
  const { code, signal, stdout, stderr } = await new Promise<{
    code: number | null;
    signal: string | null;
    stdout: string;
    stderr: string;
  }>((done, fail) => {
    const child = spawn(process.execPath, ['--import', import.meta.resolve('tsx'), runner], {
      cwd: options.cwd,
      env: options.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk));
    child.on('error', fail);
    child.on('close', (exit, killed) => done({ code: exit, signal: killed, stdout: out, stderr: err }));
  });
  const printed = sections(stdout);
  const written = sections(stderr);
  return {
    page,
    code,
    signal,
    stderr: [written.before, written.after].filter((text) => text.trim() !== '').join('\n'),
    blocks: runnable.map((fence) => {
      const ownErr = written.blocks.get(fence.line);
      const threw = ownErr?.includes(`${FAILED} ${fence.line}`) ?? false;
      return {
        fence,
        expected: expectations(fence.code),
        printed: (printed.blocks.get(fence.line) ?? '').split('\n').map((line) => line.trim()),
        stderr: (ownErr ?? '').replace(`${FAILED} ${fence.line}`, '').trim(),
        ran: printed.blocks.has(fence.line),
        threw,
      };
    }),
  };
}

/** Splits a stream at the runner's markers: what came before the first block, each block's part, what came after the last. */
function sections(text: string): { before: string; blocks: Map<number, string>; after: string } {
  const [head, ...rest] = text.split(new RegExp(`^${BLOCK} `, 'm'));
  const blocks = new Map<number, string>();
  let after = '';
  for (const part of rest) {
    const line = Number(part.slice(0, part.indexOf('\n')));
    let body = part.slice(part.indexOf('\n') + 1);
    const done = body.search(new RegExp(`^${DONE}$`, 'm'));
    if (done !== -1) {
      after = body.slice(done + DONE.length);
      body = body.slice(0, done);
    }
    blocks.set(line, body);
  }
  return { before: head, blocks, after };
}

/** Everything wrong with a page's run, one line (or a few) per problem, naming the page's line. */
export function runProblems(run: PageRun): string[] {
  const problems: string[] = [];
  for (const block of run.blocks) {
    const at = `${block.fence.page}:${block.fence.line}`;
    if (!block.ran) {
      problems.push(`${at}: never ran (the process ended earlier: exit ${run.code ?? run.signal})`);
      continue;
    }
    // The runner's own frames and Node's say nothing about the block.
    if (block.threw) problems.push(`${at}: threw ${block.stderr.replace(/^ +at .*(node:internal|\/run\.mts:).*\n?/gm, '').trim()}`);
    else if (block.stderr !== '') problems.push(`${at}: wrote to stderr: ${block.stderr}`);
    const absent = missing(block);
    if (absent.length > 0) {
      const printed = block.printed.filter((line) => line !== '').join('\n    ');
      problems.push(`${at}: did not print ${absent.map((line) => JSON.stringify(line)).join(', ')}; it printed:\n    ${printed}`);
    }
  }
  if (run.stderr !== '') problems.push(`${run.page}: the process wrote to stderr outside any block: ${run.stderr.trim()}`);
  if (problems.length === 0 && run.code !== 0) problems.push(`${run.page}: the process ended with ${run.code ?? run.signal}`);
  return problems;
}

/** A compiler error in a block, at its page's line. */
export type DocTypeError = { page: string; line: number; code: number; message: string };

// Errors a fragment may have: the names it uses without defining them (its surroundings define them),
// the untyped parameters of a callback handed to such a name, and imports of packages this repo does
// not install (an OpenTelemetry exporter); never of indusagi's own.
const UNDEFINED_NAME = new Set([
  2304, // Cannot find name 'x'.
  2552, // Cannot find name 'x'. Did you mean 'y'?
  18004, // No value exists in scope for the shorthand property 'x'.
  7006, // Parameter 'x' implicitly has an 'any' type.
  7031, // Binding element 'x' implicitly has an 'any' type.
]);
const MODULE_NOT_FOUND = 2307; // Cannot find module 'x' or its corresponding type declarations.

function allowedInFragment(code: number, message: string): boolean {
  return UNDEFINED_NAME.has(code) || (code === MODULE_NOT_FOUND && !/^Cannot find module 'indusagi[/']/.test(message));
}

// The check: a program of the blocks and everything they import, of which only the blocks' own files are
// checked: `tsc` would check every file of src/ they import too, twice the time, and `tsc --noEmit -p .` does that.
const CHECKER = `import ts from 'typescript';
const config = ts.getParsedCommandLineOfConfigFile(process.argv[2], {}, {
  ...ts.sys,
  onUnRecoverableConfigFileDiagnostic: (d) => { throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\\n')); },
});
const program = ts.createProgram({ rootNames: config.fileNames, options: config.options });
const roots = new Set(config.fileNames);
const diagnostics = [...config.errors, ...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics()];
for (const file of program.getSourceFiles())
  if (roots.has(file.fileName)) diagnostics.push(...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file));
process.stdout.write(ts.formatDiagnostics(diagnostics, {
  getCanonicalFileName: (name) => name,
  getCurrentDirectory: () => process.cwd(),
  getNewLine: () => '\\n',
}));
`;

/**
 * Typechecks blocks with the repo's compiler options (`indusagi/*` through its `paths`), in a child
 * process so a long check never blocks this one. Runnable blocks must have no error at all; a fragment
 * may use names it does not define. Compiler errors outside the blocks are returned too.
 */
export async function typecheckDocs(scratch: string, fences: DocFence[]): Promise<{ errors: DocTypeError[]; other: string[] }> {
  const dir = join(scratch, 'check');
  const files = new Map(fences.map((fence) => [relative(repo, writeBlock(dir, fence, fence.code)), fence]));
  const config = join(dir, 'tsconfig.json');
  writeFileSync(
    config,
    JSON.stringify({
      extends: join(repo, 'tsconfig.json'),
      compilerOptions: { noEmit: true, incremental: false },
      files: [...files.keys()].map((file) => join(repo, file)),
      include: [],
    }),
  );
  const checker = join(dir, 'check.mjs');
  writeFileSync(checker, CHECKER);
  const output = await new Promise<string>((done, fail) => {
    const child = spawn(process.execPath, [checker, config], { cwd: repo, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk));
    child.on('error', fail);
    child.on('close', (code) => done(code === 0 ? out : `${out}\nthe checker ended with ${code}`));
  });
  const errors: DocTypeError[] = [];
  const other: string[] = [];
  // One diagnostic per unindented line; its elaboration follows, indented.
  for (const diagnostic of output.split(/\n(?! )/).filter((text) => text.trim() !== '')) {
    const at = diagnostic.match(/^(.+?)\((\d+),\d+\): error TS(\d+): ([\s\S]*)$/);
    const fence = at ? files.get(at[1]) : undefined;
    if (!at || !fence) {
      other.push(diagnostic);
      continue;
    }
    const code = Number(at[3]);
    if (!fence.runnable && allowedInFragment(code, at[4])) continue;
    errors.push({ page: fence.page, line: Number(at[2]), code, message: at[4].trim() });
  }
  return { errors, other };
}
