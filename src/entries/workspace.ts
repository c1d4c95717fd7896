// The `indusagi/workspace` entry: the terminal agent's own tools (files inside one workspace folder,
// edits, bash, the clock, memory), for apps that want the same.
export { Workspace, builtInTools, editDiff, lineDiff } from '../cli/tools/index.js';
export type { BuiltInToolOptions, BashOptions, DiffLine } from '../cli/tools/index.js';
