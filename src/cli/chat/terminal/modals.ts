import type { Paint } from '../../style.js';
import type { SelectList, SelectStyle } from '../../tui/index.js';
import type { Key } from './editor.js';
import type { ApprovalAnswer, QuestionField } from '../view.js';
import type { InputAnswer } from '../../../runtime/contract/tool.js';

/** What takes the keys instead of the editor while it is shown: a picker or an approval prompt. */
export type Modal = { lines(width: number): string[]; key(input: string | undefined, key: Key): void; cancel(): void };

/** A modal being opened: given how to settle it, its lines and keys. */
type ModalMaker<T> = (settle: (value: T) => void) => Omit<Modal, 'cancel'>;

/**
 * The one modal open at a time, and the promise of its outcome: opening another cancels the one open,
 * so its promise settles with its cancelled value rather than hanging.
 */
export class ModalSlot {
  private modal: Modal | null = null;

  /** `refresh`: the screen is redrawn whenever a modal opens or settles. */
  constructor(private readonly refresh: () => void) {}

  get isOpen(): boolean {
    return this.modal !== null;
  }

  /** The open modal's lines; null when none is open. */
  lines(width: number): string[] | null {
    return this.modal === null ? null : this.modal.lines(width);
  }

  key(input: string | undefined, key: Key): void {
    this.modal?.key(input, key);
  }

  cancel(): void {
    this.modal?.cancel();
  }

  /** Opens the modal `make` describes; resolves with what it settles on, or `cancelled`. */
  open<T>(cancelled: T, make: ModalMaker<T>): Promise<T> {
    return new Promise((resolve) => {
      const settle = (value: T) => {
        if (this.modal !== modal) return;
        this.modal = null;
        this.refresh();
        resolve(value);
      };
      const modal: Modal = { ...make(settle), cancel: () => settle(cancelled) };
      this.modal?.cancel();
      this.modal = modal;
      this.refresh();
    });
  }
}

/** A list to choose from with the arrow keys: Enter settles on the value selected, Escape on null. */
export function picker<T>(title: string, list: SelectList<T>, paint: Paint, style: SelectStyle): ModalMaker<T | null> {
  return (settle) => ({
    lines: (width) => [paint('bold', title), ...list.render(width, style), paint('dim', '↑↓ move · Enter choose · Esc cancel')],
    key: (_input, key) => {
      if (key.name === 'return') {
        const chosen = list.selected;
        if (chosen !== undefined) settle(chosen.value);
      } else if (key.name === 'escape') settle(null);
      else list.key(key.name);
    },
  });
}

/**
 * An approval prompt: `lines` say what the call does (painted by the caller), then the keys: y runs
 * it, n refuses it, a runs it and every later call of `tool` in this session, Escape decides later.
 */
export function approvalPrompt(lines: string[], tool: string, paint: Paint): ModalMaker<ApprovalAnswer> {
  const keys = `${paint('bold', 'y')} yes · ${paint('bold', 'n')} no · ${paint('bold', 'a')} always for ${tool} in this session · Esc later`;
  return (settle) => ({
    lines: () => [...lines, keys],
    key: (input, key) => {
      const answer = (input ?? '').toLowerCase();
      if (answer === 'y') settle('yes');
      else if (answer === 'n') settle('no');
      else if (answer === 'a') settle('always');
      else if (key.name === 'escape') settle(null);
    },
  });
}

/**
 * A question a tool or an MCP server asks (`lines`, painted and made safe by the caller), answered on
 * the terminal field by field: type, Enter for the next field (the last accepts); Ctrl-N declines,
 * Escape cancels. `fields` null: a form this prompt cannot fill (nested objects), which can only be
 * declined or cancelled.
 */
export function questionPrompt(lines: string[], fields: QuestionField[] | null, paint: Paint): ModalMaker<InputAnswer> {
  const content: Record<string, unknown> = {};
  let at = 0;
  let typed = '';
  let problem: string | null = null;
  const keys = (first: string) => paint('dim', `${first} · Ctrl-N decline · Esc cancel`);
  return (settle) => ({
    lines: () => {
      if (fields === null) return [...lines, paint('yellow', 'this form cannot be filled in on the terminal'), keys('')];
      const done = fields.slice(0, at).map((field) => `  ${field.label}: ${JSON.stringify(content[field.key] ?? null)}`);
      const current = fields[at];
      const asking = current === undefined ? [] : [`  ${paint('bold', current.label)}${current.required ? '' : ' (optional)'}: ${typed}▏`];
      return [
        ...lines,
        ...done,
        ...asking,
        ...(problem === null ? [] : [paint('red', `  ${problem}`)]),
        keys(at < fields.length - 1 ? 'Enter next' : 'Enter send'),
      ];
    },
    key: (input, key) => {
      if (key.name === 'escape') return settle({ action: 'cancel' });
      if (key.ctrl && key.name === 'n') return settle({ action: 'decline' });
      if (fields === null) return;
      const field = fields[at];
      if (key.name === 'return') {
        if (field !== undefined) {
          const read = readField(field, typed);
          if (read !== null && 'problem' in read) {
            problem = read.problem;
            return;
          }
          if (read !== null) content[field.key] = read.value;
          problem = null;
          typed = '';
          at++;
        }
        if (at >= fields.length) settle({ action: 'accept', content });
      } else if (key.name === 'backspace') typed = [...typed].slice(0, -1).join('');
      else if (input !== undefined && !key.ctrl && !key.meta && !/[\x00-\x1f\x7f]/.test(input)) typed += input;
    },
  });
}

/** What was typed for `field`: its value, a problem to show, or null for an optional field left empty. */
function readField(field: QuestionField, typed: string): { value: unknown } | { problem: string } | null {
  const text = typed.trim();
  if (text === '') return field.required ? { problem: `${field.label} is required` } : null;
  if (field.kind === 'string') return { value: typed };
  if (field.kind === 'boolean') {
    if (/^(y|yes|true)$/i.test(text)) return { value: true };
    if (/^(n|no|false)$/i.test(text)) return { value: false };
    return { problem: 'answer y or n' };
  }
  const number = Number(text);
  if (!Number.isFinite(number) || (field.kind === 'integer' && !Number.isInteger(number)))
    return { problem: `${field.label} must be ${field.kind === 'integer' ? 'a whole number' : 'a number'}` };
  return { value: number };
}
