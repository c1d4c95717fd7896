export type ToolContext = { signal: AbortSignal; callId: string };

/** A tool the conductor can run. `name` may contain dots; the model sees it sanitized. */
export type ToolDefinition = {
  name: string;
  description: string;
  /** JSON Schema of the input object. */
  inputSchema: object;
  execute(input: any, ctx: ToolContext): unknown;
  /** When true the tool never runs until the call is approved (see `Agent.approve`). */
  needsApproval?: boolean;
};
