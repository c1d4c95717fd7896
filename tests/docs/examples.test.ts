// Every TypeScript block of the README and docs/*.md, as docs/README.md promises: each ```ts block runs
// as written, offline, and prints what its `// -> text` comments say; every block, fragments included,
// typechecks. Pages are found, not listed: a new page is covered the moment it lands. A page that needs
// more than a fresh folder and the offline demo model says so in SETUP below.
//
// The blocks run as a reader runs them (issue 41): each page in a fresh folder outside the checkout, in
// a project that installed the packed tarball (the run's one pack, tests/support/packed.ts), with no
// API key and no database URL in the environment, only `INDUSAGI_MODEL=demo` as the README says.
//
// DOCS_PAGE=docs/agent.md narrows a run to one page (or a comma-separated few) while writing one.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { docScratch, packagesUsed, readFences, runDocPage, runProblems, typecheckDocs } from '../support/doc-examples.js';
import type { DocFence, PageRun } from '../support/doc-examples.js';
import { pngBase64 } from '../support/media.js';
import { installTarball, packedTarball } from '../support/packed.js';
import { freshSchema, postgresUrl } from '../support/postgres.js';

const repo = resolve(import.meta.dirname, '../..');

type PageSetup = {
  /** Files the blocks open as a reader's project would hold them, written into the scratch folder first. */
  files?: Record<string, string | Buffer>;
  /** Fewer runnable blocks than this means some were fenced away or lost. */
  atLeast?: number;
  /**
   * Variables the page's blocks read, made before it runs; `undefined` skips the page (outside CI only).
   * Only a page that says what it needs, as its blocks' readers must be told, gets any.
   */
  env?: () => Promise<Record<string, string> | undefined>;
  /** With `env`: what the page says before its first block, so that a reader knows what to set. */
  says?: RegExp;
  /** What else the page's blocks must leave behind, checked in the folder each ran in (`folderOf(i)`: block i's). */
  check?: (run: PageRun, folderOf: (block: number) => string) => Promise<string[]>;
};

const SETUP: Record<string, PageSetup> = {
  'README.md': {
    atLeast: 2,
    // The first example's tool reports the time; its session file is written and its lock released.
    check: async (run, folderOf) => {
      const problems: string[] = [];
      const cwd = folderOf(0);
      if (!run.blocks[0]?.printed.some((line) => /^\[clock\.now\] \d{4}-\d{2}-\d{2}T/.test(line)))
        problems.push('README.md: no [clock.now] line');
      const files = await readdir(join(cwd, '.indusagi/sessions')).catch(() => []);
      if (files.filter((f) => f.endsWith('.jsonl')).length !== 1) problems.push(`README.md: sessions folder holds ${files.join(', ')}`);
      if (files.some((f) => f.endsWith('.lock'))) problems.push('README.md: a session lock was left behind');
      return problems;
    },
  },
  // The content prompt sends a chart the reader has.
  'docs/agent.md': { files: { 'chart.png': Buffer.from(pngBase64(640, 480), 'base64') } },
  'docs/context.md': { atLeast: 6 },
  // Five cases, recorded, replayed and compared, each block reading what the one before wrote; then
  // memory recall on a LoCoMo conversation the block writes itself.
  'docs/evals.md': { atLeast: 5 },
  'docs/guardrails.md': { atLeast: 3 },
  // Its blocks start MCP servers the reader installed, by their path under node_modules.
  'docs/mcp.md': { atLeast: 3 },
  'docs/memory.md': { atLeast: 7 },
  // The researcher/writer tree, the handoff and the budget, each on the demo model.
  'docs/subagents.md': { atLeast: 3 },
  'docs/postgres.md': {
    atLeast: 2,
    // The one page whose blocks need more than the demo model, as its first lines tell the reader (with
    // how to get a server): a database of its own on the run's server, named by INDUSAGI_DATABASE_URL.
    says: /needs a PostgreSQL server, named by `INDUSAGI_DATABASE_URL`[\s\S]*docker run/,
    env: async () => {
      if (postgresUrl === undefined) return undefined;
      const name = freshSchema('docs');
      const admin = new pg.Client({ connectionString: postgresUrl });
      await admin.connect();
      await admin.query(`CREATE DATABASE ${name}`);
      await admin.end();
      return { INDUSAGI_DATABASE_URL: postgresUrl.replace(/\/postgres$/, `/${name}`) };
    },
  },
  'docs/sessions.md': { atLeast: 5 },
  'docs/testing.md': { atLeast: 3 },
};

const only = process.env.DOCS_PAGE?.split(',').map((page) => page.trim());
const PAGES = [
  'README.md',
  ...readdirSync(join(repo, 'docs'))
    .filter((file) => file.endsWith('.md'))
    .sort()
    .map((file) => `docs/${file}`),
].filter((page) => only === undefined || only.includes(page));
const FENCES = new Map(PAGES.map((page) => [page, readFences(readFileSync(join(repo, page), 'utf8'), page)]));

// Whatever a developer's shell holds, the blocks see no key, no base URL and no database: what they
// need to run offline is the one switch the README gives readers.
const CREDENTIALS = /^(ANTHROPIC|OPENAI|GOOGLE_GENERATIVE_AI|AZURE|AWS|MISTRAL|GROQ|XAI|DEEPSEEK|INDUSAGI|PG[A-Z]*|DATABASE)_?/;
function offlineEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !CREDENTIALS.test(name)));
  return { ...env, INDUSAGI_MODEL: 'demo', ...extra };
}

type Outcome = { skipped: true } | { skipped: false; problems: string[]; blocks: number };

let scratch: ReturnType<typeof docScratch>;
// The reader's project: the tarball installed, with the packages the blocks import.
let project: string;
const outcomes = new Map<string, Promise<Outcome>>();
let typecheck: Promise<{ problems: string[] }>;

// Two jobs at a time (CI has two cores, and the other test files share them): the typecheck first,
// as the longest, then the pages in order, so each page's test waits only for its own run.
function pool(width: number): <T>(job: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async (job) => {
    if (running >= width) await new Promise<void>((go) => waiting.push(go));
    running++;
    try {
      return await job();
    } finally {
      running--;
      waiting.shift()?.();
    }
  };
}

async function runPage(page: string): Promise<Outcome> {
  const setup = SETUP[page] ?? {};
  const extra = setup.env ? await setup.env() : {};
  if (extra === undefined) return { skipped: true };
  // A fresh folder of the reader's project per block (issue 41): nothing an earlier page or an earlier
  // block of this page wrote is there, so a block that only works after another one fails.
  const cwd = mkdtempSync(join(tmpdir(), 'indusagi-docs-'));
  const blockDir = (fence: DocFence) => join(cwd, `L${fence.line}`);
  try {
    const fences = FENCES.get(page)!;
    // The blocks' files are in `cwd/.blocks`, so their imports resolve from here.
    symlinkSync(join(project, 'node_modules'), join(cwd, 'node_modules'), 'dir');
    for (const fence of fences.filter((each) => each.runnable)) {
      const dir = blockDir(fence);
      mkdirSync(dir);
      writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'docs-reader', private: true, type: 'module' }));
      symlinkSync(join(project, 'node_modules'), join(dir, 'node_modules'), 'dir');
      for (const [name, content] of Object.entries(setup.files ?? {})) writeFileSync(join(dir, name), content);
    }
    const run = await runDocPage(scratch.dir, fences, { cwd, env: offlineEnv(extra), installed: true, blockDir });
    const problems = runProblems(run);
    if (setup.check) problems.push(...(await setup.check(run, (block) => blockDir(run.blocks[block].fence))));
    return { skipped: false, problems, blocks: run.blocks.length };
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
}

beforeAll(async () => {
  scratch = docScratch();
  const slot = pool(2);
  project = mkdtempSync(join(tmpdir(), 'indusagi-docs-app-'));
  const used = [...FENCES.values()]
    .flat()
    .filter((fence) => fence.runnable)
    .flatMap((fence) => packagesUsed(fence.code));
  const installed = packedTarball().then(({ tarball }) =>
    installTarball(tarball, project, (pkg) => ({
      // What the package needs, and what the blocks tell the reader to install beside it.
      required: [...Object.keys(pkg.dependencies ?? {}), ...used.filter((name) => name !== 'indusagi')],
      optional: Object.keys(pkg.peerDependencies ?? {}),
    })),
  );
  installed.catch(() => undefined);
  const settle = <T>(promise: Promise<T>) => (promise.catch(() => undefined), promise);
  typecheck = settle(
    slot(async () => {
      const { errors, other } = await typecheckDocs(scratch.dir, [...FENCES.values()].flat());
      return { problems: [...errors.map((e) => `${e.page}:${e.line}: TS${e.code} ${e.message}`), ...other] };
    }),
  );
  for (const [page, fences] of FENCES)
    if (fences.some((fence) => fence.runnable)) outcomes.set(page, settle(installed.then(() => slot(() => runPage(page)))));
});

afterAll(async () => {
  await Promise.allSettled([typecheck, ...outcomes.values()]);
  scratch?.remove();
  if (project) rmSync(project, { recursive: true, force: true });
});

describe('docs examples', () => {
  it('every TypeScript block typechecks (a fragment may use names its page defines around it)', async () => {
    const { problems } = await typecheck;
    expect(problems).toEqual([]);
  });

  it('a page whose blocks need more than the demo model says what, and how to get it, before its first block', () => {
    for (const [page, setup] of Object.entries(SETUP)) {
      if (setup.env === undefined || !PAGES.includes(page)) continue;
      expect(setup.says, `${page}: SETUP gives it variables, so it must say what a reader sets`).toBeDefined();
      const lines = readFileSync(join(repo, page), 'utf8').split('\n');
      const first = FENCES.get(page)!.find((fence) => fence.runnable)!.line;
      expect(lines.slice(0, first - 1).join('\n')).toMatch(setup.says!);
    }
  });

  for (const page of PAGES) {
    const fences: DocFence[] = FENCES.get(page)!;
    const runnable = fences.filter((fence) => fence.runnable).length;
    if (runnable === 0 && SETUP[page]?.atLeast === undefined) continue;
    it(`${page}: every runnable block runs as written and prints what its // -> comments say`, async (context) => {
      expect(runnable, `${page}: runnable blocks`).toBeGreaterThanOrEqual(SETUP[page]?.atLeast ?? 1);
      const outcome = await outcomes.get(page)!;
      if (outcome.skipped) return context.skip(`${page} needs a PostgreSQL server`);
      expect(outcome.problems).toEqual([]);
    });
  }
});
