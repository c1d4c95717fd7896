// The `indusagi/tools` entry: typed tools (`tool(...)`), toolsets and lazy catalogs (`search_tools`), the
// names the model sees, approvals, and the shapes a tool is written against. `ToolDefinition` lives in
// indusagi/runtime (CONTRACT.md's row), the tool errors (`ToolError`, ...) in indusagi/errors: one home per name.
export * from '../tools/index.js';
export type {
  ToolContext,
  ToolLogLevel,
  SampleRequest,
  SampleResult,
  ToolProgress,
  ToolNameMap,
  PendingApproval,
  InputQuestion,
  InputAnswer,
} from '../runtime/contract/index.js';
