import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SessionStore } from '../../src/runtime/store/index.js';
import { startAnthropicServer } from '../../src/testing/index.js';
import type { Comparison, EvalResult } from '../../src/evals/index.js';
import { haveChromium, launchChromium } from '../support/chromium.js';
import { runCli, useWorkspace } from './cli-process.js';

// `indusagi eval FILE` as a real process, over the offline demo model: record, replay (with a model
// endpoint in the environment that must see no request), compare, and the HTML report in Chromium.
const SLOW = 300_000;
const MODULE = join(import.meta.dirname, '../evals/fixtures/clock-eval.ts');
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
