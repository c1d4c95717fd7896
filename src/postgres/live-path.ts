import type { SessionNode } from '../runtime/contract/session.js';
import { ChainWalk } from '../runtime/store/context-chain.js';

/** One node of a window of the write order (see `nodesBefore` in session-sql.ts): its JSON unparsed. */
export type WindowRow = { id: string; seq: number; node: string };

/** How the live path is read from the database. */
export type LivePathReads = {
  /** The nodes written at most `width` (in write order) before node `from`, that node included; none when it is not stored. */
  window(from: string, width: number): Promise<WindowRow[]>;
  /** The same nodes walked by the database itself in one statement (the recursive query), as JSON. */
  walk(leaf: string): Promise<string[]>;
};

/** The width of the first window, in write order (seq). */
export const FIRST_WIDTH = 256;
// Each window is this many times as wide as the last: under load a round trip costs more than a few
// hundred rows, so a 10,000-turn context takes five windows, not seven.
const GROWTH = 4;
// A window whose rows the walk mostly passed over holds other branches between the path's nodes:
// windows would read the whole session, the recursive walk reads the path alone.
const LEAST_YIELD = 1 / 4;

/**
 * The nodes of the model context at `leaf` (what `SessionGraph.contextNodes(leaf)` names), leaf first;
 * `first`, when given, is the window from the leaf, read already with the session's row.
 * A conversation writes its context in order, so it is read in windows of the write order walking back
 * from the leaf: each starts at the node the walk needs next (jumping over history a `branchFrom` left)
 * and four times as wide as the last, so a 10,000-turn context takes five index range scans where a walk
 * by parent takes 10,000 lookups; only the nodes on the path are parsed. A window the walk mostly
 * passes over (turns regenerated again and again) hands over to the recursive walk. A path cut by a
 * missing node ends there: building the graph from it reports that.
 */
export async function readLivePathNodes(reads: LivePathReads, leaf: string, first?: readonly WindowRow[]): Promise<SessionNode[]> {
  const read = new Map<string, { seq: number; node: string | SessionNode }>();
  const lookup = (id: string): SessionNode | undefined => {
    const found = read.get(id);
    if (found === undefined || typeof found.node !== 'string') return found?.node as SessionNode | undefined;
    found.node = JSON.parse(found.node) as SessionNode;
    return found.node;
  };
  const walk = new ChainWalk(leaf);
  let windows = 0;
  // How far the walk had come when the last window arrived.
  let before = 0;
  const take = (rows: readonly WindowRow[]): void => {
    windows++;
    before = walk.walked.length;
    for (const row of rows) if (!read.has(row.id)) read.set(row.id, { seq: row.seq, node: row.node });
  };
  if (first !== undefined) take(first);
  for (let width = first === undefined ? FIRST_WIDTH : FIRST_WIDTH * GROWTH; ; width *= GROWTH) {
    const chain = walk.run(lookup);
    if (chain.ok) return chain.nodes;
    if ('broken' in chain) return [...walk.walked];
    if (windows > 0 && walk.walked.length > before && !yieldsEnough(walk.walked, before, read)) {
      return (await reads.walk(leaf)).map((json) => JSON.parse(json) as SessionNode);
    }
    const rows = await reads.window(chain.missing, width);
    if (rows.length === 0) return [...walk.walked];
    take(rows);
  }
}

/**
 * Whether the last window was worth it: the walk took at least `LEAST_YIELD` of the rows it passed
 * over in it (those written after the last node it reached), rather than skipping other branches.
 */
function yieldsEnough(walked: readonly SessionNode[], before: number, read: ReadonlyMap<string, { seq: number }>): boolean {
  const reached = read.get(walked[walked.length - 1].id)!.seq;
  const top = read.get(walked[before].id)!.seq;
  let passed = 0;
  for (const { seq } of read.values()) if (seq >= reached && seq <= top) passed++;
  return walked.length - before >= passed * LEAST_YIELD;
}
