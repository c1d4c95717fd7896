import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startDemoModel } from '../../src/demo/index.js';
import type { DemoModel } from '../../src/demo/index.js';
import { missing, runDocExamples } from '../support/doc-examples.js';

let demo: DemoModel;
let dir: string;

beforeAll(async () => {
  demo = await startDemoModel({ chunkDelayMs: 0 });
  dir = await mkdtemp(join(tmpdir(), 'indusagi-readme-'));
});

afterAll(async () => {
  await demo?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

it("the README's examples run as written: createAgent calls its tool and persists a resumable session; the testing kit scripts a model", async () => {
  const { code, stderr, blocks } = await runDocExamples('README.md', {
    cwd: dir,
    env: { ANTHROPIC_BASE_URL: demo.baseURL, ANTHROPIC_API_KEY: 'offline-demo' },
  });
  expect(stderr).toBe('');
  expect(code).toBe(0);
  expect(blocks).toHaveLength(2);
  for (const block of blocks) expect(missing(block), block.printed.join('\n')).toEqual([]);
  expect(blocks[0].printed.some((line) => /^\[clock\.now\] \d{4}-\d{2}-\d{2}T/.test(line))).toBe(true);
  const files = await readdir(join(dir, '.indusagi/sessions'));
  expect(files.filter((f) => f.endsWith('.jsonl'))).toHaveLength(1);
  expect(files.filter((f) => f.endsWith('.lock'))).toEqual([]);
});
