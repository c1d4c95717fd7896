export { ToolError } from './tool-error.js';
export { sanitizeToolName, buildToolNameMap, ToolNameCollisionError } from './names.js';
export type { ToolNameMap } from './names.js';
export { toToolset, isPendingApproval, UnknownToolError, UnknownApprovalError, DuplicateToolError } from './toolset.js';
export type { Toolset, AnthropicToolSpec, PendingApprovalResult, ExecuteContext } from './toolset.js';
