import type { Turn } from './turn.js';
import type { ModelUsage } from './model.js';

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
   * Present on a condensation summary node: the id of the first node of the verbatim tail that the
   * summary keeps (null when it keeps none). Everything on the path before that node is replaced by
   * the summary when the context is rebuilt; it stays on disk and in `pathTo`.
   */
  condenses?: { firstKept: string | null };
  /**
   * On an assistant turn: what the model call that produced it was billed; on a condensation summary:
   * what the summarizer call(s) were billed. Stored with the node, not part of its id.
   */
  usage?: ModelUsage;
  /** The model that was billed `usage`, so a cost can be estimated from the session alone. */
  model?: string;
};

/** One line of a session file. The last `head` record names the live leaf. */
export type SessionRecord = { type: 'node'; node: SessionNode } | { type: 'head'; leaf: string | null };

/** Upgrades one raw decoded record one schema step forward; runs in order on every record at load. */
export type Migrator = { id: string; upgrade(raw: unknown): unknown };
