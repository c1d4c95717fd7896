import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SessionStore } from '../../src/runtime/store/index.js';
import { startAnthropicServer } from '../../src/testing/index.js';
import { loadLocomo, memoryRecallEval, type Comparison, type EvalResult } from '../../src/evals/index.js';
import { createMemoryStore } from '../../src/memory/index.js';
import { haveChromium, launchChromium } from '../support/chromium.js';
import { runCli, useWorkspace } from './cli-process.js';

// `indusagi eval FILE` as a real process, over the offline demo model: record, replay (with a model
// endpoint in the environment that must see no request), compare, and the HTML report in Chromium.
const SLOW = 300_000;
const MODULE = join(import.meta.dirname, '../evals/fixtures/clock-eval.ts');
const RECALL = join(import.meta.dirname, '../../src/evals/locomo-recall.eval.ts');

/** A LoCoMo-shaped file as published (an array of `{ sample_id, conversation, qa }`), small enough to read. */
const tinyLocomo = [
  {
    sample_id: 'tiny',
    conversation: {
      speaker_a: 'Ana',
      speaker_b: 'Ben',
      session_1_date_time: '10:00 am on 3 March, 2023',
      session_1: [
        { speaker: 'Ana', dia_id: 'D1:1', text: 'I adopted a puppy named Biscuit.' },
        { speaker: 'Ben', dia_id: 'D1:2', text: 'Congratulations! I started learning the violin.' },
        { speaker: 'Ana', dia_id: 'D1:3', text: 'My sister lives in Lisbon.' },
      ],
      session_2_date_time: '2:30 pm on 17 April, 2023',
      session_2: [
        { speaker: 'Ben', dia_id: 'D2:1', text: 'I played the violin at a concert last Saturday.' },
        { speaker: 'Ana', dia_id: 'D2:2', text: 'Biscuit chewed my shoes again.' },
      ],
    },
    qa: [
      { question: "What is the name of Ana's puppy?", answer: 'Biscuit', evidence: ['D1:1'], category: 4 },
      { question: 'When did Ben play at a concert?', answer: '15 April 2023', evidence: ['D2:1'], category: 2 },
      { question: 'Which instrument did Ben play at the concert?', answer: 'the violin', evidence: ['D1:2', 'D2:1'], category: 1 },
      { question: 'Where does Ana live?', answer: 'unknown', evidence: [], category: 3 },
      { question: 'What did Ben adopt?', adversarial_answer: 'a puppy', evidence: ['D1:1'], category: 5 },
    ],
  },
];
const workspace = useWorkspace();

describe('indusagi eval', () => {
  it(
    'records a run, replays it with no model request, compares the two and writes an HTML report',
    async () => {
      const dir = workspace.dir;
      const store = join(dir, 'eval-sessions');
      const recorded = await runCli(['eval', MODULE, '--record', 'rec.jsonl', '--json', '--store', store], dir);
      expect(recorded).toMatchObject({ code: 0, stderr: '' });
      const first = JSON.parse(recorded.stdout) as EvalResult;
      expect(first.cases.map((c) => [c.id, c.status])).toEqual([
        ['time', 'settled'],
        ['date', 'settled'],
        ['hello', 'settled'],
        ['thanks', 'settled'],
        ['now', 'settled'],
      ]);
      expect(first.cases[0].output).toContain('2026-01-01T12:00:00Z');
      expect(first.cases[0].trajectory).toMatchObject([{ name: 'clock.now', result: '2026-01-01T12:00:00Z' }]);
      expect(first.summary.scorers).toEqual([
        { name: 'contains', mean: 0.8, passRate: 0.8, scored: 5 },
        { name: 'trajectory_strict', mean: 1, passRate: 1, scored: 5 },
      ]);
      // Every case is a session of the store, to open like any other.
      const sessions = (await new SessionStore(store).listSessions()).map((s) => s.id).sort();
      expect(sessions).toEqual(first.cases.map((c) => c.sessionId).sort());
      await writeFile(join(dir, 'base.json'), recorded.stdout);

      // A model endpoint is configured: a replay must not send it anything.
      const endpoint = await startAnthropicServer();
      try {
        const env = { ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: endpoint.baseURL };
        const replayed = await runCli(
          [
            'eval',
            MODULE,
            '--replay',
            'rec.jsonl',
            '--json',
            '--baseline',
            'base.json',
            '--html',
            'report.html',
            '--concurrency',
            '2',
            '--store',
            store,
          ],
          dir,
          [],
          env,
        );
        expect(replayed).toMatchObject({ code: 0, stderr: '' });
        const second = JSON.parse(replayed.stdout) as EvalResult & { comparison: Comparison };
        expect(second.cases.map((c) => c.output)).toEqual(first.cases.map((c) => c.output));
        expect(second.comparison.scorers.map((s) => [s.name, s.wins, s.losses, s.ties, s.verdict])).toEqual([
          ['contains', 0, 0, 5, 'same'],
          ['trajectory_strict', 0, 0, 5, 'same'],
        ]);

        // A changed system prompt: every case misses its recording, the command fails, nothing is sent.
        const changed = await runCli(['eval', MODULE, '--replay', 'rec.jsonl', '--store', store], dir, [], {
          ...env,
          EVAL_SYSTEM: 'Be brief.',
        });
        expect(changed.code).toBe(1);
        expect(changed.stdout).toMatch(/5 cases, 5 replay_miss/);
        expect(changed.stdout).toMatch(/replay_miss time: no recorded reply/);

        // The summary for people, live again (the demo model, since the key is not set).
        const plain = await runCli(['eval', MODULE, '--store', store], dir);
        expect(plain.code).toBe(0);
        expect(plain.stdout).toMatch(/^clock \(run \w+\): 5 cases, 5 settled\n {2}contains {11}mean 0\.800 {2}pass 80\.0%\n/);
        expect(endpoint.requests).toHaveLength(0);
      } finally {
        await endpoint.close();
      }

      if (!haveChromium('evaluation report')) return;
      const browser = await launchChromium();
      try {
        const page = await browser.newPage();
        const requested: string[] = [];
        page.on('request', (request) => requested.push(request.url()));
        const url = pathToFileURL(join(dir, 'report.html')).href;
        await page.goto(url);
        expect(requested).toEqual([url]);
        expect(await page.locator('h1').textContent()).toBe('clock');
        expect(await page.locator('figure[data-scorer] svg rect').count()).toBe(20);
        expect(await page.locator('table.comparison tr').count()).toBe(3);
        const thanks = page.locator('details#case-thanks');
        expect(await thanks.locator('pre').first().isVisible()).toBe(false);
        await thanks.locator('summary').click();
        expect(await thanks.locator('li.fail').textContent()).toMatch(/^contains: 0\.000 — missing "welcome"/);
        await page.locator('details#case-time summary').click();
        expect(await page.locator('details#case-time ul.tree li').textContent()).toContain('clock.now');
      } finally {
        await browser.close();
      }
    },
    SLOW,
  );

  it(
    'with --journal, a second run goes on from the first: same run id, no case run again, no model request',
    async () => {
      const dir = workspace.dir;
      const store = join(dir, 'journal-sessions');
      const first = await runCli(['eval', MODULE, '--journal', 'clock.journal', '--json', '--store', store], dir);
      expect(first).toMatchObject({ code: 0, stderr: '' });
      const done = JSON.parse(first.stdout) as EvalResult;
      const endpoint = await startAnthropicServer();
      try {
        // A key and an endpoint: whatever the second run asked a model would reach it.
        const env = { ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: endpoint.baseURL };
        const again = await runCli(['eval', MODULE, '--journal', 'clock.journal', '--json', '--store', store], dir, [], env);
        expect(again).toMatchObject({ code: 0, stderr: '' });
        const resumed = JSON.parse(again.stdout) as EvalResult;
        expect(resumed.runId).toBe(done.runId);
        expect(resumed.cases.map((c) => [c.id, c.status, c.output])).toEqual(done.cases.map((c) => [c.id, c.status, c.output]));
        expect(endpoint.requests).toHaveLength(0);
      } finally {
        await endpoint.close();
      }
      const journal = (await readFile(join(dir, 'clock.journal'), 'utf8')).trimEnd().split('\n');
      expect(journal).toHaveLength(1 + done.cases.length);
    },
    SLOW,
  );

  it(
    'runs memory recall on LoCoMo from its module: --json, the summary by category, --html and --baseline',
    async () => {
      const dir = workspace.dir;
      const file = join(dir, 'tiny-locomo.json');
      await writeFile(file, JSON.stringify(tinyLocomo));
      const env = { LOCOMO: file, LOCOMO_K: '1,5' };
      const json = await runCli(['eval', RECALL, '--json'], dir, [], env);
      expect(json).toMatchObject({ code: 0, stderr: '' });
      const result = JSON.parse(json.stdout) as EvalResult & { unscorable: string[] };
      // Categories 1-4 by default; the open-domain question names no evidence turn, so it cannot be scored.
      expect(result.name).toBe('locomo-recall');
      expect(result.cases.map((c) => c.metadata.category)).toEqual([4, 2, 1]);
      expect(result.unscorable).toHaveLength(1);
      expect(result.summary.scorers.map((s) => s.name)).toEqual(['recall@1', 'hit@1', 'recall@5', 'hit@5']);
      expect(result.summary.groups!.map((g) => [g.group, g.cases])).toEqual([
        ['1 multi-hop', 1],
        ['2 temporal', 1],
        ['4 single-hop', 1],
      ]);
      // The same scores as memoryRecallEval gives in process over the same data and store.
      const direct = await memoryRecallEval({ data: await loadLocomo(file), store: () => createMemoryStore(), k: [1, 5] });
      expect(result.cases.map((c) => [c.id, c.output, c.scores])).toEqual(direct.cases.map((c) => [c.id, c.output, c.scores]));
      expect(result.summary.groups).toEqual(direct.summary.groups);
      await writeFile(join(dir, 'recall-base.json'), json.stdout);

      const text = await runCli(['eval', RECALL, '--html', 'recall.html', '--baseline', 'recall-base.json'], dir, [], env);
      expect(text).toMatchObject({ code: 0, stderr: '' });
      expect(text.stdout).toMatch(/^locomo-recall \(run \w+\): 3 cases, 3 settled\n/);
      expect(text.stdout).toMatch(/^ {2}group +n +recall@1 +hit@1 +recall@5 +hit@5$/m);
      expect(text.stdout).toMatch(/^ {2}2 temporal +1 +\d\.\d{3} +\d\.\d{3}/m);
      expect(text.stdout).toMatch(/against locomo-recall \(run \w+\), 3 paired cases:\n {4}recall@1 +same +\+0 -0 =3/);
      const html = await readFile(join(dir, 'recall.html'), 'utf8');
      expect(html).toContain('<h2>By group</h2>');
      expect(html).toContain('4 single-hop');

      // What steers evaluate's agents does not reach it; bad settings are named.
      const refused = await Promise.all([
        runCli(['eval', RECALL, '--journal', 'recall.journal'], dir, [], env),
        runCli(['eval', RECALL], dir, [], { ...env, LOCOMO_K: 'five' }),
        runCli(['eval', RECALL], dir, [], { LOCOMO: join(dir, 'missing.json') }),
      ]);
      expect(refused[0].code).toBe(2);
      expect(refused[0].stderr).toMatch(/runs its evaluation itself \(no agent, no model\): --journal does not apply/);
      expect(refused[1].code).not.toBe(0);
      expect(refused[1].stderr).toMatch(/LOCOMO_K must be whole numbers separated by commas .*"five"/);
      expect(refused[2].code).not.toBe(0);
      expect(refused[2].stderr).toMatch(/missing\.json/);
    },
    SLOW,
  );

  it(
    'refuses a command line or a module it cannot run, exit 2, before any case',
    async () => {
      const dir = workspace.dir;
      await writeFile(join(dir, 'not-an-eval.mjs'), 'export const x = 1;\n');
      const runs = await Promise.all([
        runCli(['eval'], dir),
        runCli(['eval', MODULE, '--record', 'a.jsonl', '--replay', 'b.jsonl'], dir),
        runCli(['eval', MODULE, '--concurrency', '0'], dir),
        runCli(['eval', 'not-an-eval.mjs'], dir),
        runCli(['eval', MODULE, '--replay', 'missing.jsonl'], dir),
      ]);
      expect(runs.map((r) => r.code)).toEqual([2, 2, 2, 2, 2]);
      expect(runs[0].stderr).toMatch(/eval needs the evaluation module FILE/);
      expect(runs[1].stderr).toMatch(/--record and --replay cannot go together/);
      expect(runs[2].stderr).toMatch(/--concurrency must be a whole number/);
      expect(runs[3].stderr).toMatch(/must default-export an evaluation/);
      expect(runs[4].stderr).toMatch(/--replay .*missing\.jsonl/);
    },
    SLOW,
  );
});
