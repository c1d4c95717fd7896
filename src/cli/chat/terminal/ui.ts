import { emitKeypressEvents } from 'node:readline';
import { format } from 'node:util';
import { terminalText } from '../../safe-text.js';
import type { Paint } from '../../style.js';
import {
  Screen,
  type Frame,
  type Printable,
  SelectList,
  type Choice,
  type SelectStyle,
  textWidth,
  truncateToWidth,
} from '../../tui/index.js';
import { atToken, rankPaths } from './completion.js';
import { PromptEditor, type Key } from './editor.js';
import type { ApprovalAnswer } from '../view.js';

const CONSOLE_METHODS = ['log', 'info', 'warn', 'error', 'debug'] as const;
type ConsoleMethod = (typeof CONSOLE_METHODS)[number];
const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const SPINNER_MS = 80;
const PROMPT = 'you › ';
const CONTINUATION = '    … ';
/** Completions shown at once. */
const COMPLETIONS = 8;

/** What takes the keys instead of the editor while it is shown: a picker or an approval prompt. */
type Modal = { lines(width: number): string[]; key(input: string | undefined, key: Key): void; cancel(): void };

export type TerminalUiOptions = {
  input: NodeJS.ReadStream;
  output: NodeJS.WriteStream;
  paint: Paint;
  /** Colour allowed (a terminal without NO_COLOR): the selected row of a list is shown inverted. */
  colour: boolean;
  /** Earlier prompts of this workspace, oldest first; prompts sent are added to it. */
  history: string[];
  /** Told of each prompt sent, to keep it (the workspace's prompt history). */
  remember(prompt: string): void;
  /** The workspace's paths, for `@` completion; called when a completion starts. */
  paths(): Promise<string[]>;
  /** Ctrl-C, when it is not the editor's (a run is busy, or the editor is empty). */
  onInterrupt(): void;
};

/**
 * The chat on a terminal: a `Screen` whose transcript holds the conversation and whose live region,
 * redrawn in place, holds (top to bottom) the reply being streamed, what the run is doing (with a
 * spinner), prompts queued behind it, a picker or approval prompt when one is open, or `@` completions,
 * then the editor and the status line. The editor stays usable while a run streams: a prompt sent
 * meanwhile waits its turn, shown as queued.
 *
 * Keys: the editor's (see `PromptEditor`); a paste (bracketed paste mode) is inserted whole; Ctrl-C goes
 * to `onInterrupt` while a run is busy or the editor is empty, and clears the editor otherwise; Ctrl-D
 * on an empty editor ends input; Ctrl-O shows tool results whole or collapsed again; `@` opens path
 * completion (Up/Down choose, Tab or Enter take, Escape closes). A picker or approval prompt takes the
 * keys while it is open. While it runs, `console` output is printed to the transcript (painted, so
 * made safe), never across the live region.
 */
export class TerminalUi {
  readonly screen: Screen;
  readonly editor: PromptEditor;
  /** Tool results shown whole (Ctrl-O), for the transcript's printables to read. */
  expanded = false;
  private busy = false;
  private status = '';
  private preview: Printable | null = null;
  private activity: string | null = null;
  private spinner: NodeJS.Timeout | null = null;
  private spinnerStep = 0;
  private modal: Modal | null = null;
  private completion: { start: number; query: string; list: SelectList<string> | null; closed: boolean } | null = null;
  private paths: string[] = [];
  private pasting: string | null = null;
  private readonly queued: string[] = [];
  private waiter: ((line: string | null) => void) | null = null;
  private ended = false;
  private readonly selectStyle: SelectStyle;
  /** The console's own methods, put back on close (see the constructor). */
  private readonly consoleMethods: Partial<Record<ConsoleMethod, (...args: unknown[]) => void>> = {};
  private readonly onKey = (input: string | undefined, key: Key | undefined) => this.key(input, key ?? {});
  private readonly onEnd = () => this.end();

  constructor(private readonly options: TerminalUiOptions) {
    const { input, output, colour } = options;
    this.screen = new Screen(output);
    this.editor = new PromptEditor(options.history);
    this.selectStyle = colour
      ? { selected: (text) => `\x1b[7m${text}\x1b[27m`, dim: (text) => `\x1b[2m${text}\x1b[22m` }
      : { selected: (text) => text, dim: (text) => text };
    emitKeypressEvents(input);
    input.setRawMode(true);
    input.on('keypress', this.onKey);
    input.on('end', this.onEnd);
    input.resume();
    // Bracketed paste: the terminal wraps a paste in ESC[200~ … ESC[201~.
    output.write('\x1b[?2004h');
    // What the process logs (the runtime reporting a tool that threw, a library's warning) would land
    // in the middle of the live region and leave the screen out of step: it goes to the transcript.
    for (const method of CONSOLE_METHODS) {
      this.consoleMethods[method] = console[method];
      console[method] = (...args: unknown[]) => {
        const lines = format(...args).split('\n');
        this.print(() => lines.map((line) => options.paint(method === 'error' || method === 'warn' ? 'yellow' : 'dim', line)));
      };
    }
    this.screen.setLive(() => this.frame());
  }

  /** The next prompt sent (echoed into the transcript as it is taken); null once input has ended. */
  next(): Promise<string | null> {
    const line = this.queued.shift();
    if (line !== undefined) {
      this.echo(line);
      return Promise.resolve(line);
    }
    if (this.ended) return Promise.resolve(null);
    this.screen.refresh();
    return new Promise((resolve) => {
      this.waiter = resolve;
    });
  }

  /** Adds lines to the transcript. */
  print(render: Printable): void {
    this.screen.print(render);
  }

  /** A run began (true) or ended: Ctrl-C then stops it rather than clearing the editor. */
  setBusy(busy: boolean): void {
    this.busy = busy;
  }

  /** The status line under the editor. */
  setStatus(text: string): void {
    this.status = text;
    this.screen.refresh();
  }

  /** The reply being streamed, shown above the editor until it is printed. */
  setPreview(render: Printable | null): void {
    this.preview = render;
    this.screen.refresh();
  }

  /** What the run is doing, with a spinner; null: nothing. */
  setActivity(label: string | null): void {
    this.activity = label;
    if (label !== null && this.spinner === null) {
      this.spinner = setInterval(() => {
        this.spinnerStep++;
        this.screen.refresh();
      }, SPINNER_MS);
      // The spinner alone must not keep the process alive.
      this.spinner.unref();
    } else if (label === null && this.spinner !== null) {
      clearInterval(this.spinner);
      this.spinner = null;
    }
    this.screen.refresh();
  }

  /** A list to choose from with the arrow keys; the value chosen with Enter, or null for Escape. */
  pick<T>(title: string, choices: ReadonlyArray<Choice<T>>, initial = 0): Promise<T | null> {
    const list = new SelectList(choices, Math.max(3, Math.min(12, this.screen.height - 8)), initial);
    const { paint } = this.options;
    return this.open<T | null>(null, (settle) => ({
      lines: (width) => [
        paint('bold', title),
        ...list.render(width, this.selectStyle),
        paint('dim', '↑↓ move · Enter choose · Esc cancel'),
      ],
      key: (_input, key) => {
        if (key.name === 'return') {
          const chosen = list.selected;
          if (chosen !== undefined) settle(chosen.value);
        } else if (key.name === 'escape') settle(null);
        else list.key(key.name);
      },
    }));
  }

  /**
   * An approval prompt: `lines` say what the call does (painted by the caller), then the keys: y runs
   * it, n refuses it, a runs it and every later call of `tool` in this session, Escape decides later.
   */
  approve(lines: string[], tool: string): Promise<ApprovalAnswer> {
    const { paint } = this.options;
    const keys = `${paint('bold', 'y')} yes · ${paint('bold', 'n')} no · ${paint('bold', 'a')} always for ${tool} in this session · Esc later`;
    return this.open<ApprovalAnswer>(null, (settle) => ({
      lines: () => [...lines, keys],
      key: (input, key) => {
        const answer = (input ?? '').toLowerCase();
        if (answer === 'y') settle('yes');
        else if (answer === 'n') settle('no');
        else if (answer === 'a') settle('always');
        else if (key.name === 'escape') settle(null);
      },
    }));
  }

  /** Lets go of the terminal: raw mode off, paste mode off, the live region erased. */
  close(): void {
    if (this.spinner !== null) clearInterval(this.spinner);
    this.spinner = null;
    this.modal?.cancel();
    for (const method of CONSOLE_METHODS) if (this.consoleMethods[method] !== undefined) console[method] = this.consoleMethods[method];
    const { input, output } = this.options;
    input.off('keypress', this.onKey);
    input.off('end', this.onEnd);
    this.screen.stop();
    output.write('\x1b[?2004l');
    if (input.isTTY) input.setRawMode(false);
    input.pause();
    this.end();
  }

  private open<T>(cancelled: T, make: (settle: (value: T) => void) => Omit<Modal, 'cancel'>): Promise<T> {
    return new Promise((resolve) => {
      const settle = (value: T) => {
        if (this.modal !== modal) return;
        this.modal = null;
        this.screen.refresh();
        resolve(value);
      };
      const modal: Modal = { ...make(settle), cancel: () => settle(cancelled) };
      this.modal?.cancel();
      this.modal = modal;
      this.screen.refresh();
    });
  }

  private end(): void {
    this.ended = true;
    const waiter = this.waiter;
    this.waiter = null;
    waiter?.(null);
  }

  private echo(line: string): void {
    const { paint } = this.options;
    const lines = line.split('\n');
    this.print(() => lines.map((text, i) => `${paint('cyan', i === 0 ? PROMPT : CONTINUATION)}${shown(text)}`));
  }

  private submit(): void {
    const line = this.editor.take();
    this.completion = null;
    if (line.trim() !== '') this.options.remember(line);
    const waiter = this.waiter;
    if (waiter !== null) {
      this.waiter = null;
      this.echo(line);
      waiter(line);
    } else {
      this.queued.push(line);
    }
  }

  private key(input: string | undefined, key: Key): void {
    if (key.name === 'paste-start') {
      this.pasting = '';
      return;
    }
    if (key.name === 'paste-end') {
      const text = this.pasting ?? '';
      this.pasting = null;
      if (this.modal === null) this.editor.insert(text);
      return this.changed();
    }
    if (this.pasting !== null) {
      // Everything a paste holds is text; a stray escape sequence in it is dropped, not acted on.
      if (input !== undefined && (input === '\r' || input === '\n' || input === '\t' || !/[\x00-\x1f\x7f]/.test(input)))
        this.pasting += input === '\r' ? '\n' : input;
      return;
    }
    if (key.ctrl && key.name === 'c') {
      if (this.modal !== null) return this.modal.cancel();
      if (!this.busy && this.editor.value !== '') {
        this.editor.clear();
        return this.changed();
      }
      return this.options.onInterrupt();
    }
    if (this.modal !== null) {
      this.modal.key(input, key);
      return this.screen.refresh();
    }
    if (key.ctrl && key.name === 'd' && this.editor.value === '') return this.end();
    if (key.ctrl && key.name === 'o') {
      this.expanded = !this.expanded;
      return this.screen.redrawAll();
    }
    if (this.completionKey(key)) return this.screen.refresh();
    if (this.editor.key(input, key) === 'submit') this.submit();
    this.changed();
  }

  /** Keys the open completion list takes: Up/Down move, Tab or Enter take the path, Escape closes it. */
  private completionKey(key: Key): boolean {
    const completion = this.completion;
    const list = completion?.list;
    if (completion === null || completion.closed || list === null || list === undefined || list.choices.length === 0) return false;
    if (key.name === 'escape') {
      completion.closed = true;
      return true;
    }
    if (key.name === 'tab' || (key.name === 'return' && !key.meta)) {
      const path = list.selected?.value;
      if (path === undefined) return false;
      // A folder stays open for more of its path; a file is done.
      this.editor.replace(completion.start, this.editor.caret, `@${path}${path.endsWith('/') ? '' : ' '}`);
      this.completion = null;
      this.changed();
      return true;
    }
    return list.key(key.name === 'up' || key.name === 'down' ? key.name : undefined);
  }

  /** After an edit: the `@` being typed, if any, and its completions. */
  private changed(): void {
    const token = atToken(this.editor.beforeCursor);
    if (token === null) {
      this.completion = null;
    } else if (this.completion === null || this.completion.start !== token.start) {
      // A new `@`: list the workspace afresh, so files made since show up.
      this.completion = { start: token.start, query: token.query, list: null, closed: false };
      const asked = this.completion;
      this.options.paths().then(
        (paths) => {
          this.paths = paths;
          if (this.completion === asked) this.rank(asked);
          this.screen.refresh();
        },
        (error: unknown) => this.print(() => [this.options.paint('red', `✗ @ completion: ${String((error as Error).message)}`)]),
      );
    } else if (this.completion.query !== token.query) {
      this.completion.query = token.query;
      this.rank(this.completion);
    }
    this.screen.refresh();
  }

  private rank(completion: NonNullable<TerminalUi['completion']>): void {
    const { paint } = this.options;
    const found = rankPaths(completion.query, this.paths, COMPLETIONS);
    completion.list = new SelectList(
      found.map((path) => ({ label: paint(path.endsWith('/') ? 'blue' : [], path), value: path })),
      COMPLETIONS,
    );
  }

  private frame(): Frame {
    const width = this.screen.width;
    const { paint } = this.options;
    const lines: string[] = [];
    if (this.preview !== null) {
      const room = Math.max(3, this.screen.height - 10);
      lines.push(...this.preview(width).slice(-room));
    }
    if (this.activity !== null) lines.push(paint('cyan', `${SPINNER[this.spinnerStep % SPINNER.length]} ${this.activity}`));
    for (const line of this.queued) lines.push(paint('dim', truncateToWidth(`↳ queued: ${line.replace(/\s+/g, ' ')}`, width - 1)));
    if (this.modal !== null) {
      lines.push(...this.modal.lines(width));
    } else if (this.completion !== null && !this.completion.closed && this.completion.list !== null) {
      const list = this.completion.list;
      lines.push(
        ...(list.choices.length === 0
          ? [paint('dim', `  no path matches @${this.completion.query}`)]
          : list.render(width, this.selectStyle)),
      );
    }
    lines.push(paint('dim', '─'.repeat(width - 1)));
    const view = this.editor.render(width, paint('cyan', PROMPT), paint('cyan', CONTINUATION));
    const top = lines.length;
    lines.push(...view.lines);
    if (this.status !== '') for (const line of packParts(this.status.split(' · '), width - 1)) lines.push(paint('dim', line));
    return { lines, cursor: this.modal === null ? { row: top + view.cursor.row, col: view.cursor.col } : undefined };
  }
}

/** A line of a prompt as shown: steering characters as escapes, a tab as two spaces. */
function shown(text: string): string {
  return terminalText(text).replace(/\t/g, '  ');
}

/** `parts` joined with ` · ` into as few lines of `width` columns as they fit (a part wider than a line is cut). */
function packParts(parts: string[], width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const part of parts) {
    const joined = line === '' ? part : `${line} · ${part}`;
    if (line !== '' && textWidth(joined) > width) {
      lines.push(line);
      line = part;
    } else {
      line = joined;
    }
  }
  if (line !== '') lines.push(line);
  return lines.map((l) => truncateToWidth(l, width));
}
