/** What a tool is given with each call, besides its input. */
export type ToolContext = {
  /** Fires when the run is aborted: stop, and let the call end (its result becomes an `aborted` error). */
  signal: AbortSignal;
  /** The call's id, unique within the session: the approval id of a call that needs approval. */
  callId: string;
  /** Reports progress of a long call; each report is published as a `tool_progress` event. */
  progress?: (update: ToolProgress) => void;
};

/** One progress report of a running tool call (MCP's progress notifications have this shape). */
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
