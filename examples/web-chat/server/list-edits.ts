import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { badRequest } from './refused.js';

/** What a browser changed about its conversation list: the names it gave, the conversations it deleted. */
export type ListEdits = { titles: Record<string, string>; deleted: string[] };

const MAX_TITLE = 200;

/**
 * The browsers' own names for their conversations, and the ones they deleted, one JSON file per
 * browser beside the session store (replaced whole: write, then rename). The session store knows
 * neither: a title there is the first prompt, and a session cannot be deleted, so a deleted
 * conversation is one this server no longer shows nor answers for; its turns stay in the store.
 * Edits to one browser's file take turns, so two renames at once both land.
 */
export class ConversationListEdits {
  private readonly queue = new Map<string, Promise<unknown>>();

  constructor(private readonly dir: string) {}

  async of(browser: string): Promise<ListEdits> {
    const raw = await readFile(this.file(browser), 'utf8').catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return '{"titles":{},"deleted":[]}';
      throw error;
    });
    return JSON.parse(raw) as ListEdits;
  }

  rename(browser: string, conversation: string, title: unknown): Promise<string> {
    if (typeof title !== 'string' || title.trim() === '') throw badRequest('"title" must be a non-empty string.');
    const clean = title.replace(/\s+/g, ' ').trim();
    if (clean.length > MAX_TITLE) throw badRequest(`"title" may have at most ${MAX_TITLE} characters.`);
    return this.edit(browser, (edits) => ((edits.titles[conversation] = clean), clean));
  }

  delete(browser: string, conversation: string): Promise<void> {
    return this.edit(browser, (edits) => {
      if (!edits.deleted.includes(conversation)) edits.deleted.push(conversation);
      delete edits.titles[conversation];
    });
  }

  private edit<T>(browser: string, change: (edits: ListEdits) => T): Promise<T> {
    const previous = this.queue.get(browser) ?? Promise.resolve();
    // An edit that failed reported its error to its own caller; the next one starts from the file as it stands.
    const next = previous
      .catch(() => undefined)
      .then(async () => {
        const edits = await this.of(browser);
        const result = change(edits);
        await mkdir(this.dir, { recursive: true });
        const temporary = `${this.file(browser)}.${process.pid}.tmp`;
        await writeFile(temporary, JSON.stringify(edits));
        await rename(temporary, this.file(browser));
        return result;
      });
    this.queue.set(browser, next);
    const forget = () => {
      if (this.queue.get(browser) === next) this.queue.delete(browser);
    };
    next.then(forget, forget);
    return next;
  }

  // Browser names are `web-` and hex (browsers.ts), never a path.
  private file(browser: string): string {
    return join(this.dir, `${browser}.json`);
  }
}
