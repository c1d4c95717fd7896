import { appendFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HISTORY_FILE, PromptHistory } from '../../../src/cli/chat/terminal/index.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'indusagi-history-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('the prompt history of a workspace', () => {
  it('keeps prompts across loads, oldest first, multi-line ones whole', async () => {
    const history = await PromptHistory.load(root);
    expect(history.entries).toEqual([]);
    for (const prompt of ['first', 'two\nlines', 'third']) {
      history.entries.push(prompt);
      await history.add(prompt);
    }
    expect((await PromptHistory.load(root)).entries).toEqual(['first', 'two\nlines', 'third']);
  });

  it('skips and counts a line a crash tore, and the next prompt starts on a line of its own', async () => {
    const history = await PromptHistory.load(root);
    await history.add('kept');
    await appendFile(join(root, HISTORY_FILE), '{"prompt":"tor');
    const torn = await PromptHistory.load(root);
    expect({ entries: torn.entries, skipped: torn.skipped }).toEqual({ entries: ['kept'], skipped: 1 });
    await torn.add('after');
    const again = await PromptHistory.load(root);
    expect({ entries: again.entries, skipped: again.skipped }).toEqual({ entries: ['kept', 'after'], skipped: 1 });
  });

  it('keeps the latest 500, rewriting the file when it reaches twice that', async () => {
    const history = await PromptHistory.load(root);
    for (let i = 0; i < 1_000; i++) {
      history.entries.push(`p${i}`);
      await history.add(`p${i}`);
    }
    const lines = (await readFile(join(root, HISTORY_FILE), 'utf8')).trim().split('\n');
    expect(lines).toHaveLength(500);
    expect(JSON.parse(lines[0])).toEqual({ prompt: 'p500' });
    const loaded = await PromptHistory.load(root);
    expect(loaded.entries.at(-1)).toBe('p999');
    expect(loaded.entries).toHaveLength(500);
  });
});
