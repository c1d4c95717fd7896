import { truncateToWidth } from './width.js';

/** One row of a list to choose from; a `disabled` row says why and cannot be chosen. */
export type Choice<T> = { label: string; value: T; detail?: string; disabled?: string };

/** How rows are painted: selected, dimmed, or plain (the label is already painted by the caller). */
export type SelectStyle = { selected(text: string): string; dim(text: string): string };

/**
 * A list chosen from with the arrow keys: Up/Down (and PageUp/PageDown, Home/End) move over the rows
 * that can be chosen, the visible window follows the selection, and rows above and below the window
 * are counted. Keys in, rows out; the caller decides what Enter and Escape do.
 */
export class SelectList<T> {
  private index: number;

  constructor(
    readonly choices: ReadonlyArray<Choice<T>>,
    private readonly visible = 10,
    initial = 0,
  ) {
    this.index = Math.min(Math.max(0, initial), Math.max(0, choices.length - 1));
    if (this.choices[this.index]?.disabled !== undefined) this.move(1);
  }

  get selected(): Choice<T> | undefined {
    const choice = this.choices[this.index];
    return choice === undefined || choice.disabled !== undefined ? undefined : choice;
  }

  get position(): number {
    return this.index;
  }

  /** Moves `step` choosable rows (clamped at the ends). */
  move(step: number): void {
    const direction = Math.sign(step);
    if (direction === 0) return;
    let left = Math.abs(step);
    let at = this.index;
    while (left > 0) {
      let next = at + direction;
      while (next >= 0 && next < this.choices.length && this.choices[next].disabled !== undefined) next += direction;
      if (next < 0 || next >= this.choices.length) break;
      at = next;
      left--;
    }
    this.index = at;
  }

  /** A navigation key (`up`, `down`, `pageup`, `pagedown`, `home`, `end`); false for any other. */
  key(name: string | undefined): boolean {
    switch (name) {
      case 'up':
        this.move(-1);
        return true;
      case 'down':
        this.move(1);
        return true;
      case 'pageup':
        this.move(-this.visible);
        return true;
      case 'pagedown':
        this.move(this.visible);
        return true;
      case 'home':
        this.move(-this.choices.length);
        return true;
      case 'end':
        this.move(this.choices.length);
        return true;
      default:
        return false;
    }
  }

  /** The visible rows, each cut to `width`: the selected one marked `›`, counts of rows off either end. */
  render(width: number, style: SelectStyle): string[] {
    const start = Math.max(0, Math.min(this.index - Math.floor(this.visible / 2), this.choices.length - this.visible));
    const end = Math.min(this.choices.length, start + this.visible);
    const rows: string[] = [];
    if (start > 0) rows.push(style.dim(`  ↑ ${start} more`));
    for (let i = start; i < end; i++) {
      const choice = this.choices[i];
      const detail = choice.disabled ?? choice.detail;
      const text = `${choice.label}${detail === undefined ? '' : `  ${style.dim(detail)}`}`;
      const row = truncateToWidth(`${i === this.index ? '› ' : '  '}${text}`, width - 1);
      rows.push(i === this.index ? style.selected(row) : choice.disabled !== undefined ? style.dim(row) : row);
    }
    if (end < this.choices.length) rows.push(style.dim(`  ↓ ${this.choices.length - end} more`));
    return rows;
  }
}
