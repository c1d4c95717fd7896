// Reading the chat's persistent screen in terminal tests: is it idle at the prompt, what does the
// status line say, how many answers has it shown.
import type { VtScreen } from '../support/vt-screen.js';

const SPINNER = /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/;
const RULE = /^─{10,}$/;

/** Every sequence the chat itself writes to draw: colours, cursor moves, erasing, its terminal modes. */
export const OUR_SEQUENCES = /\x1b\[(?:\d*[ABCDGHJK]|[0-9;]*m|\?(?:2004|2026|25)[hl])/g;

/** The live region as drawn now: the rows from the rule above the editor to the bottom. */
export function liveRows(screen: VtScreen): string[] {
  const lines = screen.lines();
  const rule = lines.findLastIndex((line) => RULE.test(line));
  return rule < 0 ? [] : lines.slice(rule + 1).filter((line) => line !== '');
}

/** The open prompt or picker, as drawn above the editor: from its title line (`?` first, or `title`) to the rule. */
export function modalRows(screen: VtScreen, title: RegExp = /^\? /): string[] {
  const lines = screen.lines();
  const rule = lines.findLastIndex((line) => RULE.test(line));
  const top = lines.slice(0, Math.max(0, rule)).findLastIndex((line) => title.test(line));
  return top < 0 ? [] : lines.slice(top, rule);
}

/** At the prompt with nothing running: the editor is drawn and no spinner turns. */
export function idle(screen: VtScreen): boolean {
  const lines = screen.lines();
  return liveRows(screen).some((line) => line.startsWith('you ›')) && !lines.some((line) => SPINNER.test(line));
}

/** The status line under the editor, its rows joined back into one (it wraps on a narrow terminal). */
export function statusText(screen: VtScreen): string {
  const rows = liveRows(screen);
  const editorEnd = rows.findLastIndex((line) => line.startsWith('you ›') || line.startsWith('    … ') || line.startsWith('      '));
  return rows.slice(editorEnd + 1).join(' · ');
}

/** How many lines of the whole transcript match `pattern`. */
export function answers(screen: VtScreen, pattern: RegExp): number {
  return screen.all().filter((line) => pattern.test(line)).length;
}
