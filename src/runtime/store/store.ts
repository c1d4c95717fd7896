import { mkdir, readdir, type FileHandle } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { Migrator, SessionNode } from '../contract/session.js';
import type { PersistReport, SessionStoreLike } from './types.js';
import { IndusagiError } from '../../errors/index.js';
import type { SessionGraph } from './graph.js';
import { BrokenCondensationError, MissingHistoryError, SessionIoError, SessionLockLostError, SessionNotOpenError } from './errors.js';
import { assertValidSessionId, sessionIdProblem } from './session-id.js';
import { summarizeFile } from './list-session.js';
import { acquireLock, releaseLock, stillHeld, type HeldLock } from './lock.js';
import { appendDurably, endsWithNewline, syncDirectory } from './durable-append.js';
import { openForAppending, openForReading } from './safe-open.js';
import type { CheckpointWriter } from './checkpoint-writer.js';
import { io, SessionFileLoader, type LoadOptions, type LoadedSessionFile } from './load-session.js';
import { drainWrites, queueWrite } from './write-queue.js';

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

type OpenSession = {
  graph: SessionGraph;
  lock: HeldLock;
  path: string;
  /** Opened on the first persist, in append mode (readable too, to check the tail after a failed write). */
  file: FileHandle | null;
  /** Whether the file ends with a newline; undefined after a failed write, when it must be checked. */
  endsCleanly: boolean | undefined;
  writer: CheckpointWriter;
  /** False until the file's size was compared with the writer's, and again after a failed write. */
  sizeSeen: boolean;
  /** Directories whose entries (this file, a freshly made root) must be synced after the first write. */
  unsyncedDirs: string[];
  /** Persists of one session run one after another. */
  queue: Promise<void>;
};

/**
 * Sessions as append-only JSONL files, `<root>/<id>.jsonl`, one record per line. Readers take no lock;
 * a writer (`openSession`) holds `<root>/<id>.lock` until `closeSession`. A load reads from the end of
 * the file and holds only the live path until more is asked for. See docs/sessions.md.
 */
export class SessionStore implements SessionStoreLike {
  readonly root: string;
  private readonly migrators: readonly Migrator[];
  private readonly loader: SessionFileLoader;
  private readonly sessions = new Map<string, OpenSession>();

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

  async loadSession(id: string, options: LoadOptions = {}): Promise<SessionGraph> {
    return (await this.loadSessionWithReport(id, options)).graph;
  }

  /** Reads a session without the writer lock; a missing file is an empty graph with an empty report. */
  async loadSessionWithReport(id: string, options: LoadOptions = {}): Promise<LoadedSessionFile> {
    const { graph, report } = await this.loader.load(id, this.pathOf(id), options.whole === true, false);
    return { graph, report };
  }

  async openSession(id: string, options: LoadOptions = {}): Promise<SessionGraph> {
    return (await this.openSessionWithReport(id, options)).graph;
  }

  /**
   * Takes the writer lock (throws `SessionLockedError` naming the holder's pid if a live process holds
   * it; a lock left by a dead process is removed), then loads the session. Only the graph returned here
   * can be persisted, until `closeSession`. Any failure after the lock was taken releases it.
   */
  async openSessionWithReport(id: string, options: LoadOptions = {}): Promise<LoadedSessionFile> {
    const path = this.pathOf(id);
    const firstMade = await io(id, 'creating the store directory', () => mkdir(this.root, { recursive: true }));
    const lock = await io(id, 'taking the writer lock', () => acquireLock(id, join(this.root, `${id}.lock`)));
    try {
      const loaded = await this.loader.load(id, path, options.whole === true, true);
      const unsyncedDirs = loaded.exists ? [] : [this.root];
      if (firstMade !== undefined) {
        for (let dir = this.root; dir !== dirname(firstMade); dir = dirname(dir)) unsyncedDirs.push(dirname(dir));
      }
      this.sessions.set(id, {
        graph: loaded.graph,
        lock,
        path,
        file: null,
        endsCleanly: loaded.endsCleanly,
        writer: loaded.writer!,
        sizeSeen: false,
        unsyncedDirs,
        queue: Promise.resolve(),
      });
      return { graph: loaded.graph, report: loaded.report };
    } catch (error) {
      await releaseLock(lock);
      throw error;
    }
  }

  /**
   * Appends everything `graph` gained since it was opened or last persisted — new nodes, then one head
   * record, and now and then a checkpoint — as one write and one fsync; resolves once the bytes are on
   * stable storage, with how many records (checkpoints included) and bytes it appended. Concurrent calls
   * for one session are serialised. On failure the records go back
   * into the graph and the next call writes them again (re-written nodes are harmless: ids are content
   * hashes).
   */
  persist(graph: SessionGraph): Promise<PersistReport> {
    const session = this.sessions.get(graph.sessionId);
    if (session === undefined) {
      return Promise.reject(
        new SessionNotOpenError(graph.sessionId, 'open it with openSession first (loadSession reads without the writer lock)'),
      );
    }
    if (session.graph !== graph) {
      return Promise.reject(
        new SessionNotOpenError(
          graph.sessionId,
          'this graph is not the one openSession returned, and persisting it could fork the history',
        ),
      );
    }
    return queueWrite(session, () => this.write(session));
  }

  /**
   * Persists anything still unsaved, then releases the writer lock. If that last persist fails the
   * session stays open (and locked) so nothing is lost; closing a session that is not open does nothing.
   */
  async closeSession(id: string): Promise<void> {
    assertValidSessionId(id);
    const session = this.sessions.get(id);
    if (session === undefined) return;
    await drainWrites(session, () => this.persist(session.graph));
    this.sessions.delete(id);
    await io(id, 'releasing the writer lock', async () => {
      try {
        await session.file?.close();
      } finally {
        await releaseLock(session.lock);
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

  private async write(session: OpenSession): Promise<PersistReport> {
    const { graph, writer } = session;
    if (!graph.hasUnsaved) return { records: 0, bytes: 0 };
    const id = graph.sessionId;
    if (!(await io(id, 'checking the writer lock', async () => stillHeld(session.lock)))) {
      throw new SessionLockLostError(id, session.lock.path);
    }
    let records: ReturnType<SessionGraph['takeUnsaved']> | null = null;
    try {
      if (session.file === null) {
        // Opened readable too: after a failed write, `endsWithNewline` reads the tail back through this handle.
        session.file = await openForAppending(id, session.path);
      }
      if (!session.sizeSeen) {
        // Changed since the load, or since the last write that succeeded: the writer knows nothing of the new bytes.
        const { size } = await session.file.stat();
        if (size !== writer.state.size) session.endsCleanly = undefined;
        writer.checkSize(size);
        session.sizeSeen = true;
      }
      session.endsCleanly ??= await endsWithNewline(session.file);
      // From here to the write nothing waits, so the records, the leaf and its context belong together.
      records = graph.takeUnsaved();
      // A line torn by an earlier crash is closed off, so the first new record starts on a line of its own.
      const batch = writer.compose(
        records,
        !session.endsCleanly,
        () => liveChain(graph),
        (callId) => graph.startsOf(callId),
      );
      session.endsCleanly = undefined;
      await appendDurably(session.file, batch.bytes);
      session.endsCleanly = true;
      while (session.unsyncedDirs.length > 0) {
        await syncDirectory(session.unsyncedDirs[0]);
        session.unsyncedDirs.shift();
      }
      // Only now: records written again after a failure would be in the file twice, which a writer
      // that went on checkpointing would miscount (see `checkSize`).
      batch.commit();
      return { records: batch.records, bytes: batch.bytes.length };
    } catch (error) {
      if (records !== null) graph.restoreUnsaved(records);
      session.sizeSeen = false;
      if (IndusagiError.isInstance(error)) throw error;
      throw new SessionIoError(id, 'persisting', error);
    }
  }
}

/** The nodes of the context at the graph's leaf, or null when it cannot be built (no checkpoint can name it then). */
function liveChain(graph: SessionGraph): SessionNode[] | null {
  if (graph.leaf === null) return null;
  try {
    return graph.contextNodes(graph.leaf);
  } catch (error) {
    if (BrokenCondensationError.isInstance(error) || MissingHistoryError.isInstance(error)) return null;
    throw error;
  }
}
