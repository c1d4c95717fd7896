import { terminalText } from '../../safe-text.js';
import type { Paint } from '../../style.js';
import { type Frame, type Printable, textWidth, truncateToWidth } from '../../tui/index.js';
import type { PromptEditor } from './editor.js';

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const PROMPT = 'you › ';
const CONTINUATION = '    … ';

/** What the live region shows, read from the terminal UI on each redraw. */
export type LiveParts = {
  width: number;
  height: number;
  paint: Paint;
  /** The reply being streamed. */
  preview: Printable | null;
  /** What the run is doing, with the spinner at `spinnerStep`. */
  activity: string | null;
  spinnerStep: number;
  /** Prompts sent while a run streams, waiting their turn. */
  queued: readonly string[];
  /** A picker's or approval prompt's lines, when one is open: the editor shows no cursor then. */
  modal: string[] | null;
  /** `@` completions, when no modal is open. */
  completions: string[] | null;
  editor: PromptEditor;
  /** The status line; its parts (` · `) are packed into as few lines as they fit. */
  status: string;
};

/**
 * The live region, top to bottom: the reply being streamed (its last lines, leaving room for the rest),
 * what the run is doing, prompts queued, a picker or approval prompt or `@` completions, a rule, the
 * editor and the status line; the cursor is the editor's.
 */
export function liveFrame(parts: LiveParts): Frame {
  const { width, paint } = parts;
  const lines: string[] = [];
  if (parts.preview !== null) {
    const room = Math.max(3, parts.height - 10);
    lines.push(...parts.preview(width).slice(-room));
  }
  if (parts.activity !== null) lines.push(paint('cyan', `${SPINNER[parts.spinnerStep % SPINNER.length]} ${parts.activity}`));
  for (const line of parts.queued) lines.push(paint('dim', truncateToWidth(`↳ queued: ${line.replace(/\s+/g, ' ')}`, width - 1)));
  if (parts.modal !== null) lines.push(...parts.modal);
  else if (parts.completions !== null) lines.push(...parts.completions);
  lines.push(paint('dim', '─'.repeat(width - 1)));
  const view = parts.editor.render(width, paint('cyan', PROMPT), paint('cyan', CONTINUATION));
  const top = lines.length;
  lines.push(...view.lines);
  if (parts.status !== '') for (const line of packParts(parts.status.split(' · '), width - 1)) lines.push(paint('dim', line));
  return { lines, cursor: parts.modal === null ? { row: top + view.cursor.row, col: view.cursor.col } : undefined };
}

/** A prompt as it is echoed into the transcript when taken: behind the prompt marks, made safe. */
export function promptLines(line: string, paint: Paint): string[] {
  return line.split('\n').map((text, i) => `${paint('cyan', i === 0 ? PROMPT : CONTINUATION)}${shown(text)}`);
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
