import type { ToolDefinition } from '../../runtime/contract/tool.js';
import { ToolError } from '../../runtime/tools/index.js';
import { field, readWhole, writeWhole } from './files.js';
import type { Workspace } from './workspace.js';

/** Files larger than this are not edited by string replacement (nor read whole to do it). */
const MAX_EDIT_BYTES = 4 * 1024 * 1024;
/** Unchanged lines shown around each change in the approval diff. */
const CONTEXT_LINES = 2;

/** One line of an edit's diff: kept (`' '`), removed (`-`), added (`+`), or a hunk header (`@`). */
export type DiffLine = { kind: ' ' | '-' | '+' | '@'; text: string };

type EditInput = { path: string; oldString: string; newString: string; replaceAll: boolean };

/**
 * `files.edit`: replaces an exact string in a text file of the workspace. Refused when the string does
 * not occur, or occurs more than once without `replace_all` (the model must quote enough to make it
 * unique), so an edit never lands somewhere the model did not look. Each edit waits for approval, shown
 * as a diff (`editDiff`); the file is read again when the edit runs, and refused if it changed so that
 * the string no longer matches once. Written as `files.write` writes: a sibling, synced, renamed.
 */
export function editTool(workspace: Workspace): ToolDefinition {
  return {
    name: 'files.edit',
    description:
      'Replace an exact string in a text file of the workspace. old_string must occur exactly once (quote enough surrounding text, whitespace included, to make it unique), unless replace_all is true. The user approves each edit.',
    inputSchema: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'A path relative to the workspace folder' },
        old_string: { type: 'string', description: 'The exact text to replace' },
        new_string: { type: 'string', description: 'The text to put in its place' },
        replace_all: { type: 'boolean', description: 'Replace every occurrence (default false)' },
      },
      required: ['path', 'old_string', 'new_string'],
    },
    needsApproval: true,
    async execute(input) {
      const edit = readInput(input);
      const at = workspace.locate(edit.path);
      const before = await readWhole(workspace, at, MAX_EDIT_BYTES);
      const { after, count } = apply(before, edit, at.shown);
      await writeWhole(workspace, at, after);
      return `Edited ${at.shown}: replaced ${count === 1 ? 'one occurrence' : `${count} occurrences`}`;
    },
  };
}

/**
 * What the edit `input` would change, as diff lines with a little context, for the approval prompt;
 * a `ToolError` saying why it would be refused (no such string, not unique, outside the workspace).
 */
export async function editDiff(workspace: Workspace, input: unknown): Promise<DiffLine[]> {
  const edit = readInput(input);
  const at = workspace.locate(edit.path);
  const before = await readWhole(workspace, at, MAX_EDIT_BYTES);
  const { after } = apply(before, edit, at.shown);
  return lineDiff(before, after);
}

function readInput(input: unknown): EditInput {
  const oldString = field(input, 'old_string', { allowEmpty: true });
  const newString = field(input, 'new_string', { allowEmpty: true });
  if (oldString === '') throw new ToolError('old_string: the text to replace must not be empty (use files.write for a new file)');
  if (oldString === newString) throw new ToolError('old_string and new_string are the same: nothing would change');
  const replaceAll = (input as Record<string, unknown>).replace_all;
  if (replaceAll !== undefined && typeof replaceAll !== 'boolean') throw new ToolError('replace_all: true or false');
  return { path: field(input, 'path'), oldString, newString, replaceAll: replaceAll === true };
}

function apply(before: string, edit: EditInput, shown: string): { after: string; count: number } {
  const count = before.split(edit.oldString).length - 1;
  if (count === 0) {
    throw new ToolError(`old_string does not occur in ${shown}; read the file and quote the exact text, whitespace included`);
  }
  if (count > 1 && !edit.replaceAll) {
    throw new ToolError(
      `old_string occurs ${count} times in ${shown}; quote more of the surrounding text to pick one, or set replace_all to change all of them`,
    );
  }
  // split/join: no `$&` patterns, every occurrence replaced literally.
  return { after: before.split(edit.oldString).join(edit.newString), count };
}

/** Past this many lines on either side of the changed window, its lines are shown as removed and added whole. */
const MAX_ALIGNED_LINES = 1_500;

/**
 * The lines that differ between `before` and `after`, each run of changes with `CONTEXT_LINES` of
 * context under a `@` header naming its first line; runs closer than twice the context share a hunk.
 * The common head and tail are skipped first; the window between is aligned line by line (longest
 * common subsequence), so a `replace_all` over a long file shows each change, not the whole middle.
 */
export function lineDiff(before: string, after: string): DiffLine[] {
  const a = before.split('\n');
  const b = after.split('\n');
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  // Every line with its kind and its line number in `before` (for kept and removed lines).
  const lines: Array<DiffLine & { at: number }> = [];
  for (let i = 0; i < head; i++) lines.push({ kind: ' ', text: a[i], at: i });
  lines.push(...align(a.slice(head, a.length - tail), b.slice(head, b.length - tail), head));
  for (let i = a.length - tail; i < a.length; i++) lines.push({ kind: ' ', text: a[i], at: i });

  const changed = lines.flatMap((line, i) => (line.kind === ' ' ? [] : [i]));
  const out: DiffLine[] = [];
  let shownTo = -1;
  for (let k = 0; k < changed.length;) {
    let last = k;
    while (last + 1 < changed.length && changed[last + 1] - changed[last] <= 2 * CONTEXT_LINES + 1) last++;
    const from = Math.max(shownTo + 1, changed[k] - CONTEXT_LINES);
    const to = Math.min(lines.length - 1, changed[last] + CONTEXT_LINES);
    out.push({ kind: '@', text: `line ${lines[from].at + 1}` });
    for (let i = from; i <= to; i++) out.push({ kind: lines[i].kind, text: lines[i].text });
    shownTo = to;
    k = last + 1;
  }
  return out;
}

/** `removed` against `added` as kept, removed and added lines; `offset` numbers them in the whole file. */
function align(removed: string[], added: string[], offset: number): Array<DiffLine & { at: number }> {
  const n = removed.length;
  const m = added.length;
  if (n > MAX_ALIGNED_LINES || m > MAX_ALIGNED_LINES) {
    return [
      ...removed.map((text, i) => ({ kind: '-' as const, text, at: offset + i })),
      ...added.map((text) => ({ kind: '+' as const, text, at: offset + n })),
    ];
  }
  // common[i][j]: length of the longest common subsequence of removed[i..] and added[j..].
  const common = Array.from({ length: n + 1 }, () => new Uint16Array(m + 1));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      common[i][j] = removed[i] === added[j] ? common[i + 1][j + 1] + 1 : Math.max(common[i + 1][j], common[i][j + 1]);
  const out: Array<DiffLine & { at: number }> = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && removed[i] === added[j]) {
      out.push({ kind: ' ', text: removed[i], at: offset + i });
      i++;
      j++;
    } else if (i < n && (j === m || common[i + 1][j] >= common[i][j + 1])) {
      // Removals before additions, as diffs are read.
      out.push({ kind: '-', text: removed[i], at: offset + i++ });
    } else {
      out.push({ kind: '+', text: added[j++], at: offset + i });
    }
  }
  return out;
}
