import { emitKeypressEvents } from 'node:readline';
import type { Paint } from '../../style.js';
import { Screen, type Frame, type Printable, SelectList, type Choice, type SelectStyle } from '../../tui/index.js';
import { captureConsole } from './console-capture.js';
import { PromptEditor, type Key } from './editor.js';
import { liveFrame, promptLines } from './layout.js';
import { approvalPrompt, ModalSlot, picker, questionPrompt } from './modals.js';
import type { InputAnswer } from '../../../runtime/contract/tool.js';
import { PathCompletion } from './path-completion.js';
import type { ApprovalAnswer, QuestionField } from '../view.js';

const SPINNER_MS = 80;

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
 * then the editor and the status line (`layout.ts`). The editor stays usable while a run streams: a
 * prompt sent meanwhile waits its turn, shown as queued.
 *
 * Keys: the editor's (see `PromptEditor`); a paste (bracketed paste mode) is inserted whole; Ctrl-C goes
 * to `onInterrupt` while a run is busy or the editor is empty, and clears the editor otherwise; Ctrl-D
 * on an empty editor ends input; Ctrl-O shows tool results whole or collapsed again; `@` opens path
 * completion (`PathCompletion`). A picker or approval prompt (`modals.ts`) takes the keys while it is
 * open. While it runs, `console` output is printed to the transcript (`captureConsole`), never across
 * the live region.
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
  private readonly modals: ModalSlot;
  private readonly completion: PathCompletion;
  private pasting: string | null = null;
  private readonly queued: string[] = [];
  private waiter: ((line: string | null) => void) | null = null;
  private ended = false;
  private readonly selectStyle: SelectStyle;
  /** Puts the console's own methods back, on close (see the constructor). */
  private readonly restoreConsole: () => void;
  private readonly onKey = (input: string | undefined, key: Key | undefined) => this.key(input, key ?? {});
  private readonly onEnd = () => this.end();

  constructor(private readonly options: TerminalUiOptions) {
    const { input, output, colour } = options;
    this.screen = new Screen(output);
    this.editor = new PromptEditor(options.history);
    this.selectStyle = colour
      ? { selected: (text) => `\x1b[7m${text}\x1b[27m`, dim: (text) => `\x1b[2m${text}\x1b[22m` }
      : { selected: (text) => text, dim: (text) => text };
    const refresh = () => this.screen.refresh();
    this.modals = new ModalSlot(refresh);
    this.completion = new PathCompletion({
      paint: options.paint,
      selectStyle: this.selectStyle,
      paths: () => options.paths(),
      print: (render) => this.print(render),
      refresh,
    });
    emitKeypressEvents(input);
    input.setRawMode(true);
    input.on('keypress', this.onKey);
    input.on('end', this.onEnd);
    input.resume();
    // Bracketed paste: the terminal wraps a paste in ESC[200~ … ESC[201~.
    output.write('\x1b[?2004h');
    this.restoreConsole = captureConsole((render) => this.print(render), options.paint);
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
    return this.modals.open<T | null>(null, picker(title, list, this.options.paint, this.selectStyle));
  }

  /**
   * An approval prompt: `lines` say what the call does (painted by the caller), then the keys: y runs
   * it, n refuses it, a runs it and every later call of `tool` in this session, Escape decides later.
   */
  approve(lines: string[], tool: string): Promise<ApprovalAnswer> {
    return this.modals.open<ApprovalAnswer>(null, approvalPrompt(lines, tool, this.options.paint));
  }

  /** A question a tool or an MCP server asks, its form filled in field by field (see `questionPrompt`); Escape cancels. */
  ask(lines: string[], fields: QuestionField[] | null): Promise<InputAnswer> {
    return this.modals.open<InputAnswer>({ action: 'cancel' }, questionPrompt(lines, fields, this.options.paint));
  }

  /** Lets go of the terminal: raw mode off, paste mode off, the live region erased. */
  close(): void {
    if (this.spinner !== null) clearInterval(this.spinner);
    this.spinner = null;
    this.modals.cancel();
    this.restoreConsole();
    const { input, output } = this.options;
    input.off('keypress', this.onKey);
    input.off('end', this.onEnd);
    this.screen.stop();
    output.write('\x1b[?2004l');
    if (input.isTTY) input.setRawMode(false);
    input.pause();
    this.end();
  }

  private end(): void {
    this.ended = true;
    const waiter = this.waiter;
    this.waiter = null;
    waiter?.(null);
  }

  private echo(line: string): void {
    this.print(() => promptLines(line, this.options.paint));
  }

  private submit(): void {
    const line = this.editor.take();
    this.completion.clear();
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
      if (!this.modals.isOpen) this.editor.insert(text);
      return this.changed();
    }
    if (this.pasting !== null) {
      // Everything a paste holds is text; a stray escape sequence in it is dropped, not acted on.
      if (input !== undefined && (input === '\r' || input === '\n' || input === '\t' || !/[\x00-\x1f\x7f]/.test(input)))
        this.pasting += input === '\r' ? '\n' : input;
      return;
    }
    if (key.ctrl && key.name === 'c') {
      if (this.modals.isOpen) return this.modals.cancel();
      if (!this.busy && this.editor.value !== '') {
        this.editor.clear();
        return this.changed();
      }
      return this.options.onInterrupt();
    }
    if (this.modals.isOpen) {
      this.modals.key(input, key);
      return this.screen.refresh();
    }
    if (key.ctrl && key.name === 'd' && this.editor.value === '') return this.end();
    if (key.ctrl && key.name === 'o') {
      this.expanded = !this.expanded;
      return this.screen.redrawAll();
    }
    if (this.completion.key(key, this.editor)) return this.screen.refresh();
    if (this.editor.key(input, key) === 'submit') this.submit();
    this.changed();
  }

  /** After an edit: the `@` being typed, if any, and its completions. */
  private changed(): void {
    this.completion.edited(this.editor.beforeCursor);
    this.screen.refresh();
  }

  private frame(): Frame {
    const width = this.screen.width;
    const modal = this.modals.lines(width);
    return liveFrame({
      width,
      height: this.screen.height,
      paint: this.options.paint,
      preview: this.preview,
      activity: this.activity,
      spinnerStep: this.spinnerStep,
      queued: this.queued,
      modal,
      completions: modal === null ? this.completion.lines(width) : null,
      editor: this.editor,
      status: this.status,
    });
  }
}
