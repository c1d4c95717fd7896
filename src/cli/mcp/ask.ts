import { createInterface } from 'node:readline';
import type { Io } from '../run.js';
import type { Ask } from './chat.js';

/** A yes/no question on the terminal, before the chat's own editor takes the keyboard; none when not on a terminal. */
export function terminalAsk(io: Io): Ask | undefined {
  if (io.stdin.isTTY !== true || io.stdout.isTTY !== true) return undefined;
  return (question) =>
    new Promise((resolve) => {
      const lines = createInterface({ input: io.stdin, output: io.stdout, terminal: true });
      lines.question(question, (answer) => {
        lines.close();
        resolve(/^y(es)?$/i.test(answer.trim()));
      });
    });
}
