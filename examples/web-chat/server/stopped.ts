import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** A reply the user stopped: what it had said, and the session node it came after (the leaf when it stopped). */
export type StoppedReply = { after: string; text: string };

/**
 * The replies users stopped, per session. The conductor keeps no half turn (an aborted reply is not
 * part of the conversation the model sees), so the page's "stopped" marker, and the text shown
 * before it, would vanish on reload; the example keeps them beside the session store, one JSON file
 * per session, replaced whole (write, then rename) so a crash leaves the old list or the new one.
 */
export class StoppedReplies {
  constructor(private readonly dir: string) {}

  async of(sessionId: string): Promise<StoppedReply[]> {
    const raw = await readFile(this.file(sessionId), 'utf8').catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return '[]';
      throw error;
    });
    // Earlier versions of the example placed a stopped reply by a count of turns, which says nothing on which branch.
    return (JSON.parse(raw) as Array<Partial<StoppedReply>>).filter((stop): stop is StoppedReply => typeof stop.after === 'string');
  }

  async record(sessionId: string, stopped: StoppedReply): Promise<void> {
    const all = [...(await this.of(sessionId)), stopped];
    await mkdir(this.dir, { recursive: true });
    const temporary = `${this.file(sessionId)}.${process.pid}.tmp`;
    await writeFile(temporary, JSON.stringify(all));
    await rename(temporary, this.file(sessionId));
  }

  // Session ids here are `web-` and hex (browsers.ts), never a path.
  private file(sessionId: string): string {
    return join(this.dir, `${sessionId}.json`);
  }
}
