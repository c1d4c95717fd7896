import { IndusagiError } from '../errors/index.js';
import { ToolError } from '../runtime/tools/tool-error.js';

/** `@modelcontextprotocol/sdk` (an optional peer dependency) is not installed. */
export class McpSdkMissingError extends IndusagiError {
  static override readonly errorName: string = 'McpSdkMissingError';
  constructor(options?: { cause?: unknown }) {
    super(
      'mcp_sdk_missing',
      'indusagi/mcp needs the optional peer dependency @modelcontextprotocol/sdk (1.32 or newer), which could not be loaded. Install it with `npm install @modelcontextprotocol/sdk`.',
      options,
    );
  }
}

/** A server description or an option that cannot work: refused before anything is spawned or fetched. */
export class McpConfigError extends IndusagiError {
  static override readonly errorName: string = 'McpConfigError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('mcp_config', message, options);
  }
}

/** A server could not be started or reached, or did not complete the protocol's handshake. */
export class McpConnectionError extends IndusagiError {
  static override readonly errorName: string = 'McpConnectionError';
  constructor(
    readonly server: string,
    detail: string,
    options?: { cause?: unknown },
  ) {
    super('mcp_connection', `MCP server "${server}": ${detail}`, options);
  }
}

/** Two tools, of one server or of two, whose names the model would see as one. */
export class McpToolCollisionError extends IndusagiError {
  static override readonly errorName: string = 'McpToolCollisionError';
  constructor(
    readonly first: string,
    readonly second: string,
    readonly modelName: string,
    /** `first` is one of the app's own tools, not an MCP server's. */
    options: { firstIsOwn?: boolean } = {},
  ) {
    super(
      'mcp_tool_collision',
      options.firstIsOwn === true
        ? `MCP tool "${second}" becomes "${modelName}" for the model, the name of the tool "${first}" it already has; rename the server, or leave the tool out with its server's \`tools\` filter.`
        : `MCP tools "${first}" and "${second}" both become "${modelName}" for the model; rename a server, or leave one tool out with its server's \`tools\` filter.`,
    );
  }
}

/** A request to a server that failed: the server answered with an error, timed out, or the connection was lost. */
export class McpRequestError extends IndusagiError {
  static override readonly errorName: string = 'McpRequestError';
  constructor(
    readonly server: string,
    readonly method: string,
    detail: string,
    options?: { cause?: unknown },
  ) {
    super('mcp_request', `MCP server "${server}", ${method}: ${detail}`, options);
  }
}

/** The client was closed; nothing more can be asked of it. */
export class McpClosedError extends IndusagiError {
  static override readonly errorName: string = 'McpClosedError';
  constructor(readonly server: string) {
    super('mcp_closed', `MCP server "${server}": the client was closed.`);
  }
}

/**
 * A server asked the user for input (elicitation) and nobody can answer: no `onElicitation` handler
 * was given, which is the case of a headless run. The server gets this message as the request's error.
 */
export class McpElicitationUnavailableError extends IndusagiError {
  static override readonly errorName: string = 'McpElicitationUnavailableError';
  constructor(readonly server: string) {
    super(
      'mcp_elicitation_unavailable',
      `MCP server "${server}" asked the user for input, but this is a headless run: nobody can answer. Give connectMcp an onElicitation handler to ask a person.`,
    );
  }
}

/** An `onElicitation` handler answered with content that does not match the schema the server asked for. */
export class McpElicitationInputError extends IndusagiError {
  static override readonly errorName: string = 'McpElicitationInputError';
  constructor(
    readonly server: string,
    detail: string,
  ) {
    super('mcp_elicitation_input', `The answer to MCP server "${server}"'s request for input does not match its schema: ${detail}`);
  }
}

/**
 * A tool call that failed on the MCP side: the tool reported an error (`isError`), timed out, was
 * cut off by its server's exit, or returned what its output schema forbids. A `ToolError`, so the
 * model reads the message as the call's error result and the run goes on.
 */
export class McpToolError extends ToolError {
  static override readonly errorName: string = 'McpToolError';
  constructor(
    readonly server: string,
    readonly tool: string,
    readonly reason: McpToolFailure,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Why an MCP tool call failed: see `McpToolError`. */
export type McpToolFailure = 'tool_error' | 'timeout' | 'disconnected' | 'protocol' | 'output_schema' | 'aborted' | 'closed';

/**
 * A tool served by `serveMcp` asked the client for something it did not declare it can do: sampling
 * its model (`ctx.sample`) or asking its user (`ctx.ask`). A `ToolError`, so the call's error result
 * says so unless the tool catches it.
 */
export class McpClientCapabilityError extends ToolError {
  static override readonly errorName: string = 'McpClientCapabilityError';
  constructor(
    readonly tool: string,
    readonly capability: 'sampling' | 'elicitation',
  ) {
    super(
      capability === 'sampling'
        ? `The tool "${tool}" asked the client's model for a completion, but this client does not support sampling.`
        : `The tool "${tool}" asked the client's user for input, but this client does not support elicitation.`,
    );
  }
}
