import { mkdir, readdir, stat, type FileHandle } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { LoadReport, Migrator } from '../contract/session.js';
import type { LoadedSession, PersistReport, SessionStoreLike } from './types.js';
import { IndusagiError } from '../../errors/index.js';
import { SessionGraph, type RestoredGraph } from './graph.js';
import { SessionIoError, SessionLockLostError, SessionNotOpenError } from './errors.js';
import { assertValidSessionId, sessionIdProblem } from './session-id.js';
import { readSessionFile } from './read-session.js';
import { readRecordedLeaf } from './recorded-leaf.js';
import { acquireLock, releaseLock, stillHeld, type HeldLock } from './lock.js';
import { appendDurably, endsWithNewline, syncDirectory } from './durable-append.js';
import { openForAppending } from './safe-open.js';

export type SessionStoreOptions = {
  /** Re-hash every node at load and skip (and report) those whose id does not match. Default false: ids are trusted. */
  verify?: boolean;
};

/** One entry of `listSessions`. `leaf` is the leaf the file records at its end. */
export type SessionSummary = { id: string; size: number; modifiedAt: Date; leaf: string | null };

type ReadResult = LoadedSession & { exists: boolean; endsCleanly: boolean };

type OpenSession = {
  graph: SessionGraph;
  lock: HeldLock;
  path: string;
  /** Opened on the first persist, in append mode (readable too, to check the tail after a failed write). */
  file: FileHandle | null;
  /** Whether the file ends with a newline; undefined after a failed write, when it must be checked. */
  endsCleanly: boolean | undefined;
  /** Directories whose entries (this file, a freshly made root) must be synced after the first write. */
  unsyncedDirs: string[];
  /** Persists of one session run one after another. */
  queue: Promise<void>;
};

/**
 * Sessions as append-only JSONL files, `<root>/<id>.jsonl`, one record per line. Readers take no lock;
 * a writer (`openSession`) holds `<root>/<id>.lock` until `closeSession`. See docs/sessions.md.
 */
export class SessionStore implements SessionStoreLike {
  readonly root: string;
  private readonly migrators: readonly Migrator[];
  private readonly verify: boolean;
  private readonly sessions = new Map<string, OpenSession>();

  constructor(root: string, migrators: Migrator[] = [], options: SessionStoreOptions = {}) {
    this.root = resolve(root);
    this.migrators = [...migrators];
    this.verify = options.verify ?? false;
  }

  /** The file a session lives in. Throws `InvalidSessionIdError` for an id that could escape the root. */
  pathOf(id: string): string {
    assertValidSessionId(id);
    return join(this.root, `${id}.jsonl`);
  }

  async loadSession(id: string): Promise<SessionGraph> {
    return (await this.loadSessionWithReport(id)).graph;
  }

  /** Reads a session without the writer lock; a missing file is an empty graph with an empty report. */
  async loadSessionWithReport(id: string): Promise<LoadedSession> {
    const { graph, report } = await this.read(id, this.pathOf(id));
    return { graph, report };
  }

  async openSession(id: string): Promise<SessionGraph> {
    return (await this.openSessionWithReport(id)).graph;
  }

  /**
   * Takes the writer lock (throws `SessionLockedError` naming the holder's pid if a live process holds
   * it; a lock left by a dead process is removed), then loads the session. Only the graph returned here
   * can be persisted, until `closeSession`.
   */
  async openSessionWithReport(id: string): Promise<LoadedSession> {
    const path = this.pathOf(id);
    const firstMade = await this.io(id, 'creating the store directory', () => mkdir(this.root, { recursive: true }));
    const lock = await this.io(id, 'taking the writer lock', () => acquireLock(id, join(this.root, `${id}.lock`)));
    let loaded: ReadResult;
    try {
      loaded = await this.read(id, path);
    } catch (error) {
      await releaseLock(lock);
      throw error;
    }
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
      unsyncedDirs,
      queue: Promise.resolve(),
    });
    return { graph: loaded.graph, report: loaded.report };
  }

  /**
   * Appends everything `graph` gained since it was opened or last persisted — new nodes, then one head
   * record — as one write and one fsync; resolves once the bytes are on stable storage, with how many
   * records and bytes it appended. Concurrent calls for one session are serialised. On failure the
   * records go back into the graph and the next call writes them again (re-written nodes are harmless:
   * ids are content hashes).
   */
  persist(graph: SessionGraph): Promise<PersistReport> {
    const session = this.sessions.get(graph.sessionId);
    if (session === undefined) {
      return Promise.reject(new SessionNotOpenError(graph.sessionId, 'open it with openSession first (loadSession reads without the writer lock)'));
    }
    if (session.graph !== graph) {
      return Promise.reject(
        new SessionNotOpenError(graph.sessionId, 'this graph is not the one openSession returned, and persisting it could fork the history'),
      );
    }
    const run = session.queue.then(() => this.write(session));
    // The caller gets this write's failure through `run`; the queue only has to go on to the next write.
    session.queue = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  /**
   * Persists anything still unsaved, then releases the writer lock. If that last persist fails the
   * session stays open (and locked) so nothing is lost; closing a session that is not open does nothing.
   */
  async closeSession(id: string): Promise<void> {
    assertValidSessionId(id);
    const session = this.sessions.get(id);
    if (session === undefined) return;
    // Drain: persists queued meanwhile run first. The session is dropped right after the queue is seen
    // idle with nothing unsaved (no await in between), so a later persist is refused, never half-run.
    for (;;) {
      const queue = session.queue;
      await queue;
      if (session.graph.hasUnsaved) await this.persist(session.graph);
      else if (session.queue === queue) break;
    }
    this.sessions.delete(id);
    await this.io(id, 'releasing the writer lock', async () => {
      try {
        await session.file?.close();
      } finally {
        await releaseLock(session.lock);
      }
    });
  }

  /** Every session in the root, most recently modified first. A missing root lists nothing. */
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
      const path = join(this.root, name);
      const summary = await this.io(id, 'reading its summary', async () => {
        const info = await stat(path);
        return { id, size: info.size, modifiedAt: info.mtime, leaf: await readRecordedLeaf(id, path, info.size, this.migrators) };
      });
      summaries.push(summary);
    }
    return summaries.sort((a, b) => b.modifiedAt.getTime() - a.modifiedAt.getTime() || (a.id < b.id ? -1 : 1));
  }

  private async read(id: string, path: string): Promise<ReadResult> {
    const decoded = await this.io(id, 'reading the session file', () =>
      readSessionFile(id, path, { migrators: this.migrators, verify: this.verify }),
    );
    const { graph, orphans, leafFallback, rejected } = SessionGraph.restore(id, decoded.records);
    // A rejected summary decoded but is damaged all the same: it is reported as a skipped line.
    const skipped = [...decoded.skipped, ...rejected.map((summary) => ({ line: decoded.lineOf[summary.index], reason: summary.reason }))];
    skipped.sort((a, b) => a.line - b.line);
    const report: LoadReport = {
      lines: decoded.lines,
      bytes: decoded.bytes,
      records: decoded.records.length - rejected.length,
      skipped,
      orphans: orphans.map((orphan) => ({ id: orphan.id, parent: orphan.parent, line: decoded.lineOf[orphan.index] })),
      truncatedTail: decoded.truncatedTail,
      leafFallback,
    };
    return { graph, report, exists: decoded.exists, endsCleanly: decoded.endsCleanly };
  }

  private async write(session: OpenSession): Promise<PersistReport> {
    const { graph } = session;
    if (!graph.hasUnsaved) return { records: 0, bytes: 0 };
    const id = graph.sessionId;
    if (!(await this.io(id, 'checking the writer lock', async () => stillHeld(session.lock)))) {
      throw new SessionLockLostError(id, session.lock.path);
    }
    const records = graph.takeUnsaved();
    try {
      // Opened readable too: after a failed write, `endsWithNewline` reads the tail back through this handle.
      session.file ??= await openForAppending(id, session.path);
      session.endsCleanly ??= await endsWithNewline(session.file);
      // A line torn by an earlier crash is closed off, so the first new record starts on a line of its own.
      let text = session.endsCleanly ? '' : '\n';
      for (const record of records) text += `${JSON.stringify(record)}\n`;
      session.endsCleanly = undefined;
      const bytes = Buffer.from(text);
      await appendDurably(session.file, bytes);
      session.endsCleanly = true;
      while (session.unsyncedDirs.length > 0) {
        await syncDirectory(session.unsyncedDirs[0]);
        session.unsyncedDirs.shift();
      }
      return { records: records.length, bytes: bytes.length };
    } catch (error) {
      graph.restoreUnsaved(records);
      if (IndusagiError.isInstance(error)) throw error;
      throw new SessionIoError(id, 'persisting', error);
    }
  }

  /** Runs file-system work, turning system errors into `SessionIoError` (typed errors pass through). */
  private async io<T>(id: string, operation: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (IndusagiError.isInstance(error)) throw error;
      throw new SessionIoError(id, operation, error);
    }
  }
}
