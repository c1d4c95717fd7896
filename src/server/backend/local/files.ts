import { randomBytes } from 'node:crypto';
import { appendFile, mkdir, open, readdir, readFile, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/**
 * Writes run by path one after another, so each file sees its changes in the order they were made; a
 * record file is replaced whole (written to a temp file, synced, renamed over), so a crash leaves the
 * old record or the new one, never half of one.
 */
export class FileWrites {
  private readonly queues = new Map<string, Promise<void>>();

  /** Replaces `path` with `value` as JSON. */
  writeJson(path: string, value: unknown): Promise<void> {
    return this.queued(path, async () => {
      // Serialized before any file is made: a value that cannot be leaves nothing behind.
      const text = `${JSON.stringify(value)}\n`;
      await mkdir(dirname(path), { recursive: true });
      const temp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
      try {
        const handle = await open(temp, 'w');
        try {
          await handle.writeFile(text);
          await handle.sync();
        } finally {
          await handle.close();
        }
        await rename(temp, path);
      } catch (error) {
        // A write that failed (a full disk, say) must not leave its temp file to pile up.
        await rm(temp, { force: true });
        throw error;
      }
    });
  }

  /** Appends one JSON line per value. */
  appendLines(path: string, values: readonly unknown[]): Promise<void> {
    return this.queued(path, async () => {
      await mkdir(dirname(path), { recursive: true });
      await appendFile(path, values.map((value) => `${JSON.stringify(value)}\n`).join(''));
    });
  }

  remove(path: string): Promise<void> {
    return this.queued(path, () => rm(path, { force: true }));
  }

  /** Resolves once every write queued so far is done. */
  async settled(): Promise<void> {
    await Promise.all([...this.queues.values()]);
  }

  private queued(path: string, work: () => Promise<void>): Promise<void> {
    const next = (this.queues.get(path) ?? Promise.resolve()).then(work);
    const tail = next.catch(() => undefined);
    this.queues.set(path, tail);
    void tail.then(() => {
      if (this.queues.get(path) === tail) this.queues.delete(path);
    });
    return next;
  }
}

/** Every `*.json` record in `dir` (none when it does not exist); a file that is not JSON is reported, not read. */
export async function readRecords<T>(dir: string, skipped: (path: string, error: unknown) => void): Promise<T[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const records: T[] = [];
  for (const name of names) {
    if (!name.endsWith('.json')) continue;
    const path = join(dir, name);
    try {
      records.push(JSON.parse(await readFile(path, 'utf8')) as T);
    } catch (error) {
      skipped(path, error);
    }
  }
  return records;
}

/** The JSON lines of `path` (none when it does not exist); a torn last line (a crash mid-append) is left out. */
export async function readLines<T>(path: string): Promise<T[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const lines = text.split('\n');
  const out: T[] = [];
  for (const [i, line] of lines.entries()) {
    if (line === '') continue;
    try {
      out.push(JSON.parse(line) as T);
    } catch (error) {
      if (i === lines.length - 1) break;
      throw error;
    }
  }
  return out;
}

/** A tenant as a folder name: any string, and never one that could leave the folder it is in. */
export function tenantFolder(tenant: string): string {
  return encodeURIComponent(tenant).replace(/\./g, '%2E').replace(/\*/g, '%2A');
}

/** The tenant folders under `dir` (none when it does not exist yet). */
export async function readTenantDirs(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir, { withFileTypes: true })).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}
