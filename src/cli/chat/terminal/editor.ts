import { terminalText } from '../../safe-text.js';
import { clusterWidth, graphemes, textWidth } from '../../tui/index.js';

/** A key as `readline.emitKeypressEvents` describes it. */
export type Key = { name?: string; ctrl?: boolean; meta?: boolean; shift?: boolean; sequence?: string };

/** What a key did to the editor: `submit` for Enter, `ignored` when it is not an editing key. */
export type EditResult = 'submit' | 'handled' | 'ignored';

/** The editor as drawn: its rows and where the cursor is among them. */
export type EditorView = { lines: string[]; cursor: { row: number; col: number } };

const CONTROL = /[\x00-\x08\x0a-\x1f\x7f]/;

/**
 * The prompt being written: text, a cursor, and the earlier prompts Up and Down walk through. A
 * component: keys in, rows out; the terminal UI draws it. The cursor moves and deletes by grapheme
 * cluster (an emoji family, a letter with its accents, a flag is one step), and rows are laid out by
 * display width, so wide characters (CJK, emoji) put the cursor where the terminal shows it.
 *
 * Enter sends; Alt-Enter or Ctrl-J starts a new line; Left/Right (Ctrl or Alt: by word), Home/End
 * (Ctrl-A/E), Backspace/Delete, Ctrl-W (the word before), Ctrl-U and Ctrl-K (to the line's start, end)
 * edit; Up/Down move between the prompt's lines and, past its first or last, through history.
 */
export class PromptEditor {
  private text = '';
  private cursor = 0;
  private historyAt: number;
  private draft = '';

  /** `history`: earlier prompts, oldest first; the editor adds each prompt it hands out. */
  constructor(private readonly history: string[] = []) {
    this.historyAt = history.length;
  }

  get value(): string {
    return this.text;
  }

  get caret(): number {
    return this.cursor;
  }

  /** The text before the cursor. */
  get beforeCursor(): string {
    return this.text.slice(0, this.cursor);
  }

  /** Inserts text at the cursor (a paste keeps its line breaks: CR and CRLF become LF). */
  insert(text: string): void {
    const clean = text.replace(/\r\n?/g, '\n');
    this.text = this.text.slice(0, this.cursor) + clean + this.text.slice(this.cursor);
    this.cursor += clean.length;
  }

  /** Replaces `text[start..end)` with `replacement` and puts the cursor after it (a completion). */
  replace(start: number, end: number, replacement: string): void {
    this.text = this.text.slice(0, start) + replacement + this.text.slice(end);
    this.cursor = start + replacement.length;
  }

  /** Empties the editor and returns what it held; a non-blank prompt joins the history. */
  take(): string {
    const line = this.text;
    if (line.trim() !== '' && this.history.at(-1) !== line) this.history.push(line);
    this.historyAt = this.history.length;
    this.draft = '';
    this.text = '';
    this.cursor = 0;
    return line;
  }

  clear(): void {
    this.text = '';
    this.cursor = 0;
    this.historyAt = this.history.length;
  }

  key(input: string | undefined, key: Key): EditResult {
    if (key.name === 'return' && !key.meta) return 'submit';
    if ((key.name === 'return' && key.meta) || key.name === 'enter') {
      this.insert('\n');
      return 'handled';
    }
    const word = key.ctrl === true || key.meta === true;
    switch (key.name) {
      case 'backspace':
        if (word) this.deleteTo(this.wordStart());
        else this.deleteTo(this.previousBoundary());
        return 'handled';
      case 'delete':
        this.deleteTo(this.nextBoundary());
        return 'handled';
      case 'left':
        this.cursor = word ? this.wordStart() : this.previousBoundary();
        return 'handled';
      case 'right':
        this.cursor = word ? this.wordEnd() : this.nextBoundary();
        return 'handled';
      case 'home':
        this.cursor = this.lineStart();
        return 'handled';
      case 'end':
        this.cursor = this.lineEnd();
        return 'handled';
      case 'up':
        this.vertical(-1);
        return 'handled';
      case 'down':
        this.vertical(1);
        return 'handled';
    }
    if (key.meta && (key.name === 'b' || key.name === 'f')) {
      this.cursor = key.name === 'b' ? this.wordStart() : this.wordEnd();
      return 'handled';
    }
    if (key.ctrl) {
      switch (key.name) {
        case 'a':
          this.cursor = this.lineStart();
          return 'handled';
        case 'e':
          this.cursor = this.lineEnd();
          return 'handled';
        case 'u':
          this.deleteTo(this.lineStart());
          return 'handled';
        case 'k':
          this.deleteTo(this.lineEnd());
          return 'handled';
        case 'w':
          this.deleteTo(this.wordStart());
          return 'handled';
      }
      return 'ignored';
    }
    if (input !== undefined && input !== '' && !key.meta && !CONTROL.test(input)) {
      this.insert(input);
      return 'handled';
    }
    return 'ignored';
  }

  /**
   * The editor laid out in `width` columns: the first line after `prompt`, the others after
   * `continuation`, each wrapped (by grapheme, by display width) with rows indented as far. No row
   * reaches the last column, which the cursor may need. What is shown goes through `terminalText`, so a
   * pasted escape sequence is seen, not obeyed; a tab shows as two spaces.
   */
  render(width: number, prompt: string, continuation: string): EditorView {
    const leadWidth = Math.max(textWidth(prompt), textWidth(continuation));
    const room = Math.max(8, width - 1 - leadWidth);
    const pad = ' '.repeat(leadWidth);
    const lines: string[] = [];
    let cursor = { row: 0, col: textWidth(prompt) };
    let offset = 0;
    this.text.split('\n').forEach((logical, index) => {
      const lead = index === 0 ? prompt : continuation;
      let row = lead;
      let used = 0;
      let rowLead = textWidth(lead);
      const place = () => (cursor = { row: lines.length, col: rowLead + used });
      for (const cluster of graphemes(logical)) {
        if (offset === this.cursor) place();
        const shown = show(cluster);
        const w = textWidth(shown);
        if (used + w > room) {
          lines.push(row);
          row = pad;
          rowLead = leadWidth;
          used = 0;
          if (offset === this.cursor) place();
        }
        row += shown;
        used += w;
        offset += cluster.length;
      }
      if (offset === this.cursor) place();
      lines.push(row);
      offset += 1; // the line break
    });
    return { lines, cursor };
  }

  private deleteTo(to: number): void {
    const [from, end] = to < this.cursor ? [to, this.cursor] : [this.cursor, to];
    this.text = this.text.slice(0, from) + this.text.slice(end);
    this.cursor = from;
  }

  private previousBoundary(): number {
    if (this.cursor === 0) return 0;
    const start = this.lineStart() === this.cursor ? this.cursor - 1 : this.lineStart();
    let at = start;
    for (const cluster of graphemes(this.text.slice(start, this.cursor))) {
      if (at + cluster.length >= this.cursor) return at;
      at += cluster.length;
    }
    return at;
  }

  private nextBoundary(): number {
    if (this.cursor >= this.text.length) return this.text.length;
    const [first] = graphemes(this.text.slice(this.cursor, this.cursor + 64));
    return this.cursor + (first?.length ?? 1);
  }

  private wordStart(): number {
    const before = this.text.slice(0, this.cursor);
    // The word before the cursor and the spaces after it, as a shell's Ctrl-W takes them.
    const match = /[^\s]*\s*$/.exec(before)!;
    return this.cursor - match[0].length;
  }

  private wordEnd(): number {
    const match = /^\s*[^\s]*/.exec(this.text.slice(this.cursor))!;
    return this.cursor + match[0].length;
  }

  private lineStart(): number {
    return this.text.lastIndexOf('\n', this.cursor - 1) + 1;
  }

  private lineEnd(): number {
    const end = this.text.indexOf('\n', this.cursor);
    return end < 0 ? this.text.length : end;
  }

  /** Up/Down: to the line above or below (same column, by display width), or past the first or last, through history. */
  private vertical(step: -1 | 1): void {
    const start = this.lineStart();
    const column = textWidth(show(this.text.slice(start, this.cursor)));
    if (step < 0 && start > 0) {
      const above = this.text.lastIndexOf('\n', start - 2) + 1;
      this.cursor = atColumn(this.text, above, start - 1, column);
      return;
    }
    const end = this.lineEnd();
    if (step > 0 && end < this.text.length) {
      const nextEnd = this.text.indexOf('\n', end + 1);
      this.cursor = atColumn(this.text, end + 1, nextEnd < 0 ? this.text.length : nextEnd, column);
      return;
    }
    const at = this.historyAt + step;
    if (at < 0 || at > this.history.length) return;
    if (this.historyAt === this.history.length) this.draft = this.text;
    this.historyAt = at;
    this.text = at === this.history.length ? this.draft : this.history[at];
    this.cursor = this.text.length;
  }
}

/** A grapheme as the editor shows it: steering characters as escapes, a tab as two spaces. */
function show(text: string): string {
  return terminalText(text).replace(/\t/g, '  ');
}

/** The index in `text[from..to)` closest to display column `column`, on a cluster boundary. */
function atColumn(text: string, from: number, to: number, column: number): number {
  let at = from;
  let used = 0;
  for (const cluster of graphemes(text.slice(from, to))) {
    const w = clusterWidth(cluster) || textWidth(show(cluster));
    if (used + w > column) break;
    used += w;
    at += cluster.length;
  }
  return at;
}
