// A small VT100/xterm screen model for tests: feed it what a program wrote to its terminal and read the
// screen a person would see (and the scrollback above it). It knows what terminal programs write to
// draw in place: carriage return, line feed (scrolling at the bottom), backspace, tab, cursor moves
// (CUU/CUD/CUF/CUB, CHA, CUP), erase in display and line (ED 0/1/2/3, EL 0/1/2), save and restore of
// the cursor, and the pending wrap of the last column. Colours and modes (SGR, DEC private modes) and
// OSC strings are read and dropped. Wide characters take two cells. Like xterm, it does not reflow
// lines on a resize: it keeps the cells and moves the top rows into the scrollback when rows go.
import { clusterWidth, graphemes } from '../../src/cli/tui/width.js';

/** The cell to the right of a wide character. */
const CONTINUATION = '';

export class VtScreen {
  /** Rows of cells; each cell one grapheme cluster (or `CONTINUATION`). */
  private grid: string[][];
  /** Lines scrolled off the top, oldest first. */
  readonly scrollback: string[] = [];
  row = 0;
  col = 0;
  cursorVisible = true;
  private pendingWrap = false;
  private saved = { row: 0, col: 0 };
  /** An escape sequence cut between two feeds. */
  private partial = '';

  constructor(
    public cols: number,
    public rows: number,
  ) {
    this.grid = Array.from({ length: rows }, () => this.blankRow());
  }

  /** Applies output, in order; a sequence split across calls is completed by the next. */
  feed(data: string): void {
    let text = this.partial + data;
    this.partial = '';
    let at = 0;
    while (at < text.length) {
      const ch = text[at];
      if (ch === '\x1b') {
        const used = this.escape(text, at);
        if (used === 0) {
          this.partial = text.slice(at);
          return;
        }
        at += used;
        continue;
      }
      if (ch === '\r') this.carriageReturn();
      else if (ch === '\n') this.lineFeed();
      else if (ch === '\b') this.moveTo(this.row, this.col - 1);
      else if (ch === '\t') this.moveTo(this.row, Math.min(this.cols - 1, (Math.floor(this.col / 8) + 1) * 8));
      else if (ch === '\x07' || ch < ' ') {
        // Bell and other controls draw nothing.
      } else {
        // A run of printable text up to the next control character.
        let end = at;
        while (end < text.length && text[end] >= ' ' && text[end] !== '\x7f') end++;
        for (const cluster of graphemes(text.slice(at, end))) this.put(cluster);
        at = end;
        continue;
      }
      at++;
    }
    text = '';
  }

  /** Changes the size as a terminal window does (no reflow); rows lost at the top go to the scrollback. */
  resize(cols: number, rows: number): void {
    const lines = this.grid.map((row) => (row.length > cols ? row.slice(0, cols) : [...row, ...Array(cols - row.length).fill(' ')]));
    while (lines.length > rows) {
      // xterm keeps the cursor's row on screen: rows above it go first, then empty rows below it.
      if (this.row > 0) {
        this.scrollback.push(rowText(lines.shift()!));
        this.row--;
      } else lines.pop();
    }
    while (lines.length < rows) lines.push(Array(cols).fill(' '));
    this.grid = lines;
    this.cols = cols;
    this.rows = rows;
    this.moveTo(this.row, this.col);
  }

  /** The screen's rows as text, right-trimmed. */
  lines(): string[] {
    return this.grid.map(rowText);
  }

  /** The screen's rows, trailing empty rows dropped, as one string. */
  text(): string {
    const lines = this.lines();
    while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
    return lines.join('\n');
  }

  /** The scrollback and the screen, one line each. */
  all(): string[] {
    return [...this.scrollback, ...this.lines()];
  }

  private blankRow(): string[] {
    return Array(this.cols).fill(' ');
  }

  private put(cluster: string): void {
    const width = clusterWidth(cluster);
    if (width === 0) {
      // A combining mark on its own joins the cell before it.
      const col = Math.max(0, this.col - 1);
      this.grid[this.row][col] += cluster;
      return;
    }
    if (this.pendingWrap || this.col + width > this.cols) {
      this.carriageReturn();
      this.lineFeed();
    }
    const line = this.grid[this.row];
    // Overwriting half of a wide character blanks the other half.
    if (line[this.col] === CONTINUATION && this.col > 0) line[this.col - 1] = ' ';
    if (width === 2 && line[this.col + 1] !== undefined && this.col + 2 < this.cols && line[this.col + 2] === CONTINUATION)
      line[this.col + 2] = ' ';
    line[this.col] = cluster;
    if (width === 2) line[this.col + 1] = CONTINUATION;
    if (this.col + width >= this.cols) {
      this.col = this.cols - 1;
      this.pendingWrap = true;
    } else {
      this.col += width;
    }
  }

  private carriageReturn(): void {
    this.col = 0;
    this.pendingWrap = false;
  }

  private lineFeed(): void {
    this.pendingWrap = false;
    if (this.row < this.rows - 1) {
      this.row++;
      return;
    }
    this.scrollback.push(rowText(this.grid.shift()!));
    this.grid.push(this.blankRow());
  }

  private moveTo(row: number, col: number): void {
    this.row = Math.max(0, Math.min(this.rows - 1, row));
    this.col = Math.max(0, Math.min(this.cols - 1, col));
    this.pendingWrap = false;
  }

  /** Applies the escape sequence at `text[at]`; returns how many characters it took, 0 when it is incomplete. */
  private escape(text: string, at: number): number {
    const next = text[at + 1];
    if (next === undefined) return 0;
    if (next === '[') {
      const match = /^\x1b\[([?>=]?)([0-9;]*)([ -/]*)([@-~])/.exec(text.slice(at, at + 64));
      if (match === null) return text.length - at < 64 ? 0 : 2;
      this.csi(match[1], match[2], match[4]);
      return match[0].length;
    }
    if (next === ']' || next === 'P' || next === '_') {
      // OSC, DCS, APC: up to BEL or ST.
      const bel = text.indexOf('\x07', at + 2);
      const st = text.indexOf('\x1b\\', at + 2);
      const ends = [bel < 0 ? Infinity : bel + 1, st < 0 ? Infinity : st + 2];
      const end = Math.min(...ends);
      return end === Infinity ? 0 : end - at;
    }
    if (next === '7') this.saved = { row: this.row, col: this.col };
    else if (next === '8') this.moveTo(this.saved.row, this.saved.col);
    else if (next === 'c') {
      this.grid = Array.from({ length: this.rows }, () => this.blankRow());
      this.moveTo(0, 0);
    }
    // Any other two-character sequence (charset selection and the like) draws nothing.
    if (next === '(' || next === ')') return text.length - at < 3 ? 0 : 3;
    return 2;
  }

  private csi(prefix: string, params: string, final: string): void {
    const args = params === '' ? [] : params.split(';').map((p) => (p === '' ? 0 : Number(p)));
    const n = Math.max(1, args[0] ?? 1);
    if (prefix === '?') {
      if (params === '25') this.cursorVisible = final === 'h';
      return;
    }
    if (prefix !== '') return;
    switch (final) {
      case 'A':
        return this.moveTo(this.row - n, this.col);
      case 'B':
        return this.moveTo(this.row + n, this.col);
      case 'C':
        return this.moveTo(this.row, this.col + n);
      case 'D':
        return this.moveTo(this.row, this.col - n);
      case 'G':
        return this.moveTo(this.row, n - 1);
      case 'H':
      case 'f':
        return this.moveTo((args[0] || 1) - 1, (args[1] || 1) - 1);
      case 'J':
        return this.eraseDisplay(args[0] ?? 0);
      case 'K':
        return this.eraseLine(args[0] ?? 0);
      default:
      // SGR (m) and anything else: no effect on the text.
    }
  }

  private eraseDisplay(mode: number): void {
    if (mode === 3) {
      this.scrollback.length = 0;
      return;
    }
    if (mode === 2) {
      this.grid = Array.from({ length: this.rows }, () => this.blankRow());
      return;
    }
    if (mode === 0) {
      this.eraseLine(0);
      for (let r = this.row + 1; r < this.rows; r++) this.grid[r] = this.blankRow();
    } else if (mode === 1) {
      this.eraseLine(1);
      for (let r = 0; r < this.row; r++) this.grid[r] = this.blankRow();
    }
  }

  private eraseLine(mode: number): void {
    const line = this.grid[this.row];
    const [from, to] = mode === 0 ? [this.col, this.cols] : mode === 1 ? [0, this.col + 1] : [0, this.cols];
    for (let c = from; c < to; c++) line[c] = ' ';
  }
}

function rowText(row: string[]): string {
  return row.join('').replace(/ +$/, '');
}
