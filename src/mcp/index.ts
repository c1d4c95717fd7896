// indusagi/mcp: Model Context Protocol servers' tools, resources and prompts for agents, a catalog that
// keeps hundreds of their tools behind `search_tools`, and serving indusagi tools and agents over MCP.
// Needs the optional peer @modelcontextprotocol/sdk, loaded on first connect or serve.
export { connectMcp } from './client.js';
export type {
  McpCallOptions,
  McpChange,
  McpClient,
  McpClientState,
  McpConnectOptions,
  McpElicitationContext,
  McpElicitationHandler,
  McpElicitationRequest,
  McpElicitationResult,
  McpPrompt,
  McpPromptResult,
  McpResource,
  McpResourceTemplate,
  McpServerInfo,
  McpToolResult,
} from './client-types.js';
export { connectMcpServers } from './servers.js';
export type { McpServers, McpServersOptions, McpServerStatus } from './servers.js';
export { mcpToolSource } from './catalog.js';
export type { McpToolSource, McpToolSourceOptions } from './catalog.js';
export { mcpResourceSource } from './resource-source.js';
export type { McpResourceRef, McpResourceSource, McpResourceSourceOptions } from './resource-source.js';
export { serveMcp, mcpResult } from './serve.js';
export type {
  McpHttpTransport,
  McpServedResult,
  McpServing,
  ServeMcpOptions,
  ServedAgent,
  ServedCompleter,
  ServedPrompt,
  ServedPromptMessage,
  ServedResource,
  ServedResourceContents,
  ServedResourceTemplate,
} from './serve.js';
export { parseMcpServers, checkServerConfig } from './config.js';
export type { McpHttpServer, McpServerConfig, McpStdioServer, McpToolAnnotations, McpToolInfo, McpToolOptions } from './config.js';
export type { McpAudioBlock, McpContent, McpResourceBlock, McpResourceContents, McpResourceLinkBlock } from './content.js';
export type { McpRefusedTool, McpToolDefinition } from './tools.js';
export {
  McpClosedError,
  McpConfigError,
  McpConnectionError,
  McpElicitationInputError,
  McpClientCapabilityError,
  McpElicitationUnavailableError,
  McpRequestError,
  McpSdkMissingError,
  McpToolCollisionError,
  McpToolError,
} from './errors.js';
export type { McpToolFailure } from './errors.js';
