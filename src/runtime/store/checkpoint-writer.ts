import type { ModelUsage } from '../contract/model.js';
import type { SessionNode, SessionRecord } from '../contract/session.js';
import { addUsage } from '../usage/sum.js';
import { crc32 } from 'node:zlib';
import { encodeCheckpoint, firstVouchedAfter, type ByteRange, type VouchedRange } from './checkpoint.js';
import type { RangeSet } from './range-set.js';
import { leafPosition } from './records.js';
import { recordLine } from './record-line.js';

/** What a writer knows of its session file, from the load and from its own writes. */
export type WriterState = {
  /** The file's size as this writer left it. */
  size: number;
  /**
   * The last checkpoint in the file that this writer can vouch for, null when there is none: where it
   * is, its live ranges, and the ids of the nodes of the context at its leaf (a reader resuming from it
   * takes nodes before it from that context only).
   */
  checkpoint: { offset: number; live: ByteRange[]; chain: ReadonlySet<string> } | null;
  /**
   * The file changed behind this writer (another process, or a failed write whose bytes landed in
   * part): what it knows of the file no longer holds, so it writes no more checkpoints. The next open
   * reads the file again and starts them again.
   */
  stale: boolean;
  /** The leaf the file's records end on, once a checkpoint exists: where the last batch (or the load) left it. */
  leaf: string | null;
  /** Nodes in the session and the usage billed over them, as a whole load would count them. */
  nodes: number;
  usage: ModelUsage;
  /** Where each node the writer knows of sits in the file. */
  offsets: Map<string, ByteRange>;
  verified: RangeSet;
  /**
   * The ranges this writer vouches for (ascending, disjoint): one per checkpoint it wrote, from the one
   * before (or where its vouching began) to it, and those the checkpoint it resumed from vouched for.
   */
  vouched: VouchedRange[];
  /**
   * The bytes from `start` to the end of the file, which it vouches for too, with their CRC so far:
   * what it wrote since its last checkpoint (or since the load, when the load could check what was
   * there). Its next checkpoint closes this range.
   */
  vouching: { start: number; crc: number };
};

/** One write: its bytes, how many records they hold (a checkpoint included), and what to record once they are durable. */
export type Batch = { bytes: Buffer; records: number; commit(): void };

// A live range may run over a gap between two nodes of the context (heads, other branches) up to this
// size: one range to read instead of two, at the cost of parsing the gap.
const MAX_GAP = 16 * 1024;

/**
 * Decides when a checkpoint goes into the file and writes it, appended to a batch of records so that
 * it costs no extra write or fsync. A checkpoint is due when `every` bytes were appended since the last
 * one, and when the context at the new leaf is not all after the last checkpoint or in the context it
 * records (the leaf moved back to older history). Nothing is ever rewritten.
 */
export class CheckpointWriter {
  constructor(
    readonly state: WriterState,
    private readonly every: number,
  ) {}

  /**
   * The bytes appending `records` at the end of the file, behind a newline when the file ends in a torn
   * line, and followed by a checkpoint when one is due. `chainOf` gives the context at the leaf the
   * records leave (`graph.contextNodes(leaf)`, null when it cannot be built); it is asked only when a
   * checkpoint may be due, so that a batch that just extends the live path costs only its own records.
   * `startsOf` gives how many `started` records name a call, these records included (`graph.startsOf`).
   */
  compose(
    records: readonly SessionRecord[],
    closeTornLine: boolean,
    chainOf: () => readonly SessionNode[] | null,
    startsOf: (callId: string) => number,
  ): Batch {
    const state = this.state;
    const size = state.size;
    const firstByte = size + (closeTornLine ? 1 : 0);
    const lines: string[] = closeTornLine ? ['\n'] : [];
    // A torn line is no record: vouching starts again after it.
    let vouching = closeTornLine ? { start: firstByte, crc: 0 } : state.vouching;
    const placed = new Map<string, ByteRange>();
    const written = new Map<string, SessionNode>();
    let position = firstByte;
    let leaf: string | null = state.leaf;
    let nodes = state.nodes;
    const usage = { ...state.usage };
    for (const record of records) {
      const line = `${recordLine(record)}\n`;
      const end = position + Buffer.byteLength(line);
      if (record.type === 'node') {
        // A node written before (a write that failed after its bytes landed, retried) is counted once.
        if (!placed.has(record.node.id) && !state.offsets.has(record.node.id)) {
          nodes++;
          if (record.node.usage !== undefined) addUsage(usage, record.node.usage);
        }
        if (!placed.has(record.node.id)) placed.set(record.node.id, [position, end]);
        written.set(record.node.id, record.node);
      }
      leaf = leafPosition(record) ?? leaf;
      lines.push(line);
      position = end;
    }
    let crc = vouching.crc;
    for (let i = closeTornLine ? 1 : 0; i < lines.length; i++) crc = crc32(lines[i], crc);
    vouching = { start: vouching.start, crc };

    const where = (id: string) => placed.get(id) ?? state.offsets.get(id);
    let checkpoint: WriterState['checkpoint'] = null;
    let closed: VouchedRange | null = null;
    let chain: readonly SessionNode[] | null | undefined;
    const last = state.checkpoint;
    let due = !state.stale && position - (last?.offset ?? 0) >= this.every;
    if (!due && !state.stale && last !== null && leaf !== null && !this.extendsLastLeaf(leaf, written)) {
      chain = chainOf();
      due = chain !== null && !chain.every((node) => covers(last, node.id, where(node.id)));
    }
    if (due && leaf !== null) {
      chain ??= chainOf();
      const live = chain === null || chain.at(-1)?.id !== leaf ? null : this.liveRanges(chain, where, [firstByte, position]);
      if (chain !== null && live !== null) {
        checkpoint = { offset: position, live, chain: new Set(chain.map((node) => node.id)) };
        if (position > vouching.start) closed = [vouching.start, position, vouching.crc];
        const vouched = vouchedOver(closed === null ? state.vouched : [...state.vouched, closed], live);
        const line = `${encodeCheckpoint({ offset: position, leaf, live, nodes, usage, started: startsIn(chain, startsOf), vouched })}\n`;
        lines.push(line);
        vouching = { start: position, crc: crc32(line) };
        position += Buffer.byteLength(line);
      }
    }

    return {
      bytes: Buffer.from(lines.join('')),
      records: records.length + (checkpoint === null ? 0 : 1),
      commit: () => {
        for (const [id, range] of placed) if (!state.offsets.has(id)) state.offsets.set(id, range);
        state.verified.add(firstByte, position);
        state.size = position;
        state.nodes = nodes;
        state.usage = usage;
        state.leaf = leaf;
        if (checkpoint !== null) state.checkpoint = checkpoint;
        if (closed !== null) state.vouched.push(closed);
        state.vouching = vouching;
      },
    };
  }

  /**
   * The file's size before a write whose size was not seen yet (the first write, the write after a
   * failed one). A size other than the one this writer left means the file changed behind it (written
   * by someone else, or a failed write landed in part, maybe a checkpoint with it): it goes stale.
   */
  checkSize(size: number): void {
    if (size === this.state.size) return;
    this.state.size = size;
    this.state.stale = true;
    this.state.checkpoint = null;
    this.state.offsets.clear();
    this.state.vouched = [];
  }

  /** Takes in where every node of a whole read of the file sits (a graph loading its whole session). */
  learn(offsets: Iterable<[string, ByteRange]>, verified: readonly ByteRange[]): void {
    for (const [id, range] of offsets) if (!this.state.offsets.has(id)) this.state.offsets.set(id, range);
    for (const [start, end] of verified) this.state.verified.add(start, end);
  }

  /**
   * True when the new leaf hangs, through records of this batch only, under the leaf the file was left
   * at, and no condensation among them keeps a tail from outside the batch. The context at the new leaf
   * is then the batch's nodes and part of the old context: all after the last checkpoint or inside its
   * live ranges already, as it was before the batch (by induction from the load or the last checkpoint).
   */
  private extendsLastLeaf(leaf: string, written: Map<string, SessionNode>): boolean {
    let current: string | null = leaf;
    for (;;) {
      const node: SessionNode | undefined = current === null ? undefined : written.get(current);
      if (node === undefined) return current === null || current === this.state.leaf;
      const firstKept = node.condenses?.firstKept;
      if (firstKept !== undefined && firstKept !== null && !written.has(firstKept)) return false;
      current = node.parent;
    }
  }

  /** The byte ranges of the chain's records, merged across small verified gaps; null if one is unknown. */
  private liveRanges(chain: readonly SessionNode[], where: (id: string) => ByteRange | undefined, writing: ByteRange): ByteRange[] | null {
    const ranges: ByteRange[] = [];
    for (const node of chain) {
      const range = where(node.id);
      if (range === undefined) return null;
      ranges.push(range);
    }
    ranges.sort((a, b) => a[0] - b[0]);
    // The bytes being written count as verified: if the write fails, so does this checkpoint.
    const whole = (start: number, end: number) => start >= writing[0] || this.state.verified.covers(start, Math.min(end, writing[0]));
    const merged: ByteRange[] = [];
    for (const range of ranges) {
      const last = merged.at(-1);
      if (last !== undefined && range[0] <= last[1]) last[1] = Math.max(last[1], range[1]);
      else if (last !== undefined && range[0] - last[1] <= MAX_GAP && whole(last[1], range[0])) last[1] = range[1];
      else merged.push([range[0], range[1]]);
    }
    return merged;
  }
}

/** The ranges of `vouched` (ascending, disjoint) that overlap one of `live` (ascending, disjoint): what a checkpoint vouches for. */
function vouchedOver(vouched: readonly VouchedRange[], live: readonly ByteRange[]): VouchedRange[] {
  const over: VouchedRange[] = [];
  for (const [start, end] of live) {
    const low = firstVouchedAfter(vouched, start);
    // Both lists ascend, so a range overlapping two live ranges comes up twice in a row.
    for (let i = low; i < vouched.length && vouched[i][0] < end; i++) if (over.at(-1) !== vouched[i]) over.push(vouched[i]);
  }
  return over;
}

/** True when a reader resuming from checkpoint `last` may take node `id` (at `range`): after it, or in the context it records. */
function covers(last: NonNullable<WriterState['checkpoint']>, id: string, range: ByteRange | undefined): boolean {
  return last.chain.has(id) || (range !== undefined && range[0] >= last.offset);
}

/** The checkpoint's `started`: the start count of every call of the chain that has one, chain order. */
function startsIn(chain: readonly SessionNode[], startsOf: (callId: string) => number): Array<[string, number]> {
  const started: Array<[string, number]> = [];
  const seen = new Set<string>();
  for (const node of chain) {
    for (const block of node.turn.blocks) {
      if (block.kind !== 'tool_call' || seen.has(block.id)) continue;
      seen.add(block.id);
      const count = startsOf(block.id);
      if (count > 0) started.push([block.id, count]);
    }
  }
  return started;
}
