import type { RunEvent } from '../../runtime/contract/events.js';
import { terminalText } from '../safe-text.js';
import type { Paint } from '../style.js';
import { completeBlocksEnd, renderMarkdown, wrapPlain } from './markdown.js';
import type { Spinner } from './spinner.js';
import { retryNotice } from './status.js';

const RESULT_PREVIEW = 70;

/**
 * How a terminal shows assistant text: `rich` renders Markdown (colour allowed), `plain` shows the
 * source (`NO_COLOR`); both wrap at word boundaries to `width()`, the terminal's current width.
 */
export type TextLayout = { mode: 'rich' | 'plain'; width(): number };

/**
 * Turns a run's events into terminal output: assistant text as it streams, one compact line per tool
 * call and result, a line when approval is needed or history was condensed, and the spinner whenever
 * the model is being waited on. Faults are reported by whoever awaited the run, not here, so each
 * failure is printed once. Nothing the model or a tool produced reaches the terminal raw: streamed
 * text goes through `terminalText`, status lines through `paint` (which does the same) and `line`.
 */
export class RunRenderer {
  private atLineStart = true;
  /** With a layout: streamed text whose block is not complete yet. */
  private pending = '';
  /** Blocks of text shown since the last status line, so the next one is set off by a blank line. */
  private blocksShown = 0;

  /** Without `layout` (piped output) text is written as it streams, unwrapped and unrendered. */
  constructor(
    private readonly write: (text: string) => void,
    private readonly paint: Paint,
    private readonly spinner: Spinner,
    private readonly layout?: TextLayout,
  ) {}

  /** Call when a run (a prompt, an approval, a rejection) begins. */
  begin(): void {
    this.spinner.start('waiting for the model');
  }

  /** Call when the run ends, however it ends. */
  end(): void {
    this.flushText(true);
    this.spinner.stop();
    this.newline();
  }

  handle(event: RunEvent): void {
    switch (event.kind) {
      case 'text_delta': {
        if (this.layout !== undefined) {
          this.pending += event.delta;
          this.flushText(false);
          return;
        }
        const shown = terminalText(event.delta);
        this.spinner.stop();
        this.write(shown);
        if (shown !== '') this.atLineStart = shown.endsWith('\n');
        return;
      }
      case 'tool_started':
        this.line(this.paint('cyan', `  ⚙ ${event.name} ${compactJson(event.input)}`));
        return;
      case 'tool_finished':
        this.line(
          event.isError
            ? this.paint('red', `  ✗ ${event.name}: ${preview(event.result)}`)
            : this.paint('green', `  ✓ ${event.name}: ${preview(event.result)}`),
        );
        this.spinner.start('waiting for the model');
        return;
      case 'approval_requested':
        this.line(
          this.paint(
            'yellow',
            `  ? ${event.name} ${compactJson(event.input)} needs your approval: /approve ${event.approvalId} or /reject ${event.approvalId}`,
          ),
        );
        return;
      case 'model_retry':
        this.line(this.paint('yellow', `  ↻ ${retryNotice(event)}`));
        this.spinner.start(`retrying in ${Math.max(1, Math.round(event.delayMs / 1000))} s`);
        return;
      case 'compacted':
        this.line(
          this.paint(
            'magenta',
            `  ⟳ condensed ${event.removed} earlier turns into a summary (~${event.tokensBefore} → ~${event.tokensAfter} tokens)`,
          ),
        );
        return;
      default:
        return;
    }
  }

  /**
   * A full line of status (painted text), started on a fresh line whatever was streaming before. One
   * line it stays: a line break inside (a tool name, an approval id) is shown as `\n`, so it cannot
   * start a line that looks like one of ours.
   */
  line(text: string): void {
    this.flushText(true);
    this.spinner.stop();
    this.newline();
    this.write(`${text.replace(/\n/g, '\\n')}\n`);
    this.atLineStart = true;
    this.blocksShown = 0;
  }

  /** Shows the complete blocks of the pending text (`all`: everything pending), laid out for the terminal. */
  private flushText(all: boolean): void {
    if (this.layout === undefined) return;
    const end = all ? this.pending.length : completeBlocksEnd(this.pending);
    const chunk = this.pending.slice(0, end);
    this.pending = this.pending.slice(end);
    if (chunk.trim() === '') return;
    const width = this.layout.width();
    const shown =
      this.layout.mode === 'rich' ? renderMarkdown(chunk, width, this.paint) : wrapPlain(chunk.replace(/^\n+|\s+$/g, ''), width);
    this.spinner.stop();
    this.newline();
    if (this.blocksShown > 0) this.write('\n');
    this.write(`${shown}\n`);
    this.atLineStart = true;
    this.blocksShown++;
    // More of the reply is on its way: show that something is happening.
    if (!all && this.pending !== '') this.spinner.start('writing');
  }

  private newline(): void {
    if (!this.atLineStart) this.write('\n');
    this.atLineStart = true;
  }
}

function compactJson(value: unknown): string {
  const json = JSON.stringify(value) ?? '';
  return json.length > RESULT_PREVIEW ? `${json.slice(0, RESULT_PREVIEW - 1)}…` : json;
}

/** The first line of a result, and how much more there is. */
function preview(result: unknown): string {
  const text = typeof result === 'string' ? result : (JSON.stringify(result) ?? String(result));
  const lines = text.replace(/(\r?\n)+$/, '').split(/\r?\n/);
  const first = lines[0].length > RESULT_PREVIEW ? `${lines[0].slice(0, RESULT_PREVIEW - 1)}…` : lines[0];
  return lines.length > 1 ? `${first} (+${lines.length - 1} more lines)` : first;
}
