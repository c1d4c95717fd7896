import { textWidth, truncateToWidth } from './width.js';

/** What the live region shows: its lines, top to bottom, and where the terminal cursor goes (none: hidden). */
export type Frame = { lines: string[]; cursor?: { row: number; col: number } };

/** Lines of the transcript, laid out for a width; called again when the width changes. */
export type Printable = (width: number) => string[];

/** The terminal the screen draws on: a TTY write stream. */
export type ScreenOutput = {
  write(text: string): unknown;
  columns?: number;
  rows?: number;
  on(event: 'resize', listener: () => void): unknown;
  off(event: 'resize', listener: () => void): unknown;
};

// Synchronized output (DEC mode 2026): the terminal shows a frame at once, never half drawn.
// Terminals that do not know the mode ignore it.
const BEGIN = '\x1b[?2026h';
const END = '\x1b[?2026l';
const up = (n: number) => (n > 0 ? `\x1b[${n}A` : '');
const down = (n: number) => (n > 0 ? `\x1b[${n}B` : '');

/**
 * A persistent terminal screen: a transcript that grows upwards into the scrollback, and under it a
 * live region (the run's activity, prompts, the editor, the status line) redrawn in place.
 *
 * Redrawing is differential: a new frame is compared with the last one and only the lines from the
 * first to the last that changed are rewritten (a spinner tick rewrites one line), inside synchronized
 * output, so nothing flickers. Live lines are cut to one column less than the width, so the terminal never wraps
 * them and the cursor never sits in the last column's pending wrap: the screen always knows which row
 * it is on. The live region is kept shorter than the terminal, whose cursor cannot go above its top.
 *
 * The transcript is kept as `Printable`s: on a resize the screen and scrollback are cleared and the
 * whole transcript is laid out again for the new width, then the live region under it.
 */
export class Screen {
  private readonly printed: Printable[] = [];
  private live: () => Frame = () => ({ lines: [] });
  /** The live lines as last drawn. */
  private drawn: string[] = [];
  /** Row of the terminal cursor within the live region, as last left. */
  private cursorRow = 0;
  private scheduled: NodeJS.Immediate | null = null;
  private stopped = false;
  private readonly onResize = () => this.redrawAll();

  constructor(private readonly out: ScreenOutput) {
    out.on('resize', this.onResize);
  }

  get width(): number {
    return Math.max(20, this.out.columns || 80);
  }

  get height(): number {
    return Math.max(5, this.out.rows || 24);
  }

  /** What the live region shows; called at every frame. */
  setLive(render: () => Frame): void {
    this.live = render;
    this.refresh();
  }

  /** Adds lines to the transcript, above the live region, now. */
  print(render: Printable): void {
    // Once stopped there is no live region to keep below: lines are written as they are, never lost.
    if (this.stopped) {
      for (const line of render(this.width)) this.out.write(`${line}\r\n`);
      return;
    }
    this.printed.push(render);
    this.draw(render(this.width), false);
  }

  /** Redraws the live region soon; calls in one turn of the event loop make one frame. */
  refresh(): void {
    if (this.stopped || this.scheduled !== null) return;
    this.scheduled = setImmediate(() => {
      this.scheduled = null;
      this.draw(null, false);
    });
  }

  /** Lays the whole transcript out again (a resize, or a change in how it is shown) and redraws all. */
  redrawAll(): void {
    if (this.stopped) return;
    this.draw(null, true);
  }

  /** Erases the live region and stops redrawing; the transcript stays, and later prints are plain lines. */
  stop(): void {
    if (this.stopped) return;
    if (this.scheduled !== null) clearImmediate(this.scheduled);
    this.out.off('resize', this.onResize);
    this.out.write(`${BEGIN}${up(this.cursorRow)}\r\x1b[J\x1b[?25h${END}`);
    this.stopped = true;
  }

  private draw(newlyPrinted: string[] | null, full: boolean): void {
    if (this.stopped) return;
    if (this.scheduled !== null) {
      clearImmediate(this.scheduled);
      this.scheduled = null;
    }
    const width = this.width;
    const frame = this.live();
    let lines = frame.lines.map((line) => (textWidth(line) < width ? line : truncateToWidth(line, width - 1)));
    let cursor = frame.cursor;
    // Taller than the terminal: the top goes (the editor and the status line are at the bottom).
    const room = this.height - 1;
    if (lines.length > room) {
      const cut = lines.length - room;
      lines = lines.slice(cut);
      if (cursor !== undefined) cursor = cursor.row >= cut ? { row: cursor.row - cut, col: cursor.col } : undefined;
    }

    let out = BEGIN;
    if (full) {
      out += '\x1b[2J\x1b[3J\x1b[H';
      // Laid out afresh: the width changed, or how something is shown did (tool results expanded).
      for (const render of this.printed) for (const line of render(width)) out += `${line}\r\n`;
      this.drawn = [];
      this.cursorRow = 0;
    } else if (newlyPrinted !== null) {
      out += `${up(this.cursorRow)}\r\x1b[J`;
      for (const line of newlyPrinted) out += `${line}\r\n`;
      this.drawn = [];
      this.cursorRow = 0;
    }
    // The rows that differ: from the first change to the last (or to the end when the region grows).
    const drawn = this.drawn;
    const common = Math.min(lines.length, drawn.length);
    let from = 0;
    while (from < common && lines[from] === drawn[from]) from++;
    let to = lines.length - 1;
    if (lines.length <= drawn.length) while (to >= from && lines[to] === drawn[to]) to--;
    if (from <= to) {
      // A row past the last one drawn is reached by starting a new line below it.
      out +=
        from < drawn.length || drawn.length === 0
          ? `${this.moveRows(from - this.cursorRow)}\r`
          : `${this.moveRows(drawn.length - 1 - this.cursorRow)}\r\n`;
      for (let i = from; i <= to; i++) out += `${i > from ? '\r\n' : ''}\x1b[2K${lines[i]}`;
      this.cursorRow = to;
    }
    // Rows the region no longer has: cleared from the first of them down.
    if (drawn.length > lines.length) {
      out += `${this.moveRows(lines.length - this.cursorRow)}\r\x1b[J`;
      this.cursorRow = lines.length;
    }
    this.drawn = lines;
    this.out.write(this.placeCursor(out, lines.length, cursor));
  }

  private moveRows(delta: number): string {
    return delta < 0 ? up(-delta) : down(delta);
  }

  /** Ends the frame with the cursor where the live region wants it, shown, or hidden when it wants none. */
  private placeCursor(out: string, lineCount: number, cursor: Frame['cursor']): string {
    if (cursor === undefined || lineCount === 0) {
      // Parked on the region's last row, where the next frame expects to find it.
      const last = Math.max(0, lineCount - 1);
      out += this.moveRows(last - this.cursorRow);
      this.cursorRow = last;
      return `${out}\x1b[?25l${END}`;
    }
    const row = Math.min(cursor.row, lineCount - 1);
    out += `${this.moveRows(row - this.cursorRow)}\x1b[${Math.min(cursor.col, this.width - 1) + 1}G\x1b[?25h`;
    this.cursorRow = row;
    return `${out}${END}`;
  }
}
