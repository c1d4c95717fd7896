import { closeSync, fstatSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import type { Migrator, SessionRecord, SkippedLine } from '../contract/session.js';
import { hashNode } from './hash.js';
import { decodeRecord, LineProblem } from './records.js';
import { driveAsync, driveBuffer, driveSync, scanLines, type OnLine, type ReadRequest } from './line-scan.js';
import { openForReadingSync } from './safe-open.js';
import type { ByteRange } from './checkpoint.js';

/** Everything decoded from one whole session file, before the graph is rebuilt. */
export type DecodedFile = {
  records: SessionRecord[];
  /** The 1-based line number of each record, index for index. */
  lineOf: number[];
  /** The byte range of each record's line, newline included: `[starts[i], ends[i])`. */
  starts: number[];
  ends: number[];
  /** Lines read, skipped ones included. */
  lines: number;
  /** Valid checkpoint lines: decoded, but not history. */
  checkpoints: number;
  skipped: SkippedLine[];
  /** The file ended in a partial line (a write cut short); it was skipped. */
  truncatedTail: boolean;
  /** The file is empty or ends with a newline: the next append needs no leading separator. */
  endsCleanly: boolean;
  /** Bytes decoded: the file's size when the read began (a writer appending meanwhile adds after it). */
  size: number;
  /** Runs of lines that all decoded (records and checkpoints), as byte ranges. */
  verified: ByteRange[];
};

export type ReadOptions = { migrators: readonly Migrator[]; verify: boolean };

/** Reads a whole session file through an open handle, line by line, without any lock. */
export async function readWholeFile(file: FileHandle, size: number, options: ReadOptions): Promise<DecodedFile> {
  const decoder = new FileDecoder(size, options);
  return decoder.finish(await driveAsync(file, decoder.scan()));
}

/**
 * The same, synchronously, from the path (never through a link): for graph methods that load the whole
 * session on demand and cannot wait. Null when the file is gone.
 */
export function readWholeFileSync(sessionId: string, path: string, options: ReadOptions): DecodedFile | null {
  const fd = openForReadingSync(sessionId, path);
  if (fd === null) return null;
  try {
    const decoder = new FileDecoder(fstatSync(fd).size, options);
    return decoder.finish(driveSync(fd, decoder.scan()));
  } finally {
    closeSync(fd);
  }
}

/** The same, over the file's bytes already in memory (a tail read that reached the start of the file). */
export function decodeWholeBuffer(bytes: Buffer, options: ReadOptions): DecodedFile {
  const decoder = new FileDecoder(bytes.length, options);
  return decoder.finish(driveBuffer(bytes, 0, decoder.scan()));
}

class FileDecoder {
  private readonly decoded: DecodedFile;

  constructor(
    size: number,
    private readonly options: ReadOptions,
  ) {
    this.decoded = {
      records: [],
      lineOf: [],
      starts: [],
      ends: [],
      lines: 0,
      checkpoints: 0,
      skipped: [],
      truncatedTail: false,
      endsCleanly: true,
      size,
      verified: [],
    };
  }

  scan(): Generator<ReadRequest, Parameters<OnLine> | null, number> {
    return scanLines(0, this.decoded.size, (buffer, start, end, at) =>
      this.line(buffer.toString('utf8', start, end), at, at + end - start + 1, false),
    );
  }

  finish(rest: Parameters<OnLine> | null): DecodedFile {
    if (rest !== null) {
      const [buffer, start, end, at] = rest;
      this.decoded.endsCleanly = false;
      this.line(buffer.toString('utf8', start, end), at, at + end - start, true);
    }
    return this.decoded;
  }

  private line(line: string, start: number, end: number, unterminated: boolean): void {
    const { decoded, options } = this;
    const lineNumber = ++decoded.lines;
    if (line.length === 0) {
      decoded.skipped.push({ line: lineNumber, reason: 'empty line' });
      return;
    }
    const record = decodeRecord(line, options.migrators);
    if (record instanceof LineProblem) {
      // Only the last line can be a write cut short; garbage anywhere else is reported as such.
      if (unterminated && record.unparsable) {
        decoded.truncatedTail = true;
        decoded.skipped.push({ line: lineNumber, reason: `incomplete final line (a write cut short): ${record.reason}` });
      } else {
        decoded.skipped.push({ line: lineNumber, reason: record.reason });
      }
      return;
    }
    if (options.verify && record.type === 'node' && hashNode(record.node) !== record.node.id) {
      decoded.skipped.push({ line: lineNumber, reason: `node ${record.node.id} does not match the hash of its content` });
      return;
    }
    const run = decoded.verified.at(-1);
    if (run !== undefined && run[1] === start) run[1] = end;
    else decoded.verified.push([start, end]);
    if (record.type === 'checkpoint') {
      decoded.checkpoints++;
      return;
    }
    decoded.records.push(record);
    decoded.lineOf.push(lineNumber);
    decoded.starts.push(start);
    decoded.ends.push(end);
  }
}
