import type { Turn } from './turn.js';
import type { ModelUsage } from './model.js';
import type { GuardrailTrip } from './guardrail.js';

/**
 * One node of a session's DAG. `id` is `hashNode({ parent, turn, at })`, so identical content with
 * identical lineage and timestamp is the same node.
 */
export type SessionNode = {
  id: string;
  parent: string | null;
  turn: Turn;
  at: number;
  /**
   * Present on a compaction summary node: the id of the first node of the verbatim tail that the
   * summary keeps (null when it keeps none). Everything on the path before that node is replaced by
   * the summary when the context is rebuilt; it stays on disk and in `pathTo`.
   */
  condenses?: { firstKept: string | null };
  /**
   * On an assistant turn: what the model call that produced it was billed; on a compaction summary:
   * what the summarizer call(s) were billed. Stored with the node, not part of its id.
   */
  usage?: ModelUsage;
  /** The model that was billed `usage`, so a cost can be estimated from the session alone. */
  model?: string;
};

/**
 * One line of a session file. The last `head` record names the live leaf. A `started` record says
 * that approved tool calls were about to run: after a crash they may have run, so they are never
 * offered for approval again. A head with `tripped` moved the leaf back because the run after it
 * tripped a guardrail: the trip stands until the next record that places the leaf.
 */
export type SessionRecord =
  | { type: 'node'; node: SessionNode }
  | { type: 'head'; leaf: string | null; tripped?: GuardrailTrip }
  | { type: 'started'; callIds: string[] };

/** Upgrades one raw decoded record one schema step forward; runs in order on every record at load. */
export type Migrator = { id: string; upgrade(raw: unknown): unknown };

/** A line of a session that gave no record, and why (bad JSON, a migrator threw, not a record, a torn final line...). */
export type SkippedLine = { line: number; reason: string };

/**
 * What loading a session found besides the graph: nothing a loader leaves out goes unmentioned. A store
 * that reads no file fills what applies to it (an in-memory store reports a clean load).
 */
export type LoadReport = {
  /** Lines read, including skipped ones. */
  lines: number;
  /** Bytes read; absent when the store keeps no bytes to count. */
  bytes?: number;
  /** Records (node and head lines) applied to the graph, orphans included. */
  records: number;
  /** Lines that gave no record, with why. */
  skipped: SkippedLine[];
  /** Nodes left out because their ancestry is broken, with the missing parent and the node's line. */
  orphans: Array<{ id: string; parent: string; line: number }>;
  /** The file ended in a partial line, a write cut short by a crash. It is listed in `skipped` too. */
  truncatedTail: boolean;
  /**
   * Set when the last recorded leaf names a node that is not in the graph (skipped or orphaned): the
   * graph's leaf is the most recent earlier position whose node is intact (`restored`).
   */
  leafFallback: { recorded: string; restored: string | null } | null;
};
