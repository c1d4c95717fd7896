import { closeSync, constants, fstatSync, openSync, type Stats } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { SessionPathUnsafeError } from './errors.js';

// O_NOFOLLOW: a link in the final component fails the open (ELOOP; EMLINK on some BSDs) instead of
// being followed out of the root. O_NONBLOCK: a FIFO opens at once (and is then refused) instead of
// blocking a thread-pool thread until someone writes to it. Both are no-ops for regular files, and
// absent (0) on Windows.
const NO_FOLLOW = (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);
const READ = constants.O_RDONLY | NO_FOLLOW;
// O_DSYNC: each write returns once its bytes (and the size that reaches them) are on stable storage, as
// a write followed by fdatasync would, in one system call: one trip to the thread pool per durable
// append instead of two. Absent on Windows, where the store writes and then syncs.
const DATA_SYNC = constants.O_DSYNC ?? 0;
// Readable too: after a failed write the store reads the tail back through this handle.
const APPEND = constants.O_RDWR | constants.O_APPEND | constants.O_CREAT | DATA_SYNC | NO_FOLLOW;

/** True when `openForAppending` gives a handle whose writes are durable when they return (O_DSYNC). */
export const APPENDS_SYNC = DATA_SYNC !== 0;

export type SafeFileRole = 'session file' | 'lock file';

/**
 * Opens a session or lock file for reading without following a link and checks that it is a regular
 * file. Null when there is no such file.
 */
export async function openForReading(sessionId: string, path: string, role: SafeFileRole): Promise<FileHandle | null> {
  let handle: FileHandle;
  try {
    handle = await open(path, READ);
  } catch (error) {
    if (code(error) === 'ENOENT') return null;
    throw unsafeOr(error, sessionId, path, role);
  }
  await checkRegular(handle, sessionId, path, role);
  return handle;
}

/** `openForReading`, synchronously: for graph methods that load the whole session on demand. */
export function openForReadingSync(sessionId: string, path: string): number | null {
  let fd: number;
  try {
    fd = openSync(path, READ);
  } catch (error) {
    if (code(error) === 'ENOENT') return null;
    throw unsafeOr(error, sessionId, path, 'session file');
  }
  try {
    const problem = irregularity(fstatSync(fd));
    if (problem !== null) throw new SessionPathUnsafeError(sessionId, path, `the session file ${path} ${problem}`);
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  return fd;
}

/**
 * Opens (creating it if needed) a session file for appending, never through a link; each write through
 * it is durable when it returns where the platform can (`APPENDS_SYNC`).
 */
export async function openForAppending(sessionId: string, path: string): Promise<FileHandle> {
  let handle: FileHandle;
  try {
    handle = await open(path, APPEND, 0o644);
  } catch (error) {
    throw unsafeOr(error, sessionId, path, 'session file');
  }
  await checkRegular(handle, sessionId, path, 'session file');
  return handle;
}

async function checkRegular(handle: FileHandle, sessionId: string, path: string, role: SafeFileRole): Promise<void> {
  let problem: string | null;
  try {
    problem = irregularity(await handle.stat());
  } catch (error) {
    await handle.close();
    throw error;
  }
  if (problem !== null) {
    await handle.close();
    throw new SessionPathUnsafeError(sessionId, path, `the ${role} ${path} ${problem}`);
  }
}

function irregularity(info: Stats): string | null {
  if (info.isFile()) return null;
  const what = info.isDirectory()
    ? 'a directory'
    : info.isFIFO()
      ? 'a FIFO'
      : info.isSocket()
        ? 'a socket'
        : 'a device or other special file';
  return `is not a regular file but ${what}`;
}

/** The typed error for an open refused because the path is a link; any other error as it is. */
function unsafeOr(error: unknown, sessionId: string, path: string, role: SafeFileRole): unknown {
  const failure = code(error);
  if (failure === 'ELOOP' || failure === 'EMLINK')
    return new SessionPathUnsafeError(sessionId, path, `the ${role} ${path} is a symbolic link`);
  return error;
}

function code(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | null)?.code;
}
