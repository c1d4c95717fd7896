import type { LoadReport, SessionNode, SessionRecord } from '../contract/session.js';
import type { LivePathSession, StoredSession } from './types.js';
import type { LoadedSession } from './load-session.js';
import { IndusagiError } from '../../errors/index.js';
import { SessionGraph } from './graph.js';
import { SessionIoError } from './errors.js';
import { decodeWholeBuffer, readWholeFile, readWholeFileSync, type DecodedFile, type ReadOptions } from './read-session.js';
import { readTail, type TailResume } from './tail-read.js';
import { openForReading } from './safe-open.js';
import { RangeSet } from './range-set.js';
import { CheckpointWriter, type WriterState } from './checkpoint-writer.js';
import type { ByteRange } from './checkpoint.js';
import { zeroUsage } from '../usage/sum.js';

/** A file store's load report: the `LoadReport`, and how much of the file the load read. */
export type FileLoadReport = LoadReport & {
  /**
   * `tail`: the load read from the end of the file: the records after the last checkpoint and the
   * ranges holding the live path. The rest was not read, so damage there is not reported (it cannot
   * change the context at the leaf either). `file`: every line was read and the report covers them all.
   * `lines` and `records` count what was read.
   */
  scope: 'tail' | 'file';
  /** Why a load that was not asked to read the whole file did, or null. */
  fullScanReason: string | null;
  /** Bytes read from the file. */
  bytes: number;
};

export type LoadedSessionFile = LoadedSession<FileLoadReport>;

/** What a writer of the file knows, from a read or its own writes: where records sit, and its own graph of the session. */
export type Known = {
  writer: CheckpointWriter;
  /** The session as the file holds it (the live path, at least), kept in step with each append: what checkpoints are made from. */
  index: SessionGraph;
  /** Whether the file ends with a newline, as the read found it. */
  endsCleanly: boolean;
};

/** One read of a session file: the records for the caller, and (built on demand) what a writer needs to go on. */
export type FileRead = {
  stored: (StoredSession | LivePathSession) & { report: FileLoadReport };
  known(): Known;
};

/** Whole reads of the file, now and synchronously; each tells `learn` what it decoded. */
type WholeReads = { read(): Promise<SessionRecord[]>; readSync(): SessionRecord[] };

/**
 * Loads session files for a `SessionStore`: from the end of the file when the last checkpoint checks
 * out (the live path only), else the whole file.
 */
export class SessionFileLoader {
  constructor(
    private readonly readOptions: ReadOptions,
    private readonly checkpointBytes: number,
  ) {}

  /**
   * Reads a session: from the end when it can (verified), else (or when asked) the whole file. `learn`
   * hears of every whole read, this one's and later ones' (a live-path graph loading the rest), so a
   * writer can learn where every node sits.
   */
  async load(id: string, path: string, whole: boolean, learn: (decoded: DecodedFile) => void): Promise<FileRead> {
    const reads = this.wholeReads(id, path, learn);
    return io(id, 'reading the session file', async () => {
      const file = await openForReading(id, path, 'session file');
      if (file === null) return this.missing(id);
      try {
        const { size } = await file.stat();
        let reason: string | null = null;
        let bytesRead = 0;
        let decoded: DecodedFile | null = null;
        if (!whole && size > 0) {
          const tail = await readTail(file, size, this.readOptions);
          if (tail.ok) return this.fromTail(id, tail, size, reads);
          reason = tail.reason;
          bytesRead = tail.bytesRead;
          // Read whole on the way back (a small file): decode those bytes instead of reading them again.
          if (tail.tail !== null && tail.tail.start === 0) decoded = decodeWholeBuffer(tail.tail.bytes, this.readOptions);
        }
        if (decoded === null) {
          decoded = await readWholeFile(file, size, this.readOptions);
          bytesRead += decoded.size;
        }
        learn(decoded);
        return this.fromWhole(id, decoded, reason, bytesRead);
      } finally {
        await file.close();
      }
    });
  }

  private missing(id: string): FileRead {
    const report: FileLoadReport = { ...cleanReport(), scope: 'file', fullScanReason: null, bytes: 0 };
    const known = (): Known => ({
      writer: this.newWriter({
        size: 0,
        leaf: null,
        nodes: 0,
        usage: zeroUsage(),
        offsets: new Map(),
        verified: [],
        vouched: [],
        vouching: { start: 0, crc: 0 },
      }),
      index: new SessionGraph(id),
      endsCleanly: true,
    });
    return { stored: { records: [], report }, known };
  }

  private fromTail(id: string, tail: TailResume, size: number, reads: WholeReads): FileRead {
    const records = liveRecords(tail.chain, tail.starts);
    const report: FileLoadReport = {
      ...cleanReport(),
      lines: tail.lines,
      records: tail.lines,
      scope: 'tail',
      fullScanReason: null,
      bytes: tail.bytesRead,
    };
    const stored: LivePathSession & { report: FileLoadReport } = {
      records,
      report,
      leaf: tail.leaf,
      usageTotal: tail.usage,
      readAllSync: reads.readSync,
    };
    if (tail.tripped !== null) stored.tripped = tail.tripped;
    const known = (): Known => ({
      writer: this.newWriter({
        size,
        leaf: tail.leaf,
        nodes: tail.nodes,
        usage: tail.usage,
        offsets: tail.offsets(),
        verified: tail.verified,
        checkpoint: { offset: tail.checkpoint.offset, live: tail.checkpoint.live, chain: tail.checkpointChain() },
        // What the checkpoint vouched for, passed on (every reader checks the CRCs before it relies on them).
        vouched: [...(tail.checkpoint.vouched ?? [])],
        vouching: tail.vouchable ?? { start: size, crc: 0 },
      }),
      index: SessionGraph.fromLivePath(id, records, {
        leaf: tail.leaf,
        tripped: stored.tripped,
        rest: reads.read,
        restSync: reads.readSync,
      }),
      endsCleanly: true,
    });
    return { stored, known };
  }

  private fromWhole(id: string, decoded: DecodedFile, reason: string | null, bytesRead: number): FileRead {
    // What rebuilding the graph finds (orphans, a fallback leaf, rejected summaries) is added by `graphOf`.
    const report: FileLoadReport = {
      lines: decoded.lines,
      records: decoded.records.length + decoded.checkpoints,
      skipped: decoded.skipped,
      orphans: [],
      truncatedTail: decoded.truncatedTail,
      leafFallback: null,
      scope: 'file',
      fullScanReason: reason,
      bytes: bytesRead,
    };
    const known = (): Known => {
      const index = SessionGraph.restore(id, decoded.records).graph;
      const writer = this.newWriter({
        size: decoded.size,
        leaf: index.leaf,
        nodes: index.size,
        usage: index.usageTotal(),
        offsets: offsetsOf(decoded),
        verified: decoded.verified,
        // A whole read vouches for nothing before the end: it may have skipped lines, or upgraded them.
        vouched: [],
        vouching: { start: decoded.size, crc: 0 },
      });
      return { writer, index, endsCleanly: decoded.endsCleanly };
    };
    return { stored: { records: decoded.records, report, lines: decoded.lineOf }, known };
  }

  private newWriter(
    known: Omit<WriterState, 'verified' | 'checkpoint' | 'stale'> & { verified: ByteRange[]; checkpoint?: WriterState['checkpoint'] },
  ): CheckpointWriter {
    const state: WriterState = { ...known, checkpoint: known.checkpoint ?? null, stale: false, verified: new RangeSet(known.verified) };
    return new CheckpointWriter(state, this.checkpointBytes);
  }

  /** Every record of the file, read now or synchronously (for graph methods that cannot wait); a missing file has none. */
  private wholeReads(id: string, path: string, learn: (decoded: DecodedFile) => void): WholeReads {
    const recordsOf = (decoded: DecodedFile | null): SessionRecord[] => {
      if (decoded === null) return [];
      learn(decoded);
      return decoded.records;
    };
    return {
      read: async () =>
        recordsOf(
          await io(id, 'reading the whole session file', async () => {
            const file = await openForReading(id, path, 'session file');
            if (file === null) return null;
            try {
              return await readWholeFile(file, (await file.stat()).size, this.readOptions);
            } finally {
              await file.close();
            }
          }),
        ),
      readSync: () => {
        try {
          return recordsOf(readWholeFileSync(id, path, this.readOptions));
        } catch (error) {
          if (IndusagiError.isInstance(error)) throw error;
          throw new SessionIoError(id, 'reading the whole session file', error);
        }
      },
    };
  }
}

/** Runs file-system work, turning system errors into `SessionIoError` (typed errors pass through). */
export async function io<T>(id: string, operation: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (IndusagiError.isInstance(error)) throw error;
    throw new SessionIoError(id, operation, error);
  }
}

/** Where each node of a whole read sits: its first record wins, as it does in the graph. */
export function offsetsOf(decoded: DecodedFile): Map<string, ByteRange> {
  const offsets = new Map<string, ByteRange>();
  decoded.records.forEach((record, i) => {
    if (record.type === 'node' && !offsets.has(record.node.id)) offsets.set(record.node.id, [decoded.starts[i], decoded.ends[i]]);
  });
  return offsets;
}

/** The live path as records: its nodes, root side first, and one `started` record per start of their calls. */
function liveRecords(chain: readonly SessionNode[], starts: ReadonlyMap<string, number>): SessionRecord[] {
  const records: SessionRecord[] = [];
  for (let i = chain.length - 1; i >= 0; i--) records.push({ type: 'node', node: chain[i] });
  for (const [callId, count] of starts) records.push({ type: 'started', callIds: Array<string>(count).fill(callId) });
  return records;
}

function cleanReport(): LoadReport {
  return { lines: 0, records: 0, skipped: [], orphans: [], truncatedTail: false, leafFallback: null };
}
