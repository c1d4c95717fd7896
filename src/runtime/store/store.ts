import { lstat, mkdir, readdir, type FileHandle } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { Migrator, SessionNode, SessionRecord } from '../contract/session.js';
import type { AppendReport, LivePathSession, SessionLease, SessionStoreLike, StoredSession } from './types.js';
import { IndusagiError } from '../../errors/index.js';
import type { SessionGraph } from './graph.js';
import {
  BrokenCompactionError,
  MissingHistoryError,
  SessionIoError,
  SessionLeaseLostError,
  SessionLockLostError,
  UnknownNodeError,
} from './errors.js';
import { assertValidSessionId, sessionIdProblem } from './session-id.js';
import { summarizeFile } from './list-session.js';
import type { HeldLock } from './lock.js';
import type * as Locks from './lock.js';
import type * as Appends from './durable-append.js';
import { APPENDS_SYNC, openForAppending, openForReading } from './safe-open.js';
import { io, offsetsOf, SessionFileLoader, type FileLoadReport, type Known, type LoadedSessionFile } from './file-loader.js';
import { loadSession, loadSessionWithReport, type LoadOptions } from './load-session.js';
import { assertRecords } from './records.js';
import { queueWrite } from './write-queue.js';
import type { DecodedFile } from './read-session.js';

export type SessionStoreOptions = {
  /** Re-hash every node at load and skip (and report) those whose id does not match. Default false: ids are trusted. */
  verify?: boolean;
  /**
   * A writer appends a checkpoint record (see docs/sessions.md) once at least this many bytes were
   * appended since the last one. Default 64 KiB: a resume then parses at most about that much beyond
   * the live context.
   */
  checkpointBytes?: number;
};

/**
 * One entry of `listSessions`, read from the two ends of the file only. `leaf` is the leaf the file
 * records at its end; `title` the first prompt's text on one line (cut to 200 characters; null when
 * the first line holds no text); `turns` the turns the session stores, every branch (null for a large
 * file without checkpoints, written before they existed).
 */
export type SessionSummary = {
  id: string;
  size: number;
  modifiedAt: Date;
  leaf: string | null;
  title: string | null;
  turns: number | null;
};

const DEFAULT_CHECKPOINT_BYTES = 64 * 1024;

/** The writing half: lock files and durable appends. */
type WritePath = typeof Locks & typeof Appends;
let writePath: WritePath | undefined;

/**
 * Loads the writing half on the first `acquire` (everything that writes holds a lease, so it is loaded
 * by then): a process that only resumes, as a cold `--session` start does before its first step, does
 * not load it. Fewer modules before the first resume is start-up time saved (issue 40.3).
 */
async function loadWritePath(): Promise<WritePath> {
  if (writePath === undefined) {
    const [locks, appends] = await Promise.all([import('./lock.js'), import('./durable-append.js')]);
    writePath = { ...locks, ...appends };
  }
  return writePath;
}

/** A session this store holds the writer lock of. */
type Held = {
  lease: SessionLease;
  lock: HeldLock;
  path: string;
  /** Opened on the first append, in append mode (readable too, to check the tail after a failed write). */
  file: FileHandle | null;
  /** Whether the file ends with a newline; undefined when unknown (after a failed write), when it must be checked. */
  endsCleanly: boolean | undefined;
  /** What the writer knows of the file: from the holder's first read (no second read needed), else from the first append's. */
  known: Known | null;
  /**
   * The holder's first read, not turned into `known` yet: that builds the writer's own graph of the live
   * path, so the first append pays for it, and a resume that writes nothing never does.
   */
  knowing: (() => Known) | null;
  /** False until the file's size was compared with the writer's, and again after a failed write. */
  sizeSeen: boolean;
  /** Directories whose entries (this file, a freshly made root) must be synced after the first write. */
  unsyncedDirs: string[];
  /** Appends under the lease run one after another. */
  queue: Promise<void>;
};

/**
 * Sessions as append-only JSONL files, `<root>/<id>.jsonl`, one record per line. Readers take no lock;
 * the writer lease is the lock file `<root>/<id>.lock`, held from `acquire` to `release`. A read of the
 * live path starts from the end of the file and reads only what the context at the leaf needs. See
 * docs/sessions.md.
 */
export class SessionStore implements SessionStoreLike {
  readonly root: string;
  private readonly migrators: readonly Migrator[];
  private readonly loader: SessionFileLoader;
  private readonly held = new Map<string, Held>();
  private epochs = 0;

  constructor(root: string, migrators: Migrator[] = [], options: SessionStoreOptions = {}) {
    this.root = resolve(root);
    this.migrators = [...migrators];
    this.loader = new SessionFileLoader(
      { migrators: this.migrators, verify: options.verify ?? false },
      options.checkpointBytes ?? DEFAULT_CHECKPOINT_BYTES,
    );
  }

  /** The file a session lives in. Throws `InvalidSessionIdError` for an id that could escape the root. */
  pathOf(id: string): string {
    assertValidSessionId(id);
    return join(this.root, `${id}.jsonl`);
  }

  /** Reads a session without the writer lock (from the end of the file unless `whole`); a missing file is an empty graph. */
  loadSession(id: string, options: LoadOptions = {}): Promise<SessionGraph> {
    return loadSession(this, id, options);
  }

  /** `loadSession`, with what the load found. */
  loadSessionWithReport(id: string, options: LoadOptions = {}): Promise<LoadedSessionFile> {
    // This store's reads give a FileLoadReport, and the shared loader keeps every field of a read's report.
    return loadSessionWithReport(this, id, options) as Promise<LoadedSessionFile>;
  }

  /**
   * Takes the writer lock (throws `SessionLockedError` naming the holder's pid if a live process holds
   * it; a lock left by a dead process is removed). Reads nothing: the holder's first read (or first
   * append) tells the writer what the file holds.
   */
  async acquire(id: string): Promise<SessionLease> {
    const path = this.pathOf(id);
    const { acquireLock, releaseLock } = await loadWritePath();
    const firstMade = await io(id, 'creating the store directory', () => mkdir(this.root, { recursive: true }));
    const lock = await io(id, 'taking the writer lock', () => acquireLock(id, join(this.root, `${id}.lock`)));
    let exists: boolean;
    try {
      exists = await io(id, 'looking for the session file', () =>
        lstat(path).then(
          () => true,
          (error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? false : Promise.reject(error)),
        ),
      );
    } catch (error) {
      await releaseLock(lock);
      throw error;
    }
    const unsyncedDirs = exists ? [] : [this.root];
    if (firstMade !== undefined) {
      for (let dir = this.root; dir !== dirname(firstMade); dir = dirname(dir)) unsyncedDirs.push(dirname(dir));
    }
    const lease: SessionLease = { sessionId: id, epoch: ++this.epochs };
    this.held.set(id, {
      lease,
      lock,
      path,
      file: null,
      endsCleanly: undefined,
      known: null,
      knowing: null,
      sizeSeen: false,
      unsyncedDirs,
      queue: Promise.resolve(),
    });
    return lease;
  }

  /** Every record of the file, without the lock; a missing file has none. */
  async read(id: string): Promise<StoredSession & { report: FileLoadReport }> {
    return this.load(id, true);
  }

  /**
   * The live path, read from the end of the file when its last checkpoint checks out; otherwise the
   * whole file, as `read` gives it (the report's `fullScanReason` says why).
   */
  async readLivePath(id: string): Promise<(LivePathSession | StoredSession) & { report: FileLoadReport }> {
    return this.load(id, false);
  }

  /**
   * Appends `records` — and now and then a checkpoint — as one durable write (on a file opened with
   * O_DSYNC; where there is none, a write and an fsync); resolves once the bytes are on stable storage,
   * with how many records (checkpoints included) and bytes it appended.
   * Refused with `SessionLeaseLostError` after `release`, and with `SessionLockLostError` once the lock
   * file was removed or replaced behind the holder's back; nothing is written then. Appends under one
   * lease run one after another.
   */
  async append(lease: SessionLease, records: readonly SessionRecord[]): Promise<AppendReport> {
    assertValidSessionId(lease?.sessionId);
    const held = this.held.get(lease.sessionId);
    if (held === undefined || held.lease.epoch !== lease.epoch) {
      throw new SessionLeaseLostError(lease.sessionId, `lease ${lease.epoch} no longer holds it (released, or never taken here)`);
    }
    assertRecords(lease.sessionId, records);
    if (records.length === 0) return { records: 0, bytes: 0 };
    return queueWrite(held, () => this.write(held, records));
  }

  /** Releases the writer lock once the appends under way are done. Releasing a lease that is not held does nothing. */
  async release(lease: SessionLease): Promise<void> {
    assertValidSessionId(lease?.sessionId);
    const held = this.held.get(lease.sessionId);
    if (held === undefined || held.lease.epoch !== lease.epoch) return;
    for (let queue = held.queue; ; queue = held.queue) {
      await queue;
      // No append queued meanwhile, and no await between this check and the delete: a later append is refused.
      if (held.queue === queue) break;
    }
    if (this.held.get(lease.sessionId) !== held) return;
    this.held.delete(lease.sessionId);
    await io(lease.sessionId, 'releasing the writer lock', async () => {
      try {
        await held.file?.close();
      } finally {
        await writePath!.releaseLock(held.lock); // loaded by the acquire that made `held`
      }
    });
  }

  /**
   * Every session in the root, most recently modified first, each read from the two ends of its file
   * (never parsed whole). Links and anything but regular files are not sessions. A missing root lists
   * nothing.
   */
  async listSessions(): Promise<SessionSummary[]> {
    let names: string[];
    try {
      const entries = await readdir(this.root, { withFileTypes: true });
      names = entries.filter((entry) => entry.isFile() && entry.name.endsWith('.jsonl')).map((entry) => entry.name);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw new SessionIoError('*', 'listing sessions', error);
    }
    const summaries: SessionSummary[] = [];
    for (const name of names) {
      const id = name.slice(0, -'.jsonl'.length);
      if (sessionIdProblem(id) !== null) continue; // Not a name this store could have written or could load.
      const summary = await io(id, 'reading its summary', async () => {
        const file = await openForReading(id, join(this.root, name), 'session file');
        if (file === null) return null; // Removed since the directory was read.
        try {
          const info = await file.stat();
          return { id, size: info.size, modifiedAt: info.mtime, ...(await summarizeFile(file, info.size, this.migrators)) };
        } finally {
          await file.close();
        }
      });
      if (summary !== null) summaries.push(summary);
    }
    return summaries.sort((a, b) => b.modifiedAt.getTime() - a.modifiedAt.getTime() || (a.id < b.id ? -1 : 1));
  }

  /** A read; while this store holds the session, the first one tells its writer what the file holds. */
  private async load(id: string, whole: boolean): Promise<StoredSession & { report: FileLoadReport }> {
    const read = await this.loader.load(id, this.pathOf(id), whole, (decoded) => this.learn(id, decoded));
    const held = this.held.get(id);
    if (held !== undefined && held.known === null && held.knowing === null) held.knowing = read.known;
    return read.stored;
  }

  /** A whole read of a session this store holds: its writer learns where every node sits. */
  private learn(id: string, decoded: DecodedFile): void {
    const held = this.held.get(id);
    const known = held === undefined ? null : knownOf(held);
    if (known !== null) known.writer.learn(offsetsOf(decoded), decoded.verified);
  }

  private async write(held: Held, records: readonly SessionRecord[]): Promise<AppendReport> {
    const id = held.lease.sessionId;
    const { stillHeld, endsWithNewline, appendDurably, syncDirectory } = writePath!; // loaded by the acquire that made `held`
    // Checked in place (one metadata lookup, synchronous): no promise round trip before every durable write.
    let ours: boolean;
    try {
      ours = stillHeld(held.lock);
    } catch (error) {
      throw new SessionIoError(id, 'checking the writer lock', error);
    }
    if (!ours) throw new SessionLockLostError(id, held.lock.path);
    try {
      if (knownOf(held) === null) {
        const read = await this.loader.load(id, held.path, false, (decoded) => this.learn(id, decoded));
        // A read by the holder may have finished meanwhile: either one describes the file as it is.
        if (knownOf(held) === null) prime(held, read.known());
      }
      const { writer, index } = held.known!;
      if (held.file === null) {
        // Opened readable too: after a failed write, `endsWithNewline` reads the tail back through this handle.
        held.file = await openForAppending(id, held.path);
      }
      if (!held.sizeSeen) {
        // Changed since the read, or since the last write that succeeded: the writer knows nothing of the new bytes.
        const { size } = await held.file.stat();
        if (size !== writer.state.size) held.endsCleanly = undefined;
        writer.checkSize(size);
        held.sizeSeen = true;
      }
      held.endsCleanly ??= await endsWithNewline(held.file);
      // The index takes the nodes and leaf moves now (idempotent, if this write is retried), the starts once
      // they are durable (a start applied twice would count twice).
      const started: string[] = [];
      for (const record of records) {
        if (record.type === 'started') started.push(...record.callIds);
        else index.apply([record]);
      }
      // A line torn by an earlier crash is closed off, so the first new record starts on a line of its own.
      const batch = writer.compose(
        records,
        !held.endsCleanly,
        () => liveChain(index),
        (callId) => index.startsOf(callId) + started.filter((id) => id === callId).length,
      );
      held.endsCleanly = undefined;
      await appendDurably(held.file, batch.bytes, APPENDS_SYNC);
      held.endsCleanly = true;
      while (held.unsyncedDirs.length > 0) {
        await syncDirectory(held.unsyncedDirs[0]);
        held.unsyncedDirs.shift();
      }
      // Only now: records written again after a failure would be in the file twice, which a writer
      // that went on checkpointing would miscount (see `checkSize`).
      batch.commit();
      if (started.length > 0) index.apply([{ type: 'started', callIds: started }]);
      return { records: batch.records, bytes: batch.bytes.length };
    } catch (error) {
      held.sizeSeen = false;
      if (IndusagiError.isInstance(error)) throw error;
      throw new SessionIoError(id, 'persisting', error);
    }
  }
}

/** What the holder's first read (or its first append's) found becomes what its writer knows. */
function prime(held: Held, known: Known): void {
  held.known = known;
  held.knowing = null;
  held.endsCleanly = known.endsCleanly;
}

/** What the writer knows: the holder's first read, turned into it now if that was put off; null before any read. */
function knownOf(held: Held): Known | null {
  if (held.known === null && held.knowing !== null) prime(held, held.knowing());
  return held.known;
}

/** The nodes of the context at the index's leaf, or null when it cannot be built (no checkpoint can name it then). */
function liveChain(index: SessionGraph): SessionNode[] | null {
  if (index.leaf === null) return null;
  try {
    return index.contextNodes(index.leaf);
  } catch (error) {
    if (BrokenCompactionError.isInstance(error) || MissingHistoryError.isInstance(error) || UnknownNodeError.isInstance(error)) return null;
    throw error;
  }
}
