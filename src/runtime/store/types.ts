import type { LoadReport } from '../contract/session.js';
import type { SessionGraph } from './graph.js';

/** A session graph with what loading it found. */
export type LoadedSession = { graph: SessionGraph; report: LoadReport };

/** What one `persist` wrote: records appended (nodes, head markers...) and their size as stored. */
export type PersistReport = { records: number; bytes: number };

/**
 * What the conductor needs from a session store, structurally: `SessionStore` (files),
 * `MemorySessionStore` (process memory) and your own (a database, a remote service) implement it
 * without subclassing. Every implementation passes the same contract suite
 * (tests/runtime/store/session-store-contract.ts).
 */
export interface SessionStoreLike {
  /** Reads a session without taking its writer lock. A missing session is an empty graph. */
  loadSession(id: string): Promise<SessionGraph>;
  /** Takes the session's writer lock, then loads it. Rejects if another live writer holds it. */
  openSession(id: string): Promise<SessionGraph>;
  /**
   * Optional: `openSession` that also says what the load found (skipped lines, orphans, a torn tail).
   * The agent surfaces the report on `resume`; without this method it has none to surface.
   */
  openSessionWithReport?(id: string): Promise<LoadedSession>;
  /**
   * Durably appends what `graph` gained since it was loaded or last persisted; resolves once it is
   * durable, with what it wrote when the store can say (telemetry reports it), else with nothing.
   */
  persist(graph: SessionGraph): Promise<PersistReport | void>;
  /** Releases the writer lock taken by `openSession`. */
  closeSession(id: string): Promise<void>;
}
