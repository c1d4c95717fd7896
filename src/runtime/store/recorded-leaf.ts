import type { Migrator } from '../contract/session.js';
import { decodeRecord, LineProblem } from './records.js';
import { openForReading } from './safe-open.js';

const FIRST_WINDOW = 64 * 1024;

/**
 * The leaf a session file records at its end (the last valid record: a head's leaf or a node's id),
 * read backwards from the end so that listing sessions never parses whole files. It matches the loaded
 * leaf unless the file is damaged; `loadSessionWithReport` is the authority then.
 */
export async function readRecordedLeaf(sessionId: string, path: string, size: number, migrators: readonly Migrator[]): Promise<string | null> {
  if (size === 0) return null;
  const file = await openForReading(sessionId, path, 'session file');
  if (file === null) return null;
  try {
    for (let window = FIRST_WINDOW; ; window *= 4) {
      const start = Math.max(0, size - window);
      const bytes = Buffer.allocUnsafe(size - start);
      const { bytesRead } = await file.read(bytes, 0, bytes.length, start);
      const lines = bytes.toString('utf8', 0, bytesRead).split('\n');
      // Unless the window reaches the start of the file, its first line may be cut: the next, wider window reads it whole.
      const first = start === 0 ? 0 : 1;
      for (let i = lines.length - 1; i >= first; i--) {
        if (lines[i].length === 0) continue;
        const record = decodeRecord(lines[i], migrators);
        if (record instanceof LineProblem || record.type === 'started') continue;
        return record.type === 'head' ? record.leaf : record.node.id;
      }
      if (start === 0) return null;
    }
  } finally {
    await file.close();
  }
}
