import type { SessionRecord } from '../contract/session.js';
import type { SessionGraph } from './graph.js';
import { SessionLeaseLostError, SessionLockedError } from './errors.js';
import { assertRecords } from './records.js';
import { recordLine } from './record-line.js';
import { assertValidSessionId } from './session-id.js';
import { loadSession } from './load-session.js';
import type { AppendReport, SessionLease, SessionStoreLike, StoredSession } from './types.js';

/**
 * Sessions in process memory, with the file store's semantics: readable by anyone (`read`,
 * `loadSession`), writable by one lease holder at a time, and a reader sees only what was appended.
 * Records are kept serialized, as a file would keep them, so no caller can change a stored turn
 * through an object it holds. For tests, short-lived services and `runAgent`; everything is lost with
 * the process.
 */
export class MemorySessionStore implements SessionStoreLike {
  private readonly lines = new Map<string, string[]>();
  // The epoch of each session's current lease: an append under any other is refused.
  private readonly leases = new Map<string, number>();
  private epochs = 0;

  /** Takes the session's lease (`SessionLockedError` while another holder has it). */
  async acquire(sessionId: string): Promise<SessionLease> {
    assertValidSessionId(sessionId);
    if (this.leases.has(sessionId)) throw new SessionLockedError(sessionId, process.pid, 'memory', 'it is held in this process');
    const epoch = ++this.epochs;
    this.leases.set(sessionId, epoch);
    return { sessionId, epoch };
  }

  async read(sessionId: string): Promise<StoredSession> {
    assertValidSessionId(sessionId);
    const lines = this.lines.get(sessionId) ?? [];
    const records = lines.map((line) => JSON.parse(line) as SessionRecord);
    const bytes = lines.reduce((sum, line) => sum + Buffer.byteLength(line) + 1, 0);
    const report = {
      lines: lines.length,
      bytes,
      records: records.length,
      skipped: [],
      orphans: [],
      truncatedTail: false,
      leafFallback: null,
    };
    return { records, report };
  }

  /** Keeps `records` (all or none) while `lease` holds the session; says how many records and bytes (as JSON lines) that was. */
  async append(lease: SessionLease, records: readonly SessionRecord[]): Promise<AppendReport> {
    // A lease this store gave names an id checked when it was taken.
    const epoch = this.leases.get(lease?.sessionId);
    if (epoch === undefined || epoch !== lease.epoch) {
      assertValidSessionId(lease?.sessionId);
      throw new SessionLeaseLostError(lease.sessionId, `lease ${lease.epoch} no longer holds it (released, or never taken here)`);
    }
    assertRecords(lease.sessionId, records);
    let lines = this.lines.get(lease.sessionId);
    if (lines === undefined) this.lines.set(lease.sessionId, (lines = []));
    // Every line is made before any is kept: all or none.
    const from = lines.length;
    let bytes = 0;
    try {
      for (const record of records) {
        const line = recordLine(record);
        bytes += Buffer.byteLength(line) + 1;
        lines.push(line);
      }
    } catch (error) {
      lines.length = from;
      throw error;
    }
    return { records: records.length, bytes };
  }

  async release(lease: SessionLease): Promise<void> {
    assertValidSessionId(lease?.sessionId);
    if (this.leases.get(lease.sessionId) === lease.epoch) this.leases.delete(lease.sessionId);
  }

  /** Reads a session without its lease; a missing session is an empty graph. */
  loadSession(sessionId: string): Promise<SessionGraph> {
    return loadSession(this, sessionId);
  }

  /** The ids of every session holding at least one record. */
  sessionIds(): string[] {
    return [...this.lines.keys()].filter((id) => this.lines.get(id)!.length > 0);
  }
}
