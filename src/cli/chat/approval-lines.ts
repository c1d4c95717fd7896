import type { PendingApproval } from '../../runtime/contract/events.js';
import { ToolError } from '../../runtime/tools/index.js';
import type { Paint } from '../style.js';
import { editDiff, type Workspace } from '../tools/index.js';

/** Lines of a diff or a file shown at an approval prompt; the rest is counted. */
const SHOWN_LINES = 30;

/**
 * What a call waiting for approval would do, as the approval prompt shows it: the command a `bash`
 * call runs, the diff a `files.edit` makes (or why it will be refused), the start of what a
 * `files.write` writes, the input of any other tool. Every piece is painted, so what the model wrote
 * is shown, never obeyed.
 */
export async function approvalLines(workspace: Workspace, call: Pick<PendingApproval, 'name' | 'input'>, paint: Paint): Promise<string[]> {
  const input = (typeof call.input === 'object' && call.input !== null ? call.input : {}) as Record<string, unknown>;
  const head = (what: string) => paint(['bold', 'yellow'], `? ${call.name} ${what}`);
  switch (call.name) {
    case 'bash': {
      const command = String(input.command ?? '');
      const timeout = typeof input.timeout_seconds === 'number' ? paint('dim', `  (timeout ${input.timeout_seconds} s)`) : '';
      return [
        head('wants to run, in the workspace folder:'),
        ...command.split('\n').map((line, i) => `  ${i === 0 ? '$' : ' '} ${paint('bold', line)}`),
        ...(timeout ? [timeout] : []),
      ];
    }
    case 'files.edit': {
      const lines = [head(`wants to edit ${String(input.path ?? '?')}:`)];
      try {
        const diff = await editDiff(workspace, call.input);
        for (const line of diff.slice(0, SHOWN_LINES)) {
          if (line.kind === '@') lines.push(paint('cyan', `  @@ ${line.text}`));
          else if (line.kind === '-') lines.push(paint('red', `  - ${line.text}`));
          else if (line.kind === '+') lines.push(paint('green', `  + ${line.text}`));
          else lines.push(paint('dim', `    ${line.text}`));
        }
        if (diff.length > SHOWN_LINES) lines.push(paint('dim', `  … ${diff.length - SHOWN_LINES} more lines`));
      } catch (error) {
        if (!ToolError.isInstance(error)) throw error;
        lines.push(paint('red', `  ✗ it will be refused: ${error.message}`));
      }
      return lines;
    }
    case 'files.write': {
      const content = String(input.content ?? '').split('\n');
      return [
        head(`wants to write ${String(input.path ?? '?')} (${content.length} line${content.length === 1 ? '' : 's'}):`),
        ...content.slice(0, SHOWN_LINES).map((line) => paint('green', `  + ${line}`)),
        ...(content.length > SHOWN_LINES ? [paint('dim', `  … ${content.length - SHOWN_LINES} more lines`)] : []),
      ];
    }
    default:
      return [head('waits for approval:'), `  ${paint('dim', JSON.stringify(call.input) ?? '')}`];
  }
}
