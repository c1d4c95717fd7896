import { readSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';

/** One read the scanner needs: fill `buffer` from `offset`, `length` bytes, from file position `position`. */
export type ReadRequest = { buffer: Buffer; offset: number; length: number; position: number };

/** Receives one whole line: `buffer[start, end)` without its newline, found at byte `at` of the file. */
export type OnLine = (buffer: Buffer, start: number, end: number, at: number) => void;

// Profiling the loader: decoding a session in 8 MiB chunks spent ~36% of its time turning each chunk
// into one giant string and ~29% collecting it. Lines decoded one by one straight from a 64 KiB buffer
// stay small and die young; the whole load takes about 0.6x the time (bench/store.bench.ts).
const CHUNK_BYTES = 64 * 1024;
const NEWLINE = 0x0a;

/**
 * Reads bytes `[from, to)` of a file chunk by chunk and hands every newline-terminated line to
 * `onLine`. Returns the unterminated rest (a write cut short, or a line still being written) as
 * `{ buffer, start, end, at }`, or null when the range ends on a newline. A generator yielding its
 * reads, so one scanner serves both the asynchronous and the synchronous driver.
 */
export function* scanLines(from: number, to: number, onLine: OnLine): Generator<ReadRequest, Parameters<OnLine> | null, number> {
  let buffer = Buffer.allocUnsafe(Math.max(1, Math.min(CHUNK_BYTES, to - from)));
  let filled = 0;
  // File position of buffer[0].
  let base = from;
  for (let position = from; position < to;) {
    if (filled === buffer.length) {
      // One line longer than the buffer: grow rather than split it.
      const bigger = Buffer.allocUnsafe(buffer.length * 2);
      buffer.copy(bigger, 0, 0, filled);
      buffer = bigger;
    }
    const bytesRead = yield { buffer, offset: filled, length: Math.min(buffer.length - filled, to - position), position };
    if (bytesRead === 0) break; // Truncated under us: what there is is all there is.
    position += bytesRead;
    const end = filled + bytesRead;
    let start = 0;
    for (let newline = buffer.indexOf(NEWLINE, filled); newline >= 0 && newline < end; newline = buffer.indexOf(NEWLINE, start)) {
      onLine(buffer, start, newline, base + start);
      start = newline + 1;
    }
    buffer.copy(buffer, 0, start, end);
    filled = end - start;
    base += start;
  }
  return filled > 0 ? [buffer, 0, filled, base] : null;
}

/** Runs a scan against a file descriptor with synchronous reads. */
export function driveSync<T>(fd: number, scan: Generator<ReadRequest, T, number>): T {
  let step = scan.next();
  while (!step.done) {
    const { buffer, offset, length, position } = step.value;
    step = scan.next(readSync(fd, buffer, offset, length, position));
  }
  return step.value;
}

/** Runs a scan against an open file. */
export async function driveAsync<T>(file: FileHandle, scan: Generator<ReadRequest, T, number>): Promise<T> {
  let step = scan.next();
  while (!step.done) {
    const { buffer, offset, length, position } = step.value;
    step = scan.next((await file.read(buffer, offset, length, position)).bytesRead);
  }
  return step.value;
}

/** Runs a scan over bytes already in memory (`bytes[0]` is file position `origin`). */
export function driveBuffer<T>(bytes: Buffer, origin: number, scan: Generator<ReadRequest, T, number>): T {
  let step = scan.next();
  while (!step.done) {
    const { buffer, offset, length, position } = step.value;
    step = scan.next(bytes.copy(buffer, offset, position - origin, position - origin + length));
  }
  return step.value;
}
