import type { LoadReport, SessionRecord } from '../contract/session.js';
import { SessionGraph } from './graph.js';
import { SessionLockedError, SessionNotOpenError } from './errors.js';
import { assertValidSessionId } from './session-id.js';
import type { LoadedSession, PersistReport, SessionStoreLike } from './types.js';

/**
 * Sessions in process memory, with the file store's semantics: a graph is readable by anyone
 * (`loadSession`), writable by one holder at a time (`openSession` ... `closeSession`), and a reader sees
 * only what was persisted. Records are kept serialized, as a file would keep them, so no caller can
 * change a stored turn through an object it holds. For tests, short-lived services and `runAgent`;
 * everything is lost with the process.
 */
export class MemorySessionStore implements SessionStoreLike {
  private readonly lines = new Map<string, string[]>();
  private readonly writers = new Map<string, SessionGraph>();

  async loadSession(id: string): Promise<SessionGraph> {
    return this.read(id).graph;
  }

  async openSession(id: string): Promise<SessionGraph> {
    return (await this.openSessionWithReport(id)).graph;
  }

  /** Takes the session for writing (`SessionLockedError` while another holder has it), then loads it. */
  async openSessionWithReport(id: string): Promise<LoadedSession> {
    assertValidSessionId(id);
    if (this.writers.has(id)) throw new SessionLockedError(id, process.pid, 'memory', 'it is open in this process');
    const loaded = this.read(id);
    this.writers.set(id, loaded.graph);
    return loaded;
  }

  /** Keeps what `graph` gained since it was opened or last persisted; says how many records and bytes (as JSON lines) that was. */
  async persist(graph: SessionGraph): Promise<PersistReport> {
    const id = graph.sessionId;
    const writer = this.writers.get(id);
    if (writer === undefined) throw new SessionNotOpenError(id, 'open it with openSession first (loadSession reads without taking it)');
    if (writer !== graph)
      throw new SessionNotOpenError(id, 'this graph is not the one openSession returned, and persisting it could fork the history');
    const lines = this.lines.get(id) ?? [];
    const written = { records: 0, bytes: 0 };
    for (const record of graph.takeUnsaved()) {
      const line = JSON.stringify(record);
      lines.push(line);
      written.records++;
      written.bytes += Buffer.byteLength(line) + 1;
    }
    this.lines.set(id, lines);
    return written;
  }

  /** Persists anything unsaved, then lets the session go. Closing a session that is not open does nothing. */
  async closeSession(id: string): Promise<void> {
    assertValidSessionId(id);
    const graph = this.writers.get(id);
    if (graph === undefined) return;
    await this.persist(graph);
    this.writers.delete(id);
  }

  /** The ids of every session holding at least one record. */
  sessionIds(): string[] {
    return [...this.lines.keys()];
  }

  private read(id: string): LoadedSession {
    assertValidSessionId(id);
    const lines = this.lines.get(id) ?? [];
    const records = lines.map((line) => JSON.parse(line) as SessionRecord);
    const { graph, orphans, leafFallback } = SessionGraph.restore(id, records);
    // Only this store writes these records, whole and in order: nothing can be skipped or orphaned.
    const report: LoadReport = {
      lines: lines.length,
      bytes: lines.reduce((sum, line) => sum + Buffer.byteLength(line) + 1, 0),
      records: records.length,
      skipped: [],
      orphans: orphans.map((orphan) => ({ id: orphan.id, parent: orphan.parent, line: orphan.index + 1 })),
      truncatedTail: false,
      leafFallback,
    };
    return { graph, report };
  }
}
