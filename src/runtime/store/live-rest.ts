import type { ModelUsage } from '../contract/model.js';
import type { SessionNode, SessionRecord } from '../contract/session.js';
import type { GuardrailTrip } from '../contract/guardrail.js';
import { addUsage } from '../usage/sum.js';
import { GraphNotLoadedError } from './errors.js';
import { countStarts } from './records.js';
import { restoreRecords } from './restore.js';

/** How `SessionGraph.fromLivePath` builds a graph that holds only its live path. */
export type LivePathOptions = {
  /** The live leaf; its whole model context must be among the records given. */
  leaf: string | null;
  /** Every record of the session as stored now: what the graph loads when a caller asks for more than the live path. */
  rest: () => Promise<readonly SessionRecord[]>;
  /**
   * The same, synchronously, for the methods that cannot wait (`children`, `size`, ...). Without it
   * those methods throw `GraphNotLoadedError` until `loadWhole()` has run.
   */
  restSync?: () => readonly SessionRecord[];
  /**
   * Usage billed over the whole session, every branch (what `usageTotal()` returns until more is
   * loaded, plus what is appended). Without it, `usageTotal()` loads the whole session.
   */
  usageTotal?: ModelUsage;
  /** The guardrail trip standing at `leaf` (see `SessionGraph.tripped`), when one does. */
  tripped?: GuardrailTrip;
};

/**
 * What a graph that holds only its live path knows of the rest of its session, and how it loads it: two
 * plain functions, no store protocol.
 */
export class LiveRest {
  /** The usage over the whole session, when the store gave it, plus what was added since. */
  readonly usage: ModelUsage | null;
  // Built on first use: resuming a session whose last reply's calls are all answered never asks.
  private heldCalls: Set<string> | null = null;

  constructor(
    private readonly options: LivePathOptions,
    /** The nodes the graph holds now. */
    private readonly held: () => Iterable<SessionNode>,
  ) {
    this.usage = options.usageTotal === undefined ? null : { ...options.usageTotal };
  }

  /** The calls of the nodes held: the ones whose start counts the graph knows exactly. */
  get calls(): ReadonlySet<string> {
    if (this.heldCalls === null) {
      this.heldCalls = new Set();
      for (const node of this.held()) addCalls(this.heldCalls, node);
    }
    return this.heldCalls;
  }

  /** A node the graph added: its usage and calls are known without loading. */
  added(node: SessionNode): void {
    if (this.usage !== null && node.usage !== undefined) addUsage(this.usage, node.usage);
    if (this.heldCalls !== null) addCalls(this.heldCalls, node);
  }

  load(): Promise<readonly SessionRecord[]> {
    return this.options.rest();
  }

  loadSync(sessionId: string): readonly SessionRecord[] {
    if (this.options.restSync === undefined) throw new GraphNotLoadedError(sessionId);
    return this.options.restSync();
  }
}

/**
 * The whole session a graph takes in, in the stored order, merged with the nodes it held (which keep
 * their identity, so turns an agent holds stay the graph's). `starts` is updated in place: a call's count
 * is the stored one or the graph's, whichever is higher, since the graph counted what was stored for
 * the calls it held plus what it marked since, some of which may not be stored yet.
 */
export function mergeWhole(
  held: Map<string, SessionNode>,
  starts: Map<string, number>,
  records: readonly SessionRecord[],
): Map<string, SessionNode> {
  for (const [id, stored] of countStarts(records)) starts.set(id, Math.max(starts.get(id) ?? 0, stored));
  const merged = new Map<string, SessionNode>();
  for (const node of restoreRecords(records).nodes.values()) if (!merged.has(node.id)) merged.set(node.id, held.get(node.id) ?? node);
  // What only the graph holds: appended since it was loaded (stored or not), or its live path where the
  // stored records no longer reach it (damage above the latest condensation).
  for (const [id, node] of held) if (!merged.has(id)) merged.set(id, node);
  return merged;
}

/** Adds the ids of `node`'s tool calls to `calls`. */
export function addCalls(calls: Set<string>, node: SessionNode): void {
  for (const block of node.turn.blocks) if (block.kind === 'tool_call') calls.add(block.id);
}
