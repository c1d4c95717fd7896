import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, useWorkspace } from './cli-process.js';

const SLOW = 300_000;
const workspace = useWorkspace();

describe('/resume without an id', () => {
  it(
    'offers the latest other sessions by number; the next line picks one, an id works too, an empty line stays',
    async () => {
      const args = ['--store', join(workspace.dir, 'store'), '--memory', join(workspace.dir, 'memory.jsonl')];
      await runCli(['-p', 'list files in src', '--session', 'alpha', ...args], workspace.dir);
      await runCli(['-p', 'what time is it?', '--session', 'beta', ...args], workspace.dir);

      const chat = await runCli(['chat', '--session', 'gamma', ...args], workspace.dir, [
        '/resume',
        '2',
        '/resume',
        '9',
        '/resume',
        'beta',
        '/resume',
        '',
      ]);
      expect(chat.code).toBe(1);
      const out = chat.stdout;
      // Newest first, and not the session the chat is on.
      expect(out).toMatch(
        /› \/resume\n {2}1 {2}beta .* what time is it\?\n {2}2 {2}alpha .* list files in src\npick a number \(or type an id\); an empty line keeps this session\n› 2\nswitched to session alpha: 4 turns in context\n/,
      );
      expect(out).toContain('› 9\n✗ error: pick a number from 1 to 1\n');
      expect(out).toContain('› beta\nswitched to session beta: 4 turns in context\n');
      expect(out).toMatch(/› \n?staying on session beta\n/);
    },
    SLOW,
  );
});
