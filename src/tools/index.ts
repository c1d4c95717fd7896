export { ToolError } from './tool-error.js';
export { sanitizeToolName, buildToolNameMap, ToolNameCollisionError } from './names.js';
export type { ToolNameMap } from './names.js';
export {
  toToolset,
  isPendingApproval,
  isHeldApproval,
  UnknownToolError,
  UnknownApprovalError,
  DuplicateToolError,
  DuplicateCallIdError,
} from './toolset.js';
export type { Toolset, AnthropicToolSpec, PendingApprovalResult } from './toolset.js';
export { mergeToolsets, InvalidToolsetError } from './merge.js';
export { lazyToolset, LazyToolsetInputError, SEARCH_TOOLS } from './lazy-toolset.js';
export type { LazyToolset, LazyToolsetOptions, SearchToolsResult, FoundTool } from './lazy-toolset.js';
export { tool, defineTool } from './define-tool.js';
export type { StandardTool, JsonSchemaTool } from './define-tool.js';
export { ToolInputError, compileToolInput, checkToolInput } from './tool-input.js';
export type { ToolInputCheck } from './tool-input.js';
