export type ToolContext = {
  signal: AbortSignal;
  callId: string;
  /**
   * Reports how far a long call has got (an MCP server's progress notifications, say); the conductor
   * publishes each update as a `tool_progress` run event. Absent where nobody listens.
   */
  progress?: (update: ToolProgress) => void;
  /**
   * Trace context for a tool that calls a remote service (W3C `traceparent`, `tracestate`), set by
   * telemetry when a propagator is registered; MCP tools send it in the request's `_meta`.
   */
  traceContext?: Readonly<Record<string, string>>;
};

/** How far a running tool call has got: `progress` of `total` when the total is known. */
export type ToolProgress = { progress: number; total?: number; message?: string };

/** A tool the conductor can run. `name` may contain dots; the model sees it sanitized. */
export type ToolDefinition = {
  name: string;
  description: string;
  /**
   * The input object's schema: a JSON Schema, or a Standard Schema (zod 4, valibot, arktype) from which
   * the JSON Schema the model sees is derived. Every call's input is checked against it before
   * `execute`; invalid input never reaches the tool (see docs/tools.md). `tool()` types `execute` from it.
   */
  inputSchema: object;
  /**
   * With a Standard Schema as `inputSchema`: the JSON Schema to send the model instead of the derived
   * one (for a library that cannot derive one). The Standard Schema still decides what is valid.
   */
  inputJsonSchema?: object;
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
