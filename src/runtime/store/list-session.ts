import type { FileHandle } from 'node:fs/promises';
import type { Migrator } from '../contract/session.js';
import type { Turn } from '../contract/turn.js';
import { decodeRecord, leafPosition, LineProblem } from './records.js';
import { readBackToCheckpoint, TAIL_SEARCH_BYTES } from './tail-read.js';

/** What a listing says of one session file, read from its two ends only. */
export type FileSummary = { leaf: string | null; title: string | null; turns: number | null };

const TITLE_CHARS = 200;
const FIRST_LINE_BYTES = 1024 * 1024;
const NEWLINE = 0x0a;

/**
 * The leaf the file records at its end, its first prompt and how many turns it holds, without parsing
 * the whole file: the records after the last checkpoint (which counts the turns before it), and the
 * first line. A file small enough to be read whole on the way back is counted record by record; a
 * large file without checkpoints gives its leaf and title, and no count (null).
 */
export async function summarizeFile(file: FileHandle, size: number, migrators: readonly Migrator[]): Promise<FileSummary> {
  if (size === 0) return { leaf: null, title: null, turns: 0 };
  const tail = await readBackToCheckpoint(file, size, TAIL_SEARCH_BYTES);
  const title = await readTitle(file, size, tail.start === 0 ? tail.bytes : null, migrators);
  const lines = tail.bytes.toString('utf8', (tail.checkpointAt ?? tail.start) - tail.start).split('\n');
  if (tail.checkpointAt === null && tail.start > 0) {
    // No checkpoint near the end of a large file: the last valid record gives the leaf, and no count.
    // The window's first line may be cut, so it is not read.
    for (let i = lines.length - 1; i >= 1; i--) {
      const record = lines[i].length === 0 ? null : decodeRecord(lines[i], migrators);
      if (record === null || record instanceof LineProblem) continue;
      const leaf = record.type === 'checkpoint' ? record.leaf : leafPosition(record);
      if (leaf !== undefined) return { leaf, title, turns: null };
    }
    return { leaf: null, title, turns: null };
  }
  // From the last checkpoint (which counts what came before it), or the whole of a small file.
  let counted = 0;
  let leaf: string | null = null;
  let damaged = false;
  const after = new Set<string>();
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].length === 0) continue;
    const record = decodeRecord(lines[i], migrators);
    if (record instanceof LineProblem) {
      // A torn last line is a write cut short, not damage to what was recorded before it.
      if (i !== lines.length - 1) damaged = true;
      continue;
    }
    if (record.type === 'checkpoint') {
      if (i === 0 && record.offset === tail.checkpointAt) counted = record.nodes;
      else damaged = true;
      leaf = record.leaf;
      continue;
    }
    if (record.type === 'node') after.add(record.node.id);
    leaf = leafPosition(record) ?? leaf;
  }
  return { leaf, title, turns: damaged ? null : counted + after.size };
}

/** The first prompt's text, from the first line of the file, on one line and cut to a readable length. */
async function readTitle(file: FileHandle, size: number, whole: Buffer | null, migrators: readonly Migrator[]): Promise<string | null> {
  let head = whole;
  if (head === null) {
    head = Buffer.allocUnsafe(Math.min(size, FIRST_LINE_BYTES));
    const { bytesRead } = await file.read(head, 0, head.length, 0);
    head = head.subarray(0, bytesRead);
  }
  const newline = head.indexOf(NEWLINE);
  if (newline < 0) return null;
  const record = decodeRecord(head.toString('utf8', 0, newline), migrators);
  if (record instanceof LineProblem || record.type !== 'node') return null;
  return titleOf(record.node.turn);
}

/** A session's title: the text of its first turn on one line, cut to a readable length; null without text. */
export function titleOf(turn: Turn): string | null {
  const text = turn.blocks
    .flatMap((block) => (block.kind === 'text' ? [block.text] : []))
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (text === '') return null;
  return text.length > TITLE_CHARS ? `${text.slice(0, TITLE_CHARS - 1)}…` : text;
}
