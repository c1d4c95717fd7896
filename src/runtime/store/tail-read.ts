import { isAscii } from 'node:buffer';
import type { FileHandle } from 'node:fs/promises';
import type { ModelUsage } from '../contract/model.js';
import type { SessionNode } from '../contract/session.js';
import type { GuardrailTrip } from '../contract/guardrail.js';
import { addUsage } from '../usage/sum.js';
import { CHECKPOINT_PREFIX, crcOf, firstVouchedAfter, type ByteRange, type Checkpoint, type VouchedRange } from './checkpoint.js';
import { ChainWalk, pathChain, type ContextChain, type OkChain } from './context-chain.js';
import { hashNode } from './hash.js';
import { decodeRecord, leafPosition, LineProblem, type StoredLine } from './records.js';
import type { ReadOptions } from './read-session.js';

/**
 * How far from the end a checkpoint is looked for. A writer appends one at least every
 * `checkpointBytes` (64 KiB by default), so anything further is a file without checkpoints (written
 * before they existed) or one whose writer could not write them.
 */
export const TAIL_SEARCH_BYTES = 1024 * 1024;
const FIRST_WINDOW = 64 * 1024;
const NEWLINE = 0x0a;
// A checkpoint line starts the file or follows a newline; a JSON string never holds a raw newline, so
// these bytes can only be the start of a real checkpoint line.
const MARK = Buffer.from(`\n${CHECKPOINT_PREFIX}`);

/** The bytes at the end of a file, back to its last checkpoint line (when one was found). */
export type Tail = {
  bytes: Buffer;
  /** The file offset of `bytes[0]`. */
  start: number;
  /** The file offset of the last checkpoint line, null when none was found. */
  checkpointAt: number | null;
  bytesRead: number;
};

/**
 * Reads backwards from the end of a file until the start of its last checkpoint line, the start of the
 * file, or `limit` bytes. Only a byte search: nothing is decoded on the way.
 */
export async function readBackToCheckpoint(file: FileHandle, size: number, limit: number): Promise<Tail> {
  const tail: Tail = { bytes: Buffer.alloc(0), start: size, checkpointAt: null, bytesRead: 0 };
  for (let window = FIRST_WINDOW; tail.start > 0 && size - tail.start < limit; window *= 2) {
    const added = await extendBack(file, tail, Math.max(0, tail.start - window, size - limit));
    // A mark starting in the new bytes; one starting further on was looked for already.
    const at = tail.bytes.lastIndexOf(MARK, added - 1);
    if (at >= 0) {
      tail.checkpointAt = tail.start + at + 1;
      return tail;
    }
  }
  if (tail.start === 0 && tail.bytes.subarray(0, MARK.length - 1).equals(MARK.subarray(1))) tail.checkpointAt = 0;
  return tail;
}

/** Reads `[to, tail.start)` in front of the tail's bytes; returns how many bytes were added. */
async function extendBack(file: FileHandle, tail: Tail, to: number): Promise<number> {
  const added = Buffer.allocUnsafe(tail.start - to);
  const { bytesRead } = await file.read(added, 0, added.length, to);
  if (bytesRead !== added.length)
    throw new Error(`the session file shrank while it was read (${bytesRead} of ${added.length} bytes at ${to})`);
  tail.bytes = Buffer.concat([added, tail.bytes]);
  tail.start = to;
  tail.bytesRead += added.length;
  return added.length;
}

/** A resume read from the end of the file: the live path, and what the writer needs to go on. */
export type TailResume = {
  ok: true;
  leaf: string | null;
  /** The guardrail trip standing at `leaf`: carried by the head that placed it, when one does. */
  tripped: GuardrailTrip | null;
  /** The nodes of the model context at `leaf`, leaf first (see `contextChain`). */
  chain: SessionNode[];
  /** Nodes in the whole session and the usage billed over them: the checkpoint's counts plus what came after it. */
  nodes: number;
  usage: ModelUsage;
  /** How often each call of the live path was recorded as started: the checkpoint's counts plus the records after it. */
  starts: Map<string, number>;
  /** Where each node read sits in the file (built when asked: only a writer needs it). */
  offsets(): Map<string, ByteRange>;
  checkpoint: Checkpoint;
  /** The ids of the nodes of the context at the checkpoint's own leaf (built when asked). */
  checkpointChain(): Set<string>;
  /** Byte ranges read and found to hold only whole, valid records. */
  verified: ByteRange[];
  /**
   * From the last checkpoint's line to the end of the file, with its CRC, when a writer going on from
   * here may vouch for those bytes: every line checked as a load without migrators checks it (a line a
   * migrator had to upgrade is not what a store writes). Null otherwise.
   */
  vouchable: { start: number; crc: number } | null;
  lines: number;
  bytesRead: number;
};

/** Why a resume from the end did not check out, so the whole file must be read. */
export type TailMiss = { ok: false; reason: string; bytesRead: number; tail: Tail | null };

/**
 * Resumes a session from the end of its file: the records after the last checkpoint, then the
 * checkpoint's live ranges, newest first, only as far back as the context at the leaf reaches. It
 * trusts nothing it did not verify and gives up (`TailMiss`, with the reason) at the first thing that
 * does not check out; reading the whole file then gives the same leaf and context, and reports what
 * is wrong.
 */
export async function readTail(file: FileHandle, size: number, options: ReadOptions): Promise<TailResume | TailMiss> {
  const last = Buffer.alloc(1);
  await file.read(last, 0, 1, size - 1);
  if (last[0] !== NEWLINE)
    return {
      ok: false,
      reason: 'the file ends in an unterminated line (a write cut short, or one still under way)',
      bytesRead: 1,
      tail: null,
    };

  const tail = await readBackToCheckpoint(file, size, TAIL_SEARCH_BYTES);
  const miss = (reason: string): TailMiss => ({ ok: false, reason, bytesRead: tail.bytesRead, tail });
  if (tail.checkpointAt === null) {
    return miss(tail.start === 0 ? 'the file holds no checkpoint' : `no checkpoint in the last ${TAIL_SEARCH_BYTES} bytes`);
  }
  if (tail.checkpointAt === 0) return miss('the file starts with a checkpoint, which no writer does');

  // The checkpoint, verified: its checksum, and that it sits where it says it does.
  const at = tail.checkpointAt;
  const checkpointEnd = tail.bytes.indexOf(NEWLINE, at - tail.start) + tail.start;
  const decodedCheckpoint = decodeRecord(tail.bytes.toString('utf8', at - tail.start, checkpointEnd - tail.start), options.migrators);
  if (decodedCheckpoint instanceof LineProblem) return miss(`the last checkpoint (at byte ${at}) is damaged: ${decodedCheckpoint.reason}`);
  const checkpoint = decodedCheckpoint as Checkpoint;
  if (checkpoint.offset !== at)
    return miss(`the last checkpoint says it is at byte ${checkpoint.offset} but sits at byte ${at}: the file changed before it`);

  // The last record before it that places the leaf (past `started` records, which place none, and
  // earlier checkpoints, which repeat it) must put the leaf where the checkpoint says.
  let previousStart = at;
  let lines = 1;
  let tripped: GuardrailTrip | null = null;
  for (;;) {
    const end = previousStart - 1;
    previousStart = await lineStartBefore(file, tail, end);
    lines++;
    const previous = decodeRecord(tail.bytes.toString('utf8', previousStart - tail.start, end - tail.start), options.migrators);
    const placed = previous instanceof LineProblem ? null : previous.type === 'checkpoint' ? previous.leaf : leafPosition(previous);
    if (placed === checkpoint.leaf) {
      // An older checkpoint does not say whether a guardrail trip stands at the leaf: the head that placed it does.
      if (!(previous instanceof LineProblem) && previous.type === 'checkpoint' && previousStart > 0) continue;
      if (!(previous instanceof LineProblem) && previous.type === 'head') tripped = previous.tripped ?? null;
      break;
    }
    if (placed !== undefined || previousStart === 0) {
      return miss('the records before the last checkpoint do not put the leaf where the checkpoint says');
    }
  }

  // Where each node read sits, in the order read ([id, start, end] flat; the first of an id wins):
  // turned into a map only for a writer.
  const placed: Array<string | number> = [];
  const verified: ByteRange[] = [[previousStart, size]];

  // The records after the checkpoint, replayed from its leaf.
  let leaf: string | null = checkpoint.leaf;
  const after = new Map<string, SessionNode>();
  let nodes = checkpoint.nodes;
  const usage = { ...checkpoint.usage };
  const starts = new Map(checkpoint.started);
  let damaged: string | null = null;
  eachLine(tail.bytes, checkpointEnd + 1 - tail.start, tail.bytes.length, tail.start, (line, start, end) => {
    lines++;
    const record = decodeValid(line, options);
    if (typeof record === 'string') return ((damaged ??= `the line at byte ${start}, after the last checkpoint, ${record}`), false);
    if (record.type === 'checkpoint') return ((damaged ??= `a second checkpoint at byte ${start} follows the last one`), false);
    if (record.type === 'started') for (const id of record.callIds) starts.set(id, (starts.get(id) ?? 0) + 1);
    leaf = leafPosition(record) ?? leaf;
    if (record.type === 'head') tripped = record.tripped ?? null;
    else if (record.type === 'node') tripped = null;
    if (record.type === 'node' && !after.has(record.node.id)) {
      after.set(record.node.id, record.node);
      placed.push(record.node.id, start, end);
      nodes++;
      if (record.node.usage !== undefined) addUsage(usage, record.node.usage);
    }
    return true;
  });
  if (damaged !== null) return miss(damaged);
  let bytesRead = tail.bytesRead;

  // The live ranges, newest first, until the context at the checkpoint's own leaf is whole: only
  // nodes of that context (or after the checkpoint) may serve, since the checkpoint's start counts
  // cover exactly their calls. The writer checkpoints before the leaf leaves them.
  const fromRanges = new Map<string, SessionNode>();
  let unread = checkpoint.live.length;
  // Vouched bytes skip the record checks only when those checks are all a load would do: migrators
  // may reshape records, and `verify` re-hashes every node.
  const fast = checkpoint.vouched !== undefined && options.migrators.length === 0 && !options.verify;
  const intact = new Map<number, boolean>();
  let recorded: ContextChain;
  const walk = new ChainWalk(checkpoint.leaf);
  for (;;) {
    recorded = walk.run((id) => fromRanges.get(id));
    if (recorded.ok) break;
    if ('broken' in recorded)
      return { ...miss(`condensation ${recorded.broken.id} keeps a tail from a node that is not one of its ancestors`), bytesRead };
    if (unread === 0)
      return {
        ...miss(`the last checkpoint's live ranges do not hold the context at its leaf (node ${recorded.missing} is missing)`),
        bytesRead,
      };
    const [start, end] = checkpoint.live[--unread];
    // One byte more in front, to see that the range starts a line; and the whole of every vouched
    // range it overlaps, whose CRC covers all of it.
    const covering = fast ? vouchedOver(checkpoint.vouched!, start, end) : [];
    const from = Math.min(Math.max(0, start - 1), covering[0]?.[0] ?? Infinity);
    const to = Math.max(end, covering.at(-1)?.[1] ?? 0);
    let bytes: Buffer;
    let got = to - from;
    if (from >= tail.start) {
      bytes = tail.bytes.subarray(from - tail.start, to - tail.start); // read already, on the way back
    } else {
      bytes = Buffer.allocUnsafe(to - from);
      got = (await file.read(bytes, 0, bytes.length, from)).bytesRead;
      bytesRead += got;
    }
    if (got !== bytes.length || (start > 0 && bytes[start - 1 - from] !== NEWLINE) || bytes[end - 1 - from] !== NEWLINE) {
      return { ...miss(`the checkpoint's live range ${start}-${end} does not hold whole lines`), bytesRead };
    }
    const read: SessionNode[] = [];
    // Whether `read` is one line of descent (each node's parent the node before it), seen on the way
    // rather than in a second pass over every node.
    let descent = true;
    const onRecord = (record: StoredLine | string, lineStart: number, lineEnd: number): boolean => {
      lines++;
      if (typeof record === 'string')
        return ((damaged ??= `the line at byte ${lineStart}, in the checkpoint's live range ${start}-${end}, ${record}`), false);
      if (record.type === 'node') {
        const node = record.node;
        if (descent && read.length > 0 && node.parent !== read[read.length - 1].id) descent = false;
        read.push(node);
        placed.push(node.id, lineStart, lineEnd);
      }
      return true;
    };
    // What vouched ranges whose CRC still matches cover is parsed in one go, unchecked; the rest line by line.
    const checkLines = (lineFrom: number, lineTo: number) =>
      eachLine(bytes, lineFrom - from, lineTo - from, from, (line, lineStart, lineEnd) =>
        onRecord(decodeValid(line, options), lineStart, lineEnd),
      );
    let done = start;
    for (const [vouchedStart, vouchedEnd] of intactSpans(covering, bytes, from, intact)) {
      const pieceStart = Math.max(vouchedStart, done);
      const pieceEnd = Math.min(vouchedEnd, end);
      if (pieceEnd <= pieceStart) continue;
      checkLines(done, pieceStart);
      if (damaged !== null) break;
      if (!decodeVouched(bytes, pieceStart - from, pieceEnd - from, from, onRecord)) checkLines(pieceStart, pieceEnd);
      if (damaged !== null) break;
      done = pieceEnd;
    }
    if (damaged === null) checkLines(done, end);
    if (damaged !== null) return { ...miss(damaged), bytesRead };
    verified.push([start, end]);
    // A conversation that never branched back has its whole context in the last range, in order: when
    // the range is one line of descent ending at the checkpoint's leaf, step back through it instead of
    // looking every parent up by id.
    if (unread === checkpoint.live.length - 1 && descent && read.at(-1)?.id === checkpoint.leaf) {
      const stepped = pathChain(read);
      if (stepped.ok) {
        recorded = stepped;
        break;
      }
    }
    for (const node of read) if (!fromRanges.has(node.id)) fromRanges.set(node.id, node);
  }

  // The context at the replayed leaf, from the records after the checkpoint and that context.
  const chain: ContextChain = leaf === null ? { ok: true, nodes: [], summaryAt: -1 } : replayedChain(leaf, after, recorded);
  if (!chain.ok) {
    if ('broken' in chain)
      return { ...miss(`condensation ${chain.broken.id} keeps a tail from a node that is not one of its ancestors`), bytesRead };
    return {
      ...miss(
        `the context at the leaf needs node ${chain.missing}, which is neither after the last checkpoint nor in the context it records`,
      ),
      bytesRead,
    };
  }
  const recordedNodes = recorded.nodes;
  const offsets = () => {
    const map = new Map<string, ByteRange>();
    for (let i = 0; i < placed.length; i += 3) {
      const id = placed[i] as string;
      if (!map.has(id)) map.set(id, [placed[i + 1] as number, placed[i + 2] as number]);
    }
    return map;
  };
  const checkpointChain = () => new Set(recordedNodes.map((node) => node.id));
  return {
    ok: true,
    leaf,
    tripped,
    chain: chain.nodes,
    nodes,
    usage,
    starts,
    offsets,
    checkpoint,
    checkpointChain,
    verified,
    vouchable: options.migrators.length === 0 ? { start: at, crc: crcOf(tail.bytes, at - tail.start, size - tail.start) } : null,
    lines,
    bytesRead,
  };
}

/** The vouched ranges that overlap `[start, end)` (`vouched` is ascending and disjoint). */
function vouchedOver(vouched: readonly VouchedRange[], start: number, end: number): VouchedRange[] {
  const over: VouchedRange[] = [];
  for (let i = firstVouchedAfter(vouched, start); i < vouched.length && vouched[i][0] < end; i++) over.push(vouched[i]);
  return over;
}

/**
 * The spans of `covering` (ascending; `bytes[0]` is at file offset `origin` and holds them all) whose
 * bytes still have the CRC they were vouched with, adjacent ones merged. `intact` remembers each
 * range's verdict across the live ranges of one load.
 */
function intactSpans(covering: readonly VouchedRange[], bytes: Buffer, origin: number, intact: Map<number, boolean>): ByteRange[] {
  const spans: ByteRange[] = [];
  for (const [start, end, crc] of covering) {
    let ok = intact.get(start);
    if (ok === undefined) intact.set(start, (ok = crcOf(bytes, start - origin, end - origin) === crc));
    if (!ok) continue;
    const last = spans.at(-1);
    if (last !== undefined && last[1] === start) last[1] = end;
    else spans.push([start, end]);
  }
  return spans;
}

/**
 * Decodes the whole lines of vouched bytes `bytes[from, to)` with one `JSON.parse` (the lines joined
 * into one array), handing each to `onRecord` as the line-by-line decode would, minus the shape check
 * their voucher made when it wrote or read them. False, with nothing handed on, when the bytes do not
 * parse as one value per line: the caller then decodes them line by line, which says what is wrong.
 */
function decodeVouched(
  bytes: Buffer,
  from: number,
  to: number,
  origin: number,
  onRecord: (record: StoredLine, start: number, end: number) => boolean,
): boolean {
  if ((from > 0 && bytes[from - 1] !== NEWLINE) || bytes[to - 1] !== NEWLINE) return false;
  // Bytes that are all ASCII (the usual case for a session's text) decode as latin1, a plain copy,
  // instead of through the UTF-8 decoder: the same string, at a fraction of the cost on a long context.
  const text = bytes.toString(isAscii(bytes.subarray(from, to)) ? 'latin1' : 'utf8', from, to);
  // Where each line ends: found in the string when every character is one byte (the usual case, and
  // much cheaper than a search call per line on the buffer), else in the bytes.
  const ends: number[] = [];
  if (text.length === to - from) {
    for (let newline = text.indexOf('\n'); newline >= 0; newline = text.indexOf('\n', newline + 1)) ends.push(from + newline);
  } else {
    for (let newline = bytes.indexOf(NEWLINE, from); newline >= 0 && newline < to; newline = bytes.indexOf(NEWLINE, newline + 1))
      ends.push(newline);
  }
  let values: unknown;
  try {
    // Valid JSON lines joined by commas inside brackets parse to exactly the values they parse to one by one.
    values = JSON.parse(`[${text.slice(0, -1).replaceAll('\n', ',')}]`);
  } catch {
    return false; // Not what was vouched for after all: the line-by-line decode says what is wrong.
  }
  if (!Array.isArray(values) || values.length !== ends.length) return false;
  let start = from;
  for (let i = 0; i < values.length; i++) {
    if (!onRecord(values[i] as StoredLine, origin + start, origin + ends[i] + 1)) return true;
    start = ends[i] + 1;
  }
  return true;
}

/**
 * The context at the replayed leaf: up through the records after the checkpoint, then through the
 * context at the checkpoint's own leaf (`recorded`, leaf first) only, since the checkpoint's start
 * counts cover exactly its calls. Once the walk is in that context it meets its nodes one after
 * another, each the parent of the one before, so nothing there is looked up by id.
 */
function replayedChain(leaf: string, after: ReadonlyMap<string, SessionNode>, recorded: OkChain): ContextChain {
  const walk = new ChainWalk(leaf);
  const throughAfter = walk.run((id) => after.get(id));
  if (throughAfter.ok || 'broken' in throughAfter) return throughAfter;
  const nodes = recorded.nodes;
  // Walked into the recorded context at its leaf, with no summary pending: the walk would meet that
  // whole context just as it was built, so it is taken in one copy instead of node by node.
  if (!walk.inKeptTail && nodes[0]?.id === throughAfter.missing) {
    const walked = walk.walked;
    return {
      ok: true,
      nodes: walked.length === 0 ? nodes : walked.concat(nodes),
      summaryAt: recorded.summaryAt < 0 ? -1 : walked.length + recorded.summaryAt,
    };
  }
  let at = nodes.findIndex((node) => node.id === throughAfter.missing);
  return walk.run((id) => (at >= 0 && nodes[at]?.id === id ? nodes[at++] : undefined));
}

/** Where the line that ends (with its newline) at byte `end` starts, reading further back when needed. */
async function lineStartBefore(file: FileHandle, tail: Tail, end: number): Promise<number> {
  for (;;) {
    const newline = end - 1 >= tail.start ? tail.bytes.lastIndexOf(NEWLINE, end - 1 - tail.start) : -1;
    if (newline >= 0) return tail.start + newline + 1;
    if (tail.start === 0) return 0;
    await extendBack(file, tail, Math.max(0, tail.start - FIRST_WINDOW));
  }
}

/** A decoded line, or what is wrong with it (`verify` included). */
function decodeValid(line: string, options: ReadOptions): StoredLine | string {
  const record = decodeRecord(line, options.migrators);
  if (record instanceof LineProblem) return `is damaged: ${record.reason}`;
  if (options.verify && record.type === 'node' && hashNode(record.node) !== record.node.id)
    return `holds node ${record.node.id}, which does not match its content`;
  return record;
}

/**
 * Calls `onLine(text, start, end)` for each newline-terminated line of `bytes[from, to)`, with file
 * offsets (`bytes[0]` is at `origin`; `end` is past the newline), until it returns false.
 */
function eachLine(
  bytes: Buffer,
  from: number,
  to: number,
  origin: number,
  onLine: (line: string, start: number, end: number) => boolean,
): void {
  for (let start = from; start < to;) {
    const newline = bytes.indexOf(NEWLINE, start);
    if (newline < 0 || newline >= to) return;
    if (!onLine(bytes.toString('utf8', start, newline), origin + start, origin + newline + 1)) return;
    start = newline + 1;
  }
}
