// The `indusagi/tools` entry: typed tools (`tool(...)`), toolsets and lazy catalogs (`search_tools`), the
// names the model sees, approvals, and the shapes a tool is written against.
export * from '../tools/index.js';
export type {
  ToolDefinition,
  ToolContext,
  ToolProgress,
  ToolNameMap,
  PendingApproval,
  InputQuestion,
  InputAnswer,
} from '../runtime/contract/index.js';
