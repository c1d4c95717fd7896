import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { lstatSync } from 'node:fs';
import { link, open, rename, rm, unlink, type FileHandle } from 'node:fs/promises';
import { SessionLockedError } from './errors.js';
import { openForReading } from './safe-open.js';

/** A writer lock this process holds. The lock file stays open so its inode cannot be reused while held. */
export type HeldLock = { sessionId: string; path: string; token: string; handle: FileHandle; dev: bigint; ino: bigint };

/** What a lock file holds (one JSON line): who took it, and a token unique to that acquisition. */
type LockContent = { pid: number; host: string; token: string; acquiredAt: string };

// Each round either takes the lock, throws, or removed a stale lock; more rounds than this means
// other openers keep winning the freed lock, which is contention, reported as such.
const MAX_ROUNDS = 5;

// Tokens of the locks this process holds or is linking into place. A lock naming this process's pid with
// any other token was left by an earlier process that had the same pid (a restarted container): stale.
const ownTokens = new Set<string>();

/**
 * Takes `<root>/<id>.lock`. The content is written to a private temp file first (created with O_EXCL)
 * and then hard-linked into place: `link` fails if the lock exists, exactly like O_EXCL, but the lock
 * can never be seen empty or half-written, so a crash mid-acquire cannot leave an unreadable lock.
 */
export async function acquireLock(sessionId: string, lockPath: string): Promise<HeldLock> {
  const token = randomBytes(16).toString('hex');
  const temp = `${lockPath}.${token}.tmp`;
  const content: LockContent = { pid: process.pid, host: hostname(), token, acquiredAt: new Date().toISOString() };
  const handle = await open(temp, 'wx');
  let held = false;
  ownTokens.add(token);
  try {
    await handle.writeFile(`${JSON.stringify(content)}\n`);
    await handle.sync();
    for (let round = 0; round < MAX_ROUNDS && !held; round++) {
      held = await tryLink(temp, lockPath);
      if (!held) await judgeHolder(sessionId, lockPath);
    }
    if (!held) throw new SessionLockedError(sessionId, null, lockPath, 'other openers kept taking the lock first');
    await unlink(temp);
    const { dev, ino } = await handle.stat({ bigint: true });
    return { sessionId, path: lockPath, token, handle, dev, ino };
  } catch (error) {
    ownTokens.delete(token);
    await handle.close();
    if (held) await unlink(lockPath);
    await rm(temp, { force: true });
    throw error;
  }
}

/**
 * True while the lock file at its path is still the very file this holder created (a link put in its
 * place is not). Synchronous on purpose: it is one metadata lookup of a few microseconds, checked right
 * before every durable write, where a thread-pool round trip would cost more than the lookup itself.
 */
export function stillHeld(lock: HeldLock): boolean {
  try {
    const current = lstatSync(lock.path, { bigint: true });
    return current.dev === lock.dev && current.ino === lock.ino;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

/** Removes the lock file if it is still this holder's, then closes it. */
export async function releaseLock(lock: HeldLock): Promise<void> {
  try {
    if (stillHeld(lock)) await unlink(lock.path);
  } finally {
    ownTokens.delete(lock.token);
    await lock.handle.close();
  }
}

async function tryLink(temp: string, lockPath: string): Promise<boolean> {
  try {
    await link(temp, lockPath);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

/** Throws `SessionLockedError` when the current holder is alive (or cannot be judged); removes a stale lock. */
async function judgeHolder(sessionId: string, lockPath: string): Promise<void> {
  const holder = await readHolder(sessionId, lockPath);
  if (holder === 'gone') return;
  if (holder === 'unreadable') {
    throw new SessionLockedError(sessionId, null, lockPath, 'the lock file is not an indusagi lock; remove it if no writer is running');
  }
  if (holder.host !== hostname()) {
    throw new SessionLockedError(
      sessionId,
      holder.pid,
      lockPath,
      `held by pid ${holder.pid} on host ${holder.host}, whose liveness cannot be checked from here`,
    );
  }
  if (holder.pid === process.pid && ownTokens.has(holder.token)) {
    throw new SessionLockedError(
      sessionId,
      holder.pid,
      lockPath,
      `held by this process (pid ${holder.pid}); release its lease before acquiring it again`,
    );
  }
  if (holder.pid !== process.pid && isAlive(holder.pid)) {
    throw new SessionLockedError(sessionId, holder.pid, lockPath, `held by live process pid ${holder.pid}`);
  }
  await removeStale(sessionId, lockPath, holder.token);
}

/** What the lock file holds; a link or anything but a regular file throws `SessionPathUnsafeError`, unread. */
async function readHolder(sessionId: string, lockPath: string): Promise<LockContent | 'gone' | 'unreadable'> {
  const text = await readLockText(sessionId, lockPath);
  if (text === null) return 'gone';
  return parseLock(text) ?? 'unreadable';
}

async function readLockText(sessionId: string, path: string): Promise<string | null> {
  const handle = await openForReading(sessionId, path, 'lock file');
  if (handle === null) return null;
  try {
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}

function parseLock(text: string): LockContent | null {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return null; // Reported by the caller as an unreadable lock, with the path to inspect.
  }
  const lock = raw as Partial<LockContent> | null;
  if (typeof lock !== 'object' || lock === null) return null;
  if (!Number.isSafeInteger(lock.pid) || (lock.pid as number) <= 0) return null;
  if (typeof lock.token !== 'string' || typeof lock.host !== 'string') return null;
  return lock as LockContent;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes the stale lock identified by `staleToken`. It is first renamed aside (atomic), so that two
 * openers recovering the same stale lock cannot both delete it; if what was moved turns out to be a
 * fresh lock another opener took meanwhile, it is linked back.
 */
async function removeStale(sessionId: string, lockPath: string, staleToken: string): Promise<void> {
  const aside = `${lockPath}.${randomBytes(16).toString('hex')}.stale`;
  try {
    await rename(lockPath, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return; // Someone else removed it first.
    throw error;
  }
  try {
    const text = await readLockText(sessionId, aside);
    const moved = text === null ? null : parseLock(text);
    if (moved?.token === staleToken) return;
    // If a third opener got in before the link-back, it fails with EEXIST: the displaced holder then
    // finds its lock replaced before its next write (SessionLockLostError) and writes nothing.
    await tryLink(aside, lockPath);
  } finally {
    await unlink(aside);
  }
}
