import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import type { ModelUsage } from '../contract/model.js';
import { usageProblem } from '../usage/check.js';

/** A byte range of a session file, `[start, end)`; a record's range ends after its newline. */
export type ByteRange = [start: number, end: number];

/**
 * Bytes `[start, end)` a writer of ours vouches for, with their CRC-32: whole lines, each one record it
 * wrote itself (after checking it) or read and checked. While the bytes still have that CRC, a reader
 * may parse them without checking every record's shape again (see docs/sessions.md, "Checkpoints").
 */
export type VouchedRange = [start: number, end: number, crc: number];

/** The first range of `vouched` (ascending, disjoint) that ends after `offset`: where an overlap search starts. */
export function firstVouchedAfter(vouched: readonly VouchedRange[], offset: number): number {
  let low = 0;
  let high = vouched.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (vouched[mid][1] <= offset) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** The CRC-32 of `bytes[start, end)` continued from `crc`: the one checksum vouched ranges use. */
export function crcOf(bytes: Uint8Array, start = 0, end = bytes.length, crc = 0): number {
  return crc32(start === 0 && end === bytes.length ? bytes : bytes.subarray(start, end), crc);
}

/**
 * A checkpoint record: an index a writer appends now and then so that a reader can resume from the
 * end of the file (see docs/sessions.md, "Checkpoints"). Nothing in it is trusted unread: the
 * checksum covers the record, `offset` must be where it was found, the record before it must name
 * `leaf`, and every range must hold whole, valid records.
 */
export type Checkpoint = {
  type: 'checkpoint';
  /** The format version. */
  v: 1;
  /** The byte offset of this record's own line. */
  offset: number;
  /** The leaf the file names at this point: the record just before this one puts it there. */
  leaf: string;
  /**
   * Byte ranges (ascending, disjoint, before `offset`) holding every node of the model context at
   * `leaf`: from the latest condensation's first kept turn (or the root) to the leaf. They may hold
   * other whole records too.
   */
  live: ByteRange[];
  /** Nodes in the session up to here, every branch (what a whole load's `graph.size` counts). */
  nodes: number;
  /** Usage billed over those nodes (what a whole load's `graph.usageTotal()` sums). */
  usage: ModelUsage;
  /**
   * `[callId, count]` for every tool call in the context at `leaf` that `started` records named up to
   * here (`graph.startsOf`): a reader resuming from here sees no `started` record before it.
   */
  started: Array<[callId: string, count: number]>;
  /**
   * Ranges (ascending, disjoint, before `offset`) the writer vouches for, covering what it could of the
   * `live` ranges. Absent in checkpoints written before it existed, which older readers ignore (the
   * record's checksum covers it, and they read every field by name).
   */
  vouched?: VouchedRange[];
};

/** Every checkpoint line starts with exactly these bytes; a newline before them marks a line start. */
export const CHECKPOINT_PREFIX = '{"type":"checkpoint",';

const SUM_KEY = ',"sum":"';
const SUM_HEX = 16;

function checksum(body: string): string {
  return createHash('sha256').update(body).digest('hex').slice(0, SUM_HEX);
}

/** The checkpoint's line (without the newline): its fields, then a checksum of everything before it. */
export function encodeCheckpoint(fields: Omit<Checkpoint, 'type' | 'v'>): string {
  const vouched = fields.vouched === undefined || fields.vouched.length === 0 ? '' : `,"vouched":${JSON.stringify(fields.vouched)}`;
  const body = `${CHECKPOINT_PREFIX}"v":1,"offset":${fields.offset},"leaf":${JSON.stringify(fields.leaf)},"live":${JSON.stringify(fields.live)},"nodes":${fields.nodes},"usage":${JSON.stringify(fields.usage)},"started":${JSON.stringify(fields.started)}${vouched}`;
  return `${body}${SUM_KEY}${checksum(body)}"}`;
}

/**
 * The checkpoint a line holds, or why it is not a valid one. `raw` is the line already parsed as JSON
 * (its `type` is "checkpoint"); `line` is its text, which the checksum covers byte for byte.
 */
export function parseCheckpoint(line: string, raw: Record<string, unknown>): Checkpoint | string {
  const at = line.lastIndexOf(SUM_KEY);
  if (at < 0 || line.length !== at + SUM_KEY.length + SUM_HEX + 2 || !line.endsWith('"}'))
    return 'damaged checkpoint record: no checksum at its end';
  if (checksum(line.slice(0, at)) !== line.slice(at + SUM_KEY.length, at + SUM_KEY.length + SUM_HEX)) {
    return 'damaged checkpoint record: its checksum does not match its content';
  }
  if (raw.v !== 1) return `checkpoint record of unknown version ${JSON.stringify(raw.v)}`;
  const { offset, leaf, live, nodes, usage, started } = raw;
  if (!isCount(offset)) return 'malformed checkpoint record: "offset" is not a byte offset';
  if (typeof leaf !== 'string' || leaf === '') return 'malformed checkpoint record: "leaf" is not a node id';
  if (!isCount(nodes)) return 'malformed checkpoint record: "nodes" is not a count';
  const problem = usageProblem(usage);
  if (problem !== null) return `malformed checkpoint record: "usage" ${problem}`;
  const isStart = (entry: unknown) =>
    Array.isArray(entry) && entry.length === 2 && typeof entry[0] === 'string' && entry[0] !== '' && isCount(entry[1]) && entry[1] > 0;
  if (!Array.isArray(started) || !started.every(isStart))
    return 'malformed checkpoint record: "started" is not a list of [call id, count] pairs';
  if (!Array.isArray(live)) return 'malformed checkpoint record: "live" is not a list of byte ranges';
  let previousEnd = 0;
  for (const range of live as unknown[]) {
    if (!Array.isArray(range) || range.length !== 2 || !isCount(range[0]) || !isCount(range[1])) {
      return 'malformed checkpoint record: "live" holds something other than [start, end] byte ranges';
    }
    const [start, end] = range as ByteRange;
    if (start < previousEnd || end <= start || end > offset)
      return 'malformed checkpoint record: its "live" ranges are not ascending, disjoint and before it';
    previousEnd = end;
  }
  if (raw.vouched !== undefined) {
    if (!Array.isArray(raw.vouched)) return 'malformed checkpoint record: "vouched" is not a list of vouched ranges';
    previousEnd = 0;
    for (const range of raw.vouched as unknown[]) {
      if (!Array.isArray(range) || range.length !== 3 || !isCount(range[0]) || !isCount(range[1]) || !isCrc(range[2])) {
        return 'malformed checkpoint record: "vouched" holds something other than [start, end, crc] ranges';
      }
      const [start, end] = range as VouchedRange;
      if (start < previousEnd || end <= start || end > offset)
        return 'malformed checkpoint record: its "vouched" ranges are not ascending, disjoint and before it';
      previousEnd = end;
    }
  }
  return raw as unknown as Checkpoint;
}

function isCrc(value: unknown): value is number {
  return isCount(value) && value <= 0xffffffff;
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}
