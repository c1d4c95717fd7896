import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { dirname, join } from 'node:path';

/** Where a workspace keeps its prompt history, relative to its folder. */
export const HISTORY_FILE = join('.indusagi', 'prompt-history.jsonl');

/** Prompts kept: the latest this many. */
const KEEP = 500;

/**
 * The prompts typed in this workspace, oldest first, for Up and Down in the editor across chats: one
 * JSON line per prompt (`{"prompt": …}`), appended as each is sent. It is convenience, not a record:
 * an append is not synced, and a line a crash tore is skipped (and counted in `skipped`). When the file
 * holds twice `KEEP` prompts, it is rewritten with the latest `KEEP` (a sibling, renamed over it).
 * Piped chats and `-p` do not touch it.
 */
export class PromptHistory {
  private constructor(
    private readonly path: string,
    /** Earlier prompts, oldest first; the editor appends to this very array. */
    readonly entries: string[],
    /** Lines that could not be read. */
    readonly skipped: number,
    private lines: number,
  ) {}

  /** Appends run one at a time, so each sees the tail the previous one left. */
  private queue: Promise<void> = Promise.resolve();

  static async load(root: string): Promise<PromptHistory> {
    const path = join(root, HISTORY_FILE);
    let text = '';
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    const entries: string[] = [];
    let skipped = 0;
    let lines = 0;
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue;
      lines++;
      try {
        const { prompt } = JSON.parse(line) as { prompt?: unknown };
        if (typeof prompt !== 'string') throw new Error('no prompt');
        if (entries.at(-1) !== prompt) entries.push(prompt);
      } catch {
        skipped++;
      }
    }
    return new PromptHistory(path, entries.slice(-KEEP), skipped, lines);
  }

  /** Appends `prompt` to the file (the editor has put it in `entries` already), after any append still going. */
  add(prompt: string): Promise<void> {
    const appended = this.queue.then(() => this.append(prompt));
    this.queue = appended.catch(() => undefined);
    return appended;
  }

  private async append(prompt: string): Promise<void> {
    await mkdir(dirname(this.path), { recursive: true });
    const file = await open(this.path, 'a+');
    try {
      // A line torn by a crash is closed off first, so this one stays readable.
      const { size } = await file.stat();
      const last = Buffer.alloc(1);
      const torn = size > 0 && (await file.read(last, 0, 1, size - 1)).bytesRead === 1 && last[0] !== 0x0a;
      await file.appendFile(`${torn ? '\n' : ''}${JSON.stringify({ prompt })}\n`, 'utf8');
    } finally {
      await file.close();
    }
    if (++this.lines >= 2 * KEEP) await this.rewrite();
  }

  private async rewrite(): Promise<void> {
    const kept = this.entries.slice(-KEEP);
    const temporary = join(dirname(this.path), `.prompt-history-${randomUUID()}.tmp`);
    try {
      const file = await open(temporary, 'wx');
      try {
        await file.writeFile(kept.map((prompt) => `${JSON.stringify({ prompt })}\n`).join(''), 'utf8');
      } finally {
        await file.close();
      }
      await rename(temporary, this.path);
      this.lines = kept.length;
    } finally {
      await rm(temporary, { force: true });
    }
  }
}
