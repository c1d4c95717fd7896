// Every TypeScript block of the README and docs/*.md, as docs/README.md promises: each ```ts block runs
// as written, offline, and prints what its `// -> text` comments say; every block, fragments included,
// typechecks. Pages are found, not listed: a new page is covered the moment it lands. A page that needs
// more than a scratch folder and the offline models says so in SETUP below.
//
// DOCS_PAGE=docs/agent.md narrows a run to one page (or a comma-separated few) while writing one.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoModel } from '../../src/demo/index.js';
import type { DemoModel } from '../../src/demo/index.js';
import { docScratch, readFences, runDocPage, runProblems, typecheckDocs } from '../support/doc-examples.js';
import type { DocFence, PageRun } from '../support/doc-examples.js';
import { pngBase64 } from '../support/media.js';
import { freshSchema, postgresUrl } from '../support/postgres.js';

const repo = resolve(import.meta.dirname, '../..');

type PageSetup = {
  /** Where the blocks run: a fresh scratch folder (the default), or the repo for blocks that name its files. */
  cwd?: 'scratch' | 'repo';
  /** Files the blocks open as a reader's project would hold them, written into the scratch folder first. */
  files?: Record<string, string | Buffer>;
  /** Fewer runnable blocks than this means some were fenced away or lost. */
  atLeast?: number;
  /** Variables the page's blocks read, made before it runs; `undefined` skips the page (outside CI only). */
  env?: () => Promise<Record<string, string> | undefined>;
  /** What else the page's blocks must leave behind, checked in the folder they ran in. */
  check?: (run: PageRun, cwd: string) => Promise<string[]>;
};

const SETUP: Record<string, PageSetup> = {
  'README.md': {
    atLeast: 2,
    // The first example's tool reports the time; its session file is written and its lock released.
    check: async (run, cwd) => {
      const problems: string[] = [];
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
  // Five cases, recorded, replayed and compared, each block reading what the one before wrote.
  'docs/evals.md': { atLeast: 4 },
  'docs/guardrails.md': { atLeast: 3 },
  // Its blocks start MCP servers from the repo's node_modules, by relative path.
  'docs/mcp.md': { cwd: 'repo', atLeast: 3 },
  'docs/memory.md': { atLeast: 7 },
  // The researcher/writer tree, the handoff and the budget, each on the demo model.
  'docs/subagents.md': { atLeast: 3 },
  'docs/postgres.md': {
    atLeast: 2,
    // A database of its own on the run's server, named by INDUSAGI_DATABASE_URL as the page says.
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

// Whatever a developer's shell holds, the blocks reach no real model: Claude by id is the offline demo
// model (ANTHROPIC_BASE_URL), and OpenAI clients get a key and an address where nothing listens.
const CREDENTIALS = /^(ANTHROPIC|OPENAI|GOOGLE_GENERATIVE_AI|AZURE|AWS|MISTRAL|GROQ|XAI|DEEPSEEK|INDUSAGI)_/;
function offlineEnv(demo: DemoModel, extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !CREDENTIALS.test(name)));
  return {
    ...env,
    ANTHROPIC_BASE_URL: demo.baseURL,
    ANTHROPIC_API_KEY: 'offline-demo',
    OPENAI_API_KEY: 'offline',
    OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
    ...extra,
  };
}

type Outcome = { skipped: true } | { skipped: false; problems: string[]; blocks: number };

let demo: DemoModel;
let scratch: ReturnType<typeof docScratch>;
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
  const cwd = setup.cwd === 'repo' ? repo : mkdtempSync(join(tmpdir(), 'indusagi-docs-'));
  try {
    for (const [name, content] of Object.entries(setup.files ?? {})) writeFileSync(join(cwd, name), content);
    const fences = FENCES.get(page)!;
    const run = await runDocPage(scratch.dir, fences, { cwd, env: offlineEnv(demo, extra) });
    const problems = runProblems(run);
    if (setup.check) problems.push(...(await setup.check(run, cwd)));
    return { skipped: false, problems, blocks: run.blocks.length };
  } finally {
    if (cwd !== repo) rmSync(cwd, { recursive: true, force: true });
  }
}

beforeAll(async () => {
  demo = await startDemoModel({ chunkDelayMs: 0 });
  scratch = docScratch();
  const slot = pool(2);
  const settle = <T>(promise: Promise<T>) => (promise.catch(() => undefined), promise);
  typecheck = settle(
    slot(async () => {
      const { errors, other } = await typecheckDocs(scratch.dir, [...FENCES.values()].flat());
      return { problems: [...errors.map((e) => `${e.page}:${e.line}: TS${e.code} ${e.message}`), ...other] };
    }),
  );
  for (const [page, fences] of FENCES) if (fences.some((fence) => fence.runnable)) outcomes.set(page, settle(slot(() => runPage(page))));
});

afterAll(async () => {
  await Promise.allSettled([typecheck, ...outcomes.values()]);
  scratch?.remove();
  await demo?.close();
});

describe('docs examples', () => {
  it('every TypeScript block typechecks (a fragment may use names its page defines around it)', async () => {
    const { problems } = await typecheck;
    expect(problems).toEqual([]);
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
