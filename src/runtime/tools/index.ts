// The runtime's tool primitives: the error a tool throws, the names the model sees, a tool input's check,
// and the errors the loop raises over a set of tools. Toolsets, lazy catalogs and `tool(...)` build on
// these one layer up (src/tools), so the runtime never imports upward.
export { ToolError } from './tool-error.js';
export { sanitizeToolName, buildToolNameMap, ToolNameCollisionError } from './names.js';
export { ToolInputError, compileToolInput, checkToolInput } from './tool-input.js';
export type { ToolInputCheck } from './tool-input.js';
export { DuplicateToolError, UnknownApprovalError } from './errors.js';
