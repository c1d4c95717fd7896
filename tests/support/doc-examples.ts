// Runs every ```ts block of a docs page as its own module in a fresh Node process, with `indusagi`
// imports pointed at src/, and checks each `// -> text` annotation against what the block printed.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

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

/** Where the blocks run: the repo by default; a scratch folder and extra variables for examples that write files or talk to a model. */
export type DocRunOptions = { cwd?: string; env?: Record<string, string> };

export type DocBlock = { index: number; expected: string[]; printed: string[] };

export function extractBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
}

export function expectations(code: string): string[] {
  return [...code.matchAll(/\/\/ -> (.*)$/gm)].map((m) => m[1].trim());
}

export async function runDocExamples(
  page: string,
  options: DocRunOptions = {},
): Promise<{ blocks: DocBlock[]; code: number | null; stderr: string }> {
  const blocks = extractBlocks(readFileSync(join(repo, page), 'utf8'));
  const dir = mkdtempSync(join(tmpdir(), 'indusagi-docs-'));
  try {
    const files = blocks.map((code, i) => {
      const file = join(dir, `block-${i}.mts`);
      const rewritten = code.replace(/from '(indusagi(?:\/[a-z/]+)?)'/g, (whole, entry: string) => {
        if (!(entry in ENTRIES)) throw new Error(`${page} imports unknown entry ${entry}`);
        return `from ${JSON.stringify(join(repo, ENTRIES[entry]))}`;
      });
      writeFileSync(file, rewritten);
      return file;
    });
    const runner = join(dir, 'run.mts');
    writeFileSync(runner, files.map((file, i) => `console.log('@@block ${i}');\nawait import(${JSON.stringify(file)});`).join('\n'));
    const { code, stdout, stderr } = await new Promise<{ code: number | null; stdout: string; stderr: string }>((done, fail) => {
      const child = spawn(process.execPath, ['--import', import.meta.resolve('tsx'), runner], {
        cwd: options.cwd ?? repo,
        env: { ...process.env, ...options.env },
      });
      let out = '';
      let err = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk));
      child.stderr.on('data', (chunk: Buffer) => (err += chunk));
      child.on('error', fail);
      child.on('close', (exit) => done({ code: exit, stdout: out, stderr: err }));
    });
    const printed = stdout.split(/^@@block \d+\n/m).slice(1);
    return {
      code,
      stderr,
      blocks: blocks.map((block, index) => ({
        index,
        expected: expectations(block),
        printed: (printed[index] ?? '').split('\n').map((line) => line.trim()),
      })),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The annotations not found, in order, among the lines the block printed. */
export function missing(block: DocBlock): string[] {
  let at = 0;
  const absent: string[] = [];
  for (const want of block.expected) {
    const found = block.printed.indexOf(want, at);
    if (found === -1) absent.push(want);
    else at = found + 1;
  }
  return absent;
}
