import type { LoadReport } from '../contract/session.js';
import type { LoadedSession } from './types.js';
import { IndusagiError } from '../../errors/index.js';
import { countStarts, SessionGraph, type SessionGraphSource, type WholeSession } from './graph.js';
import { SessionIoError } from './errors.js';
import { decodeWholeBuffer, readWholeFile, readWholeFileSync, type DecodedFile, type ReadOptions } from './read-session.js';
import { readTail, type TailResume } from './tail-read.js';
import { openForReading } from './safe-open.js';
import { restoreRecords } from './restore.js';
import { RangeSet } from './range-set.js';
import { CheckpointWriter, type WriterState } from './checkpoint-writer.js';
import type { ByteRange } from './checkpoint.js';
import { zeroUsage } from '../usage/sum.js';

/** How `loadSession`/`openSession` read: by default from the end of the file; `whole` reads every line. */
export type LoadOptions = { whole?: boolean };

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

export type LoadedSessionFile = LoadedSession & { report: FileLoadReport };

/** A load, with what opening the file for writing needs to know. */
export type Loaded = LoadedSessionFile & {
  exists: boolean;
  endsCleanly: boolean;
  /** For a writer: what it knows of the file, to append and checkpoint. */
  writer: CheckpointWriter | null;
};

/**
 * Loads session files for a `SessionStore`: from the end of the file when the last checkpoint checks
 * out (a graph that holds only the live path), else the whole file, and gives graphs that hold only
 * their live path a way to the rest.
 */
export class SessionFileLoader {
  constructor(
    private readonly readOptions: ReadOptions,
    private readonly checkpointBytes: number,
  ) {}

  /** Reads a session: from the end when it can (verified), else (or when asked) the whole file. */
  async load(id: string, path: string, whole: boolean, forWriter: boolean): Promise<Loaded> {
    return io(id, 'reading the session file', async () => {
      const file = await openForReading(id, path, 'session file');
      if (file === null) return this.missing(id, forWriter);
      try {
        const { size } = await file.stat();
        let reason: string | null = null;
        let bytesRead = 0;
        let decoded: DecodedFile | null = null;
        if (!whole && size > 0) {
          const tail = await readTail(file, size, this.readOptions);
          if (tail.ok) return this.fromTail(id, path, tail, size, forWriter);
          reason = tail.reason;
          bytesRead = tail.bytesRead;
          // Read whole on the way back (a small file): decode those bytes instead of reading them again.
          if (tail.tail !== null && tail.tail.start === 0) decoded = decodeWholeBuffer(tail.tail.bytes, this.readOptions);
        }
        if (decoded === null) {
          decoded = await readWholeFile(file, size, this.readOptions);
          bytesRead += decoded.size;
        }
        return this.fromWhole(id, decoded, reason, bytesRead, forWriter);
      } finally {
        await file.close();
      }
    });
  }

  private missing(id: string, forWriter: boolean): Loaded {
    const report: FileLoadReport = {
      lines: 0,
      records: 0,
      skipped: [],
      orphans: [],
      truncatedTail: false,
      leafFallback: null,
      scope: 'file',
      fullScanReason: null,
      bytes: 0,
    };
    const writer = forWriter
      ? this.newWriter({ size: 0, leaf: null, nodes: 0, usage: zeroUsage(), offsets: new Map(), verified: [] })
      : null;
    return { graph: new SessionGraph(id), report, exists: false, endsCleanly: true, writer };
  }

  private fromTail(id: string, path: string, tail: TailResume, size: number, forWriter: boolean): Loaded {
    const writer = forWriter
      ? this.newWriter({
          size,
          leaf: tail.leaf,
          nodes: tail.nodes,
          usage: tail.usage,
          offsets: tail.offsets,
          verified: tail.verified,
          checkpoint: { offset: tail.checkpoint.offset, live: tail.checkpoint.live, chain: tail.checkpointChain },
        })
      : null;
    const graph = SessionGraph.fromLivePath(id, tail.chain, {
      leaf: tail.leaf,
      usageTotal: tail.usage,
      starts: tail.starts,
      source: this.sourceOf(id, path, writer),
    });
    const report: FileLoadReport = {
      lines: tail.lines,
      records: tail.lines,
      skipped: [],
      orphans: [],
      truncatedTail: false,
      leafFallback: null,
      scope: 'tail',
      fullScanReason: null,
      bytes: tail.bytesRead,
    };
    return { graph, report, exists: true, endsCleanly: true, writer };
  }

  private fromWhole(id: string, decoded: DecodedFile, reason: string | null, bytesRead: number, forWriter: boolean): Loaded {
    const { graph, orphans, leafFallback, rejected } = SessionGraph.restore(id, decoded.records);
    // A rejected summary decoded but is damaged all the same: it is reported as a skipped line.
    const skipped = [...decoded.skipped, ...rejected.map((summary) => ({ line: decoded.lineOf[summary.index], reason: summary.reason }))];
    skipped.sort((a, b) => a.line - b.line);
    const report: FileLoadReport = {
      lines: decoded.lines,
      records: decoded.records.length + decoded.checkpoints - rejected.length,
      skipped,
      orphans: orphans.map((orphan) => ({ id: orphan.id, parent: orphan.parent, line: decoded.lineOf[orphan.index] })),
      truncatedTail: decoded.truncatedTail,
      leafFallback,
      scope: 'file',
      fullScanReason: reason,
      bytes: bytesRead,
    };
    const writer = forWriter
      ? this.newWriter({
          size: decoded.size,
          leaf: graph.leaf,
          nodes: graph.size,
          usage: graph.usageTotal(),
          offsets: offsetsOf(decoded),
          verified: decoded.verified,
        })
      : null;
    return { graph, report, exists: true, endsCleanly: decoded.endsCleanly, writer };
  }

  private newWriter(
    known: Omit<WriterState, 'verified' | 'checkpoint' | 'stale'> & { verified: ByteRange[]; checkpoint?: WriterState['checkpoint'] },
  ): CheckpointWriter {
    const state: WriterState = { ...known, checkpoint: known.checkpoint ?? null, stale: false, verified: new RangeSet(known.verified) };
    return new CheckpointWriter(state, this.checkpointBytes);
  }

  /**
   * Where a graph that holds only its live path loads the rest: a whole read of its file, now (the
   * graph asked asynchronously) or synchronously (a method that cannot wait). A writer learns from it
   * where every node sits, for the checkpoints it writes later.
   */
  private sourceOf(id: string, path: string, writer: CheckpointWriter | null): SessionGraphSource {
    const nodesOf = (decoded: DecodedFile | null): WholeSession => {
      if (decoded === null) return { nodes: [], starts: new Map() };
      writer?.learn(offsetsOf(decoded), decoded.verified);
      return { nodes: restoreRecords(decoded.records).nodes.values(), starts: countStarts(decoded.records) };
    };
    return {
      loadAll: async () =>
        nodesOf(
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
      loadAllSync: () => {
        let decoded: DecodedFile | null;
        try {
          decoded = readWholeFileSync(id, path, this.readOptions);
        } catch (error) {
          if (IndusagiError.isInstance(error)) throw error;
          throw new SessionIoError(id, 'reading the whole session file', error);
        }
        return nodesOf(decoded);
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
function offsetsOf(decoded: DecodedFile): Map<string, ByteRange> {
  const offsets = new Map<string, ByteRange>();
  decoded.records.forEach((record, i) => {
    if (record.type === 'node' && !offsets.has(record.node.id)) offsets.set(record.node.id, [decoded.starts[i], decoded.ends[i]]);
  });
  return offsets;
}
