// describeEval in the test runner: a vitest of its own runs a file of evaluations, and its report says
// which case tests and mean tests failed, and why.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EvalOptionsError } from '../../src/evals/index.js';
import { describeEval } from '../../src/evals/vitest.js';

const repo = resolve(import.meta.dirname, '../..');

type Report = { testResults: Array<{ assertionResults: Array<{ fullName: string; status: string; failureMessages: string[] }> }> };

function vitest(args: string[]): Promise<number | null> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [join(repo, 'node_modules/vitest/vitest.mjs'), ...args], { cwd: repo, stdio: 'ignore' });
    child.on('error', fail);
    child.on('exit', done);
  });
}

describe('describeEval', () => {
  it('makes each case a test that fails under its threshold, and each mean asked for a test of its own', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'indusagi-describe-eval-'));
    try {
      const out = join(dir, 'report.json');
      const code = await vitest(['run', '--root', 'tests/evals/fixtures/describe-eval', '--reporter=json', `--outputFile=${out}`]);
      expect(code).toBe(1);
      const report = JSON.parse(await readFile(out, 'utf8')) as Report;
      const tests = report.testResults.flatMap((file) => file.assertionResults);
      expect(tests.map((t) => [t.fullName, t.status])).toEqual([
        ['good sum', 'passed'],
        ['good paris', 'passed'],
        ['good contains: mean at least 1', 'passed'],
        ['worse paris', 'passed'],
        ['worse oslo', 'failed'],
        ['worse contains: mean at least 0.9', 'failed'],
        ['worse trajectory_strict: mean at least 1', 'passed'],
      ]);
      const oslo = tests.find((t) => t.fullName === 'worse oslo')!;
      expect(oslo.failureMessages.join('\n')).toContain('case oslo: contains scored 0: missing "sunny"');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses a threshold that is not a score before defining anything', () => {
    expect(() => describeEval('bad', { agent: { open: () => undefined as never }, data: [], scorers: [], threshold: 2 })).toThrow(
      EvalOptionsError,
    );
  });
});
