import type { RunEvent } from '../../runtime/contract/events.js';
import { terminalText } from '../safe-text.js';
import type { Paint } from '../style.js';
import { retryNotice } from './status.js';
import type { ChatView } from './view.js';

const RESULT_PREVIEW = 70;

/**
 * A chat's runs as a plain transcript, for piped output: assistant text written as it streams
 * (unwrapped, unrendered), one compact line per tool call and result, a line when approval is needed
 * or history was condensed. Faults are reported by whoever awaited the run, not here, so each failure
 * is printed once. Nothing the model or a tool produced is written raw: streamed text goes through
 * `terminalText`, status lines through `paint` (which does the same) and `line`. A terminal gets the
 * `TerminalView` instead.
 */
export class RunRenderer implements ChatView {
  private atLineStart = true;

  constructor(
    private readonly out: (text: string) => void,
    private readonly paint: Paint,
  ) {}

  begin(): void {}

  end(): void {
    this.newline();
  }

  handle(event: RunEvent): void {
    switch (event.kind) {
      case 'text_delta': {
        const shown = terminalText(event.delta);
        this.out(shown);
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
    this.newline();
    this.out(`${text.replace(/\n/g, '\\n')}\n`);
    this.atLineStart = true;
  }

  write(text: string): void {
    this.newline();
    this.out(text);
    this.atLineStart = text === '' || text.endsWith('\n');
  }

  private newline(): void {
    if (!this.atLineStart) this.out('\n');
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
