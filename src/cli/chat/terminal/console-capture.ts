import { format } from 'node:util';
import type { Paint } from '../../style.js';
import type { Printable } from '../../tui/index.js';

const CONSOLE_METHODS = ['log', 'info', 'warn', 'error', 'debug'] as const;

/**
 * Sends what the process logs to the transcript while the chat holds the terminal: the runtime reporting
 * a tool that threw, a library's warning, would otherwise land in the middle of the live region and leave
 * the screen out of step. Printed painted (warnings and errors yellow, the rest dim), so made safe.
 * Returns what puts the console's own methods back.
 */
export function captureConsole(print: (render: Printable) => void, paint: Paint): () => void {
  const saved: Partial<Record<(typeof CONSOLE_METHODS)[number], (...args: unknown[]) => void>> = {};
  for (const method of CONSOLE_METHODS) {
    saved[method] = console[method];
    console[method] = (...args: unknown[]) => {
      const lines = format(...args).split('\n');
      print(() => lines.map((line) => paint(method === 'error' || method === 'warn' ? 'yellow' : 'dim', line)));
    };
  }
  return () => {
    for (const method of CONSOLE_METHODS) if (saved[method] !== undefined) console[method] = saved[method];
  };
}
