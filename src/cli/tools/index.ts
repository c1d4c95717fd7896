// The chat's built-in tools. Their names sanitize to the demo model's vocabulary (`files.list` ->
// `files_list`), so the offline demo can drive every one of them.
import type { ToolDefinition } from '../../runtime/contract/tool.js';
import type { MemoryStore } from '../../memory/index.js';
import { clockTool } from './clock.js';
import { listTool, readTool, writeTool } from './files.js';
import { recallTool, rememberTool } from './memory.js';
import type { Workspace } from './workspace.js';

export { Workspace } from './workspace.js';

export type BuiltInToolOptions = { workspace: Workspace; memory: MemoryStore; maxReadChars: number };

export function builtInTools({ workspace, memory, maxReadChars }: BuiltInToolOptions): ToolDefinition[] {
  return [
    listTool(workspace),
    readTool(workspace, maxReadChars),
    writeTool(workspace),
    clockTool(),
    rememberTool(memory),
    recallTool(memory),
  ];
}
