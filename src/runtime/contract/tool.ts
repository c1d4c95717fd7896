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
  /**
   * True when running the same call twice does no harm (a read, a lookup, a write of the same bytes).
   * A call cut off by a crash is then run again when the session is picked up; any other tool's call
   * goes back to the model as interrupted, since it may have run. Default false.
   */
  idempotent?: boolean;
};
