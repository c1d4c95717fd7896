import type { ByteRange } from './checkpoint.js';

/**
 * Byte ranges of a session file known to hold only whole, valid records (read and checked, or written
 * by this writer), kept merged. A checkpoint's live range may span a gap between two nodes only if
 * the gap lies inside one of these: a reader parses every line of a range, and must not meet a torn
 * fragment in it.
 */
export class RangeSet {
  private ranges: ByteRange[] = [];

  constructor(ranges: Iterable<ByteRange> = []) {
    for (const [start, end] of ranges) this.add(start, end);
  }

  add(start: number, end: number): void {
    if (end <= start) return;
    const kept: ByteRange[] = [];
    let merged: ByteRange = [start, end];
    for (const range of this.ranges) {
      if (range[1] < merged[0] || range[0] > merged[1]) kept.push(range);
      else merged = [Math.min(range[0], merged[0]), Math.max(range[1], merged[1])];
    }
    kept.push(merged);
    kept.sort((a, b) => a[0] - b[0]);
    this.ranges = kept;
  }

  /** True when `[start, end)` lies inside one known range. */
  covers(start: number, end: number): boolean {
    return this.ranges.some(([from, to]) => from <= start && end <= to);
  }
}
