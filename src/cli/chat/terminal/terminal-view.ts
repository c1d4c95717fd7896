import type { RunEvent } from '../../../runtime/contract/events.js';
import { terminalText } from '../../safe-text.js';
import type { Paint } from '../../style.js';
import { textWidth, truncateToWidth, type Printable } from '../../tui/index.js';
import { highlighterReady, loadHighlighter } from '../highlight.js';
import { completeBlocksEnd, hasLanguageFence, loadMarkdown, markdownReady, renderMarkdown, wrapPlain } from '../markdown.js';
import { retryNotice } from '../status.js';
import type { ChatView, TerminalControls } from '../view.js';
import type { TerminalUi } from './ui.js';

const INPUT_PREVIEW = 70;
/** Lines of a tool result shown when results are expanded (Ctrl-O). */
const EXPANDED_LINES = 400;

/**
 * A chat's runs on a terminal's persistent screen. Assistant text is Markdown: each block is printed to
 * the transcript once complete (the blank line or closing fence after it has arrived), rendered for the
 * terminal's width (`rich`) or shown as its source, wrapped (`plain`, NO_COLOR), and laid out again on a
 * resize; the block still arriving is shown above the editor as it grows. The first code fence that
 * names a language starts loading the highlighter, and a block holding code waits for it (later
 * events wait their turn behind it), so code is printed highlighted. A tool call is one line, its result
 * one line (first line, and how many more) until Ctrl-O shows results whole. Nothing the model or a
 * tool produced reaches the terminal raw: it goes through `paint` or `terminalText`.
 */
export class TerminalView implements ChatView {
  readonly terminal: TerminalControls;
  private pending = '';
  /** Set while a block waits for the highlighter: events arriving meanwhile wait in `backlog`. */
  private gate: Promise<void> | null = null;
  private readonly backlog: Array<() => void> = [];
  private highlightFailure: string | null = null;

  constructor(
    private readonly ui: TerminalUi,
    private readonly paint: Paint,
    private mode: 'rich' | 'plain',
  ) {
    this.terminal = {
      pick: (title, choices, initial) => ui.pick(title, choices, initial),
      approve: (lines, tool) => ui.approve(lines, tool),
      ask: (lines, fields) => ui.ask(lines, fields),
      setStatus: (text) => ui.setStatus(text),
    };
  }

  begin(): void {
    this.ui.setBusy(true);
    this.ui.setActivity('waiting for the model');
  }

  async end(): Promise<void> {
    while (this.gate !== null) await this.gate;
    this.afterFlush(true, () => undefined);
    while (this.gate !== null) await this.gate;
    this.ui.setActivity(null);
    this.ui.setBusy(false);
  }

  handle(event: RunEvent): void {
    this.inOrder(() => this.show(event));
  }

  line(text: string): void {
    const one = text.replace(/\n/g, '\\n');
    this.inOrder(() => this.afterFlush(true, () => this.ui.print(() => [one])));
  }

  write(text: string): void {
    const lines = text.replace(/\n$/, '').split('\n');
    this.inOrder(() => this.afterFlush(true, () => this.ui.print(() => lines)));
  }

  /** Runs `step` now, or once the gate opens, keeping the order events came in. */
  private inOrder(step: () => void): void {
    if (this.gate !== null) this.backlog.push(step);
    else step();
  }

  /**
   * Prints the complete blocks of the pending text (`all`: everything), then runs `then`. Rendering
   * waits for the Markdown parser, and a block holding code for the highlighter: the gate closes, and
   * this and every later step run once they are loaded, in order.
   */
  private afterFlush(all: boolean, then: () => void): void {
    const chunk = this.pending.slice(0, all ? this.pending.length : completeBlocksEnd(this.pending));
    if (this.mode === 'rich' && this.pending.trim() !== '') {
      // Rendering needs the Markdown parser, and code in a block to print needs the highlighter.
      const code = chunk.trim() !== '' && !highlighterReady() && hasLanguageFence(chunk) && this.highlightFailure === null;
      if (!markdownReady() || code) {
        this.backlog.unshift(() => this.afterFlush(all, then));
        // Released once, when everything asked for has loaded (or failed and been reported).
        this.gate = Promise.all([this.loadParser(), code ? this.loadHighlighting() : undefined]).then(() => this.release());
        return;
      }
    }
    this.flush(all);
    then();
  }

  /** Loads the Markdown parser; a failure is reported once, and text is shown as its source from then on. */
  private loadParser(): Promise<void> {
    return loadMarkdown().catch((error: unknown) => {
      if (this.mode === 'plain') return;
      this.mode = 'plain';
      this.ui.print(() => [this.paint('yellow', `  ! Markdown is shown as its source: ${String((error as Error).message)}`)]);
    });
  }

  /** Loads the highlighter; a failure is reported once, and code is shown plain from then on. */
  private loadHighlighting(): Promise<void> {
    return loadHighlighter().catch((error: unknown) => {
      if (this.highlightFailure !== null) return;
      this.highlightFailure = String((error as Error).message);
      this.ui.print(() => [this.paint('yellow', `  ! code is shown without highlighting: ${this.highlightFailure}`)]);
    });
  }

  /** Lets the steps that waited behind the gate through, in order, until one closes it again. */
  private release(): void {
    this.gate = null;
    while (this.gate === null && this.backlog.length > 0) this.backlog.shift()!();
  }

  private show(event: RunEvent): void {
    if (event.kind === 'text_delta') {
      this.pending += event.delta;
      // Start loading at the fence's first line, so the block rarely has to wait when it is complete.
      if (this.mode === 'rich' && !highlighterReady() && hasLanguageFence(this.pending)) void this.loadHighlighting();
      this.afterFlush(false, () => undefined);
      return;
    }
    // approval_requested: the chat asks once the run stops; usage: the status line.
    if (event.kind === 'approval_requested' || event.kind === 'usage') return;
    this.afterFlush(true, () => this.showOther(event));
  }

  private showOther(event: RunEvent): void {
    const { paint, ui } = this;
    switch (event.kind) {
      case 'tool_started':
        ui.print(() => [paint('cyan', `  ⚙ ${event.name} ${compactJson(event.input)}`)]);
        ui.setActivity(`running ${event.name}`);
        return;
      case 'tool_finished':
        ui.print(this.result(event.name, event.result, event.isError));
        ui.setActivity('waiting for the model');
        return;
      case 'model_retry':
        ui.print(() => [paint('yellow', `  ↻ ${retryNotice(event)}`)]);
        ui.setActivity(`retrying in ${Math.max(1, Math.round(event.delayMs / 1000))} s`);
        return;
      case 'compacted':
        ui.print(() => [
          paint(
            'magenta',
            `  ⟳ condensed ${event.removed} earlier turns into a summary (~${event.tokensBefore} → ~${event.tokensAfter} tokens)`,
          ),
        ]);
        return;
      default:
        // Everything else (run_started, snapshot, settled, …) shows nothing.
        return;
    }
  }

  /** Prints the complete blocks of the pending text (`all`: everything), and previews the rest. */
  private flush(all: boolean): void {
    const end = all ? this.pending.length : completeBlocksEnd(this.pending);
    const chunk = this.pending.slice(0, end);
    this.pending = this.pending.slice(end);
    if (chunk.trim() !== '') {
      const layout = this.layout(chunk);
      this.ui.print((width) => ['', ...layout(width)]);
    }
    const rest = this.pending;
    this.ui.setPreview(rest.trim() === '' ? null : this.layout(rest));
    if (rest.trim() !== '') this.ui.setActivity('writing');
  }

  /** `source` laid out for a width; the last layout is kept, since the preview is drawn at every frame. */
  private layout(source: string): Printable {
    let last: { width: number; lines: string[] } | null = null;
    return (width) => {
      if (last?.width !== width) {
        const text = this.mode === 'rich' ? renderMarkdown(source, width, this.paint) : wrapPlain(source.replace(/^\n+|\s+$/g, ''), width);
        last = { width, lines: text.split('\n') };
      }
      return last.lines;
    };
  }

  /** A tool result: one line, or (Ctrl-O) the whole result under it. */
  private result(name: string, result: unknown, isError: boolean): Printable {
    const text = typeof result === 'string' ? result : (JSON.stringify(result) ?? String(result));
    const lines = text.replace(/(\r?\n)+$/, '').split(/\r?\n/);
    const { paint, ui } = this;
    const mark = isError ? paint('red', `  ✗ ${name}:`) : paint('green', `  ✓ ${name}:`);
    return (width) => {
      if (!ui.expanded || lines.length <= 1) {
        const more = lines.length > 1 ? ` (+${lines.length - 1} more lines · Ctrl-O)` : '';
        // The first line gets what the row has left after the mark and the count.
        const room = Math.max(20, width - 1 - textWidth(`  ✓ ${name}: `) - textWidth(more));
        return [`${mark} ${paint(isError ? 'red' : 'green', truncateToWidth(lines[0], room))}${paint('dim', more)}`];
      }
      const shown = lines.slice(0, EXPANDED_LINES).map((line) => `${paint('dim', '    │ ')}${terminalText(line)}`);
      const cut = lines.length > EXPANDED_LINES ? [paint('dim', `    │ … ${lines.length - EXPANDED_LINES} more lines`)] : [];
      return [`${mark} ${paint('dim', `${lines.length} lines (Ctrl-O to collapse)`)}`, ...shown, ...cut];
    };
  }
}

function compactJson(value: unknown): string {
  return clip(JSON.stringify(value) ?? '', INPUT_PREVIEW);
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
