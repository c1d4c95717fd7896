import { assertRecords, assertValidSessionId } from 'indusagi/store';
import { SessionLeaseLostError, SessionLockedError } from 'indusagi/errors';
import type { SessionLease, SessionRecord, SessionStoreLike, StoredSession } from 'indusagi/store';

/** Sessions in a Map: each one an array of records, appended by one lease holder at a time. */
export class MapSessionStore implements SessionStoreLike {
  private readonly sessions = new Map<string, SessionRecord[]>();
  private readonly leases = new Map<string, number>(); // the epoch of each session's current lease
  private epochs = 0;

  async acquire(sessionId: string): Promise<SessionLease> {
    assertValidSessionId(sessionId);
    if (this.leases.has(sessionId)) throw new SessionLockedError(sessionId, null, 'map', 'another writer holds it');
    this.leases.set(sessionId, ++this.epochs);
    return { sessionId, epoch: this.epochs };
  }

  async read(sessionId: string): Promise<StoredSession> {
    assertValidSessionId(sessionId);
    const records = structuredClone(this.sessions.get(sessionId) ?? []);
    const n = records.length;
    return { records, report: { lines: n, records: n, skipped: [], orphans: [], truncatedTail: false, leafFallback: null } };
  }

  async append(lease: SessionLease, records: readonly SessionRecord[]): Promise<void> {
    assertValidSessionId(lease.sessionId);
    if (this.leases.get(lease.sessionId) !== lease.epoch) throw new SessionLeaseLostError(lease.sessionId, 'its lease is gone');
    assertRecords(lease.sessionId, records);
    this.sessions.set(lease.sessionId, [...(this.sessions.get(lease.sessionId) ?? []), ...structuredClone(records)]);
  }

  async release(lease: SessionLease): Promise<void> {
    assertValidSessionId(lease.sessionId);
    if (this.leases.get(lease.sessionId) === lease.epoch) this.leases.delete(lease.sessionId);
  }
}
