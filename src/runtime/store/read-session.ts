import type { Migrator, SessionRecord, SkippedLine } from '../contract/session.js';
import { hashNode } from './hash.js';
import { decodeRecord, LineProblem } from './records.js';
import { openForReading } from './safe-open.js';

/** Everything decoded from one session file, before the graph is rebuilt. */
export type DecodedFile = {
  exists: boolean;
  records: SessionRecord[];
  /** The 1-based line number of each record, index for index. */
  lineOf: number[];
  lines: number;
  /** Bytes read (the file's size when it was opened, less anything truncated under the reader). */
  bytes: number;
  skipped: SkippedLine[];
  /** The file ended in a partial line (a write cut short); it was skipped. */
  truncatedTail: boolean;
  /** The file is missing, empty, or ends with a newline: the next append needs no leading separator. */
  endsCleanly: boolean;
};

export type ReadOptions = { migrators: readonly Migrator[]; verify: boolean };

// Large enough that decoding is dominated by JSON.parse, small enough that a session of any size is
// read without one giant string (V8 caps a string near 512 MiB).
const CHUNK_BYTES = 8 * 1024 * 1024;
const NEWLINE = 0x0a;

/** Reads a session file line by line, without any lock. A missing file decodes as empty. */
export async function readSessionFile(sessionId: string, path: string, options: ReadOptions): Promise<DecodedFile> {
  const decoded: DecodedFile = {
    exists: false,
    records: [],
    lineOf: [],
    lines: 0,
    bytes: 0,
    skipped: [],
    truncatedTail: false,
    endsCleanly: true,
  };
  const handle = await openForReading(sessionId, path, 'session file');
  if (handle === null) return decoded;
  decoded.exists = true;
  try {
    // Reads what the file held when opened: a writer appending meanwhile adds whole records after it,
    // which the next load sees. Sized to the file when small, so small loads do not churn 8 MiB buffers.
    const { size } = await handle.stat();
    let buffer = Buffer.allocUnsafe(Math.max(1, Math.min(CHUNK_BYTES, size)));
    let filled = 0;
    for (let remaining = size; remaining > 0; ) {
      if (filled === buffer.length) {
        // One line longer than the buffer: grow rather than split it.
        const bigger = Buffer.allocUnsafe(buffer.length * 2);
        buffer.copy(bigger, 0, 0, filled);
        buffer = bigger;
      }
      const { bytesRead } = await handle.read(buffer, filled, Math.min(buffer.length - filled, remaining), null);
      if (bytesRead === 0) break; // Truncated under us: decode what there is.
      remaining -= bytesRead;
      decoded.bytes += bytesRead;
      const end = filled + bytesRead;
      const lastNewline = buffer.lastIndexOf(NEWLINE, end - 1);
      if (lastNewline < 0) {
        filled = end;
        continue;
      }
      decodeLines(buffer.toString('utf8', 0, lastNewline), decoded, options);
      buffer.copy(buffer, 0, lastNewline + 1, end);
      filled = end - lastNewline - 1;
    }
    if (filled > 0) {
      decoded.endsCleanly = false;
      decodeLine(buffer.toString('utf8', 0, filled), decoded, options, true);
    }
  } finally {
    await handle.close();
  }
  return decoded;
}

/** `text` holds whole lines separated by `\n`, without the final one's newline. */
function decodeLines(text: string, decoded: DecodedFile, options: ReadOptions): void {
  let start = 0;
  for (;;) {
    const newline = text.indexOf('\n', start);
    if (newline < 0) {
      decodeLine(start === 0 ? text : text.slice(start), decoded, options, false);
      return;
    }
    decodeLine(text.slice(start, newline), decoded, options, false);
    start = newline + 1;
  }
}

function decodeLine(line: string, decoded: DecodedFile, options: ReadOptions, unterminated: boolean): void {
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
  decoded.records.push(record);
  decoded.lineOf.push(lineNumber);
}
