// The chat's built-in tools. Their names sanitize to the demo model's vocabulary (`files.list` ->
// `files_list`), so the offline demo can drive every one of them.
import type { ToolDefinition } from '../../runtime/contract/tool.js';
import type { MemoryStore } from '../../memory/index.js';
import { bashTool } from './bash.js';
import { clockTool } from './clock.js';
import { editTool } from './edit.js';
import { listTool, readTool, writeTool } from './files.js';
import { recallTool, rememberTool } from './memory.js';
import type { Workspace } from './workspace.js';

export { Workspace } from './workspace.js';
export { editDiff, lineDiff, type DiffLine } from './edit.js';
export type { BashOptions } from './bash.js';

export type BuiltInToolOptions = {
  workspace: Workspace;
  memory: MemoryStore;
  maxReadChars: number;
  /**
   * Timeouts and the output cap of `bash` (its defaults otherwise); `false` leaves `bash` out, for
   * agents that must not run commands on the host at all (the agent `indusagi serve` gives every tenant).
   */
  bash?: { timeoutMs?: number; maxTimeoutMs?: number; maxOutputChars?: number } | false;
};

export function builtInTools({ workspace, memory, maxReadChars, bash }: BuiltInToolOptions): ToolDefinition[] {
  return [
    listTool(workspace),
    readTool(workspace, maxReadChars),
    writeTool(workspace),
    editTool(workspace),
    ...(bash === false
      ? []
      : [bashTool({ ...bash, workspace, maxOutputChars: bash?.maxOutputChars ?? Math.min(30_000, maxReadChars * 2) })]),
    clockTool(),
    rememberTool(memory),
    recallTool(memory),
  ];
}
