import type { RunEvent } from '../../runtime/contract/events.js';
import type { Choice } from '../tui/index.js';
import type { InputAnswer } from '../../runtime/contract/tool.js';

/** One field of a question's form, as the terminal asks it: typed text, read as `kind` on Enter. */
export type QuestionField = { key: string; label: string; kind: 'string' | 'number' | 'integer' | 'boolean'; required: boolean };

/** A decision at an approval prompt; null: decide later. */
export type ApprovalAnswer = 'yes' | 'no' | 'always' | null;

/**
 * Where a chat shows what happens: runs as they stream, status lines, listings. Piped, it is a plain
 * transcript (`RunRenderer`); on a terminal, a persistent screen that also offers `terminal`.
 */
export interface ChatView {
  /** A run (a prompt, an approval, a condensation) begins. */
  begin(): void;
  /** The run ended, however it ended; resolves once everything it showed is on screen. */
  end(): void | Promise<void>;
  handle(event: RunEvent): void;
  /** One painted line; a line break in it shows as `\n`, so it stays one line. */
  line(text: string): void;
  /** Lines as they are (a listing, the help), already made safe and painted. */
  write(text: string): void;
  /** What only a terminal offers. */
  readonly terminal?: TerminalControls;
}

/** Pickers, approval prompts and the status line of a chat on a terminal. */
export interface TerminalControls {
  /** A list chosen from with the arrow keys: the value chosen, or null when cancelled. */
  pick<T>(title: string, choices: ReadonlyArray<Choice<T>>, initial?: number): Promise<T | null>;
  /** An approval prompt for a call of `tool`, described by `lines` (painted). */
  approve(lines: string[], tool: string): Promise<ApprovalAnswer>;
  /** A question a tool or an MCP server asks (`lines`, painted and safe), its form as `fields` (null: one it cannot fill). */
  ask(lines: string[], fields: QuestionField[] | null): Promise<InputAnswer>;
  /** The line under the editor. */
  setStatus(text: string): void;
}
