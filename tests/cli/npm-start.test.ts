import { spawn } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { makeWorkspace } from './cli-process.js';

describe('npm start', () => {
  it('runs the chat and answers prompts piped to it', async () => {
    const workspace = await makeWorkspace();
    try {
      const root = fileURLToPath(new URL('../../', import.meta.url));
      const locations = ['--store', join(workspace.dir, 'sessions'), '--memory', join(workspace.dir, 'memory.jsonl')];
      const child = spawn('npm', ['start', '--silent', '--', ...locations], {
        cwd: root,
        env: { ...process.env, ANTHROPIC_API_KEY: '', OPENAI_API_KEY: '' },
      });
      child.stdin.end('what time is it?\n');
      let stdout = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
      const code = await new Promise((resolve) => child.once('close', resolve));
      expect(code).toBe(0);
      expect(stdout).toMatch(/^indusagi chat · session \S+ · the offline demo model/);
      expect(stdout).toContain('› what time is it?\n(offline demo model) Checking the clock.\n  ⚙ clock.now {}\n  ✓ clock.now: ');
      expect(await readdir(join(workspace.dir, 'sessions'))).toHaveLength(1);
    } finally {
      await workspace.cleanup();
    }
  });
});
