import type { SessionNode, SessionRecord } from '../contract/session.js';
import type { GuardrailTrip } from '../contract/guardrail.js';
import { SessionIntegrityError } from './errors.js';
import { countStarts, tripOf } from './records.js';
import { chainProblem, contextChain, pathChain, type OkChain } from './context-chain.js';
import { restoreRecords, type Restored } from './restore.js';
import { LiveRest, type LivePathOptions } from './live-rest.js';
import { NodeTable } from './node-table.js';

/**
 * What a `SessionGraph` built from stored records starts from (`restore`, `fromLivePath`): its state,
 * worked out here from the records so that the graph only takes it in.
 */
export type GraphSeed = {
  table: NodeTable;
  leaf: string | null;
  /** The guardrail trip standing at `leaf`. */
  trip: GuardrailTrip | null;
  /** How many times each call was recorded as started (a live-path graph: the calls of its nodes only). */
  starts: Map<string, number>;
  /** The context chain at `leaf`, when it was built on the way. */
  chained: { id: string; chain: OkChain } | null;
  /** Set for a graph that holds only its live path. */
  rest: LiveRest | null;
};

/** The seed of `SessionGraph.restore`, and what the records could not restore. */
export function restoredSeed(
  records: Iterable<SessionRecord>,
): { seed: GraphSeed } & Pick<Restored, 'orphans' | 'leafFallback' | 'rejected'> {
  const list = Array.isArray(records) ? records : [...records];
  const { nodes, leaf, orphans, leafFallback, rejected } = restoreRecords(list);
  // A trip stands only at the leaf its head placed: a leaf that fell back past damage has none.
  const standing = tripOf(list);
  const trip = standing !== null && standing.leaf === leaf ? standing.trip : null;
  const seed = { table: new NodeTable(nodes), leaf, trip, starts: countStarts(list), chained: null, rest: null };
  return { seed, orphans, leafFallback, rejected };
}

/** What keeps a restore from being whole (see `SessionGraph.fromRecords`), one line each; none when it is. */
export function restoreProblems({ orphans, leafFallback, rejected }: Pick<Restored, 'orphans' | 'leafFallback' | 'rejected'>): string[] {
  const problems = orphans.map((orphan) => `node ${orphan.id} has no parent ${orphan.parent}`);
  for (const summary of rejected) problems.push(summary.reason);
  if (leafFallback !== null) problems.push(`the context at the leaf ${leafFallback.recorded} cannot be rebuilt`);
  return problems;
}

/**
 * The seed of `SessionGraph.fromLivePath`: the nodes in the order given, the context chain at the leaf
 * (throws `SessionIntegrityError` when the nodes do not hold it), the start counts of their calls.
 */
export function livePathSeed(sessionId: string, records: Iterable<SessionRecord>, options: LivePathOptions): GraphSeed {
  const started: SessionRecord[] = [];
  // The nodes in the order given, and whether they form one line of descent (what stores give; a node
  // given twice breaks it). Indexed by id only when the chain needs lookups, or later on first use.
  const held: SessionNode[] = [];
  let descent = true;
  for (const record of records) {
    if (record.type === 'started') started.push(record);
    else if (record.type === 'node') {
      const node = record.node;
      if (descent && held.length > 0 && node.parent !== held[held.length - 1].id) descent = false;
      held.push(node);
    }
  }
  const table = new NodeTable(held);
  const { leaf } = options;
  let chained: GraphSeed['chained'] = null;
  if (leaf !== null) {
    const chain = descent && held.at(-1)?.id === leaf ? pathChain(held) : contextChain(leaf, (id) => table.map.get(id));
    if (!chain.ok)
      throw new SessionIntegrityError(sessionId, [`the nodes do not hold the context at the leaf ${leaf}: ${chainProblem(chain)}`]);
    chained = { id: leaf, chain };
  }
  const rest = new LiveRest(options, () => table.held());
  const starts = new Map<string, number>();
  if (started.length > 0) for (const [callId, count] of countStarts(started)) if (rest.calls.has(callId)) starts.set(callId, count);
  return { table, leaf, trip: options.tripped ?? null, starts, chained, rest };
}
