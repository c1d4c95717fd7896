import { emitKeypressEvents } from 'node:readline';
import { terminalText } from '../safe-text.js';
import { PromptQueue } from './prompt-queue.js';

type Key = { name?: string; ctrl?: boolean; meta?: boolean; shift?: boolean; sequence?: string };

const HISTORY_SIZE = 100;
// Our own SGR codes in the prompt take no room on screen.
const SGR = /\x1b\[[0-9;]*m/g;

/**
 * The prompt editor of a chat on a terminal, in raw mode. Enter sends; Alt-Enter or Ctrl-J starts a new
 * line; a paste (the terminal's bracketed paste mode) is inserted whole, its line breaks kept, so a
 * pasted block is one prompt; Up/Down move between lines, then through earlier prompts; Left/Right,
 * Home/End (Ctrl-A/E), Backspace/Delete, Ctrl-U and Ctrl-K edit. Ctrl-C goes to `onInterrupt` (raw mode
 * means the terminal sends no SIGINT); Ctrl-D on an empty prompt ends input.
 *
 * Keys typed while a run is busy are kept and shown at the next prompt; a line sent meanwhile waits
 * its turn. What is echoed goes through `terminalText`, so a pasted escape sequence is shown, not obeyed.
 */
export class PromptEditor {
  private buffer = '';
  private cursor = 0;
  private prompt = '';
  private active = false;
  private pasting = false;
  /** Rows from the top of the drawn prompt to where the terminal cursor is. */
  private cursorRow = 0;
  private readonly prompts = new PromptQueue();
  private readonly history: string[] = [];
  private historyAt = 0;
  private draft = '';
  private readonly onKey = (text: string | undefined, key: Key | undefined) => this.key(text, key ?? {});
  private readonly onEnd = () => this.finish();

  constructor(
    private readonly input: NodeJS.ReadStream,
    private readonly output: NodeJS.WriteStream,
    private readonly onInterrupt: () => void,
  ) {
    emitKeypressEvents(input);
    input.setRawMode(true);
    input.on('keypress', this.onKey);
    input.on('end', this.onEnd);
    input.resume();
    // Bracketed paste: the terminal wraps a paste in ESC[200~ … ESC[201~.
    output.write('\x1b[?2004h');
  }

  /** The next prompt the user sends; null once input has ended (Ctrl-D on an empty prompt). */
  next(prompt: string): Promise<string | null> {
    const ready = this.prompts.ready();
    if (ready !== undefined) return Promise.resolve(ready);
    this.prompt = prompt;
    this.active = true;
    this.cursorRow = 0;
    this.render();
    return this.prompts.wait();
  }

  /** Writes lines of output while the prompt is shown: below it, then the prompt again. */
  interject(write: () => void): void {
    if (!this.active) {
      write();
      return;
    }
    this.leavePrompt();
    write();
    this.cursorRow = 0;
    this.render();
  }

  close(): void {
    if (this.prompts.ended && this.input.listenerCount('keypress') === 0) return;
    this.input.off('keypress', this.onKey);
    this.input.off('end', this.onEnd);
    this.output.write('\x1b[?2004l');
    if (this.input.isTTY) this.input.setRawMode(false);
    this.input.pause();
    this.finish();
  }

  private finish(): void {
    this.prompts.end();
  }

  private key(text: string | undefined, key: Key): void {
    if (key.name === 'paste-start') return void (this.pasting = true);
    if (key.name === 'paste-end') {
      this.pasting = false;
      return this.render();
    }
    if (this.pasting) {
      // Everything a paste holds is text; a stray escape sequence in it is dropped, not acted on.
      if (text !== undefined && (text === '\r' || text === '\n' || text === '\t' || !/[\x00-\x1f\x7f]/.test(text)))
        this.insert(text === '\r' ? '\n' : text, false);
      return;
    }
    if (key.ctrl && key.name === 'c') return this.onInterrupt();
    if (key.ctrl && key.name === 'd') {
      if (this.buffer === '') {
        if (this.active) this.leavePrompt();
        this.active = false;
        return this.finish();
      }
      return this.edit(() => this.deleteAt(this.cursor));
    }
    if (key.name === 'return' && !key.meta) return this.submit();
    if ((key.name === 'return' && key.meta) || key.name === 'enter') return this.insert('\n');
    switch (key.name) {
      case 'backspace':
        return this.edit(() => this.cursor > 0 && this.deleteAt(--this.cursor));
      case 'delete':
        return this.edit(() => this.deleteAt(this.cursor));
      case 'left':
        return this.edit(() => (this.cursor = Math.max(0, this.cursor - 1)));
      case 'right':
        return this.edit(() => (this.cursor = Math.min(this.buffer.length, this.cursor + 1)));
      case 'home':
        return this.edit(() => (this.cursor = this.lineStart()));
      case 'end':
        return this.edit(() => (this.cursor = this.lineEnd()));
      case 'up':
        return this.edit(() => this.vertical(-1));
      case 'down':
        return this.edit(() => this.vertical(1));
    }
    if (key.ctrl) {
      switch (key.name) {
        case 'a':
          return this.edit(() => (this.cursor = this.lineStart()));
        case 'e':
          return this.edit(() => (this.cursor = this.lineEnd()));
        case 'u':
          return this.edit(() => {
            const start = this.lineStart();
            this.buffer = this.buffer.slice(0, start) + this.buffer.slice(this.cursor);
            this.cursor = start;
          });
        case 'k':
          return this.edit(() => (this.buffer = this.buffer.slice(0, this.cursor) + this.buffer.slice(this.lineEnd())));
      }
      return;
    }
    if (text !== undefined && !key.meta && !/[\x00-\x08\x0a-\x1f\x7f]/.test(text)) this.insert(text);
  }

  private insert(text: string, draw = true): void {
    this.buffer = this.buffer.slice(0, this.cursor) + text + this.buffer.slice(this.cursor);
    this.cursor += text.length;
    if (draw) this.render();
  }

  private edit(change: () => unknown): void {
    change();
    this.render();
  }

  private deleteAt(index: number): void {
    this.buffer = this.buffer.slice(0, index) + this.buffer.slice(index + 1);
  }

  private lineStart(): number {
    return this.buffer.lastIndexOf('\n', this.cursor - 1) + 1;
  }

  private lineEnd(): number {
    const end = this.buffer.indexOf('\n', this.cursor);
    return end < 0 ? this.buffer.length : end;
  }

  /** Up/Down: to the line above or below in the prompt, or past its first or last line, through history. */
  private vertical(step: -1 | 1): void {
    const start = this.lineStart();
    const column = this.cursor - start;
    if (step < 0 && start > 0) {
      const above = this.buffer.lastIndexOf('\n', start - 2) + 1;
      this.cursor = Math.min(above + column, start - 1);
      return;
    }
    const end = this.lineEnd();
    if (step > 0 && end < this.buffer.length) {
      const nextEnd = this.buffer.indexOf('\n', end + 1);
      this.cursor = Math.min(end + 1 + column, nextEnd < 0 ? this.buffer.length : nextEnd);
      return;
    }
    const at = this.historyAt + step;
    if (at < 0 || at > this.history.length) return;
    if (this.historyAt === this.history.length) this.draft = this.buffer;
    this.historyAt = at;
    this.buffer = at === this.history.length ? this.draft : this.history[at];
    this.cursor = this.buffer.length;
  }

  private submit(): void {
    const line = this.buffer;
    if (line.trim() !== '' && this.history.at(-1) !== line) {
      this.history.push(line);
      if (this.history.length > HISTORY_SIZE) this.history.shift();
    }
    this.historyAt = this.history.length;
    this.draft = '';
    if (this.active) {
      this.leavePrompt();
      this.active = false;
    }
    this.buffer = '';
    this.cursor = 0;
    this.prompts.push(line);
  }

  private columns(): number {
    return Math.max(10, this.output.columns || 80);
  }

  /** The prompt as drawn: the first line after the prompt, the others after a marker as wide. */
  private drawnLines(): Array<{ lead: string; text: string }> {
    const width = this.prompt.replace(SGR, '').length;
    const more = `${' '.repeat(Math.max(0, width - 2))}… `;
    return this.buffer.split('\n').map((text, i) => ({ lead: i === 0 ? this.prompt : more, text: shown(text) }));
  }

  /** Rows a drawn line of `width` characters takes, and where the terminal cursor is after writing it. */
  private place(width: number): { rows: number; row: number; col: number } {
    const cols = this.columns();
    const rows = Math.max(1, Math.ceil(width / cols));
    // A line that fills its last row exactly leaves the cursor on that row (the wrap is pending).
    if (width > 0 && width % cols === 0) return { rows, row: rows - 1, col: cols - 1 };
    return { rows, row: Math.floor(width / cols), col: width % cols };
  }

  private render(): void {
    if (!this.active) return;
    const lines = this.drawnLines();
    const leadWidth = (lead: string) => lead.replace(SGR, '').length;
    let out = `\r${this.cursorRow > 0 ? `\x1b[${this.cursorRow}A` : ''}\x1b[J`;
    out += lines.map((line) => line.lead + line.text).join('\r\n');
    // Where the cursor ended (after the last line) and where it belongs (at `cursor`).
    const before = this.buffer.slice(0, this.cursor).split('\n');
    let rowsAbove = 0;
    let endRow = 0;
    for (let i = 0; i < lines.length; i++) {
      const placed = this.place(leadWidth(lines[i].lead) + lines[i].text.length);
      if (i < before.length - 1) rowsAbove += placed.rows;
      if (i === lines.length - 1) endRow += placed.row;
      else endRow += placed.rows;
    }
    const lineIndex = before.length - 1;
    const target = leadWidth(lines[lineIndex].lead) + shown(before[lineIndex]).length;
    const cols = this.columns();
    const targetRow = Math.min(endRow, rowsAbove + Math.floor(target / cols));
    const targetCol = targetRow === rowsAbove + Math.floor(target / cols) ? target % cols : cols - 1;
    if (endRow > targetRow) out += `\x1b[${endRow - targetRow}A`;
    out += `\r${targetCol > 0 ? `\x1b[${targetCol}C` : ''}`;
    this.cursorRow = targetRow;
    this.output.write(out);
  }

  /** Moves the terminal cursor below the drawn prompt, onto a fresh line. */
  private leavePrompt(): void {
    this.cursor = this.buffer.length;
    this.render();
    this.output.write('\r\n');
    this.cursorRow = 0;
  }
}

/** A line of the prompt as drawn: steering characters as escapes, a tab as two spaces (one width per character). */
function shown(text: string): string {
  return terminalText(text).replace(/\t/g, '  ');
}
