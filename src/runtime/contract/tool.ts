import type { PendingApproval } from './events.js';

/**
 * What a tool call is given besides its input, wherever it runs (the loop, a `Toolset`, `runAgent`'s
 * `execute`): one object, so that what a tool may be given later joins it as an optional member
 * without changing any signature.
 */
export type ToolContext = {
  /** Fires when the run is aborted: a long tool should stop and throw (its result becomes an `aborted` error). */
  signal: AbortSignal;
  /** The call's id, as the model gave it; also the approval id of a call that waits for approval. */
  callId: string;
  /** Reports progress of a long call; each report is published as a `tool_progress` event. */
  progress?: (update: ToolProgress) => void;
  /**
   * The agent run making the call, whenever an agent runs the tool (absent when a toolset is driven by
   * hand). A tool that runs an agent of its own (`agentTool`) builds on it: see docs/subagents.md.
   */
  caller?: CallerRun;
  /**
   * Trace context for a tool that calls a remote service (W3C `traceparent`, `tracestate`), set by
   * telemetry when a propagator is registered; MCP tools send it in the request's `_meta`.
   */
  traceContext?: Readonly<Record<string, string>>;
  /**
   * Asks the person using the agent for input while the call runs (an MCP server's elicitation): the
   * agent publishes `input_requested` and the app answers with `agent.answer(requestId, answer)`.
   * Rejects with `InputUnavailableError` when nobody can answer (nothing listens to the run: a
   * headless run), and with `RunAbortedError` when the run is aborted meanwhile.
   */
  ask?: (question: InputQuestion) => Promise<InputAnswer>;
  /**
   * Sends a log message to whoever runs the tool, at a syslog level: set by `serveMcp`, where it is
   * the client's `notifications/message` (dropped below the level the client asked for).
   */
  log?: (level: ToolLogLevel, data: unknown) => void;
  /**
   * Asks the model of whoever runs the tool for a completion: set by `serveMcp`, where it is the
   * client's `sampling/createMessage`. Rejects with a `ToolError` when the client cannot sample.
   */
  sample?: (request: SampleRequest) => Promise<SampleResult>;
  /**
   * Closes the stream the call answers on, and the call runs on: the client comes back a second later
   * (the stream's `retry: 1000`) with `Last-Event-ID` and gets what the call sent meanwhile, its
   * result too, then polls again if the call closes that stream as well (MCP SEP-1699). A long call
   * uses it so that no connection stays open for its whole run. Set by `serveMcp` only over
   * Streamable HTTP to a client that negotiated protocol 2025-11-25 or later (older clients cannot
   * resume a closed stream); absent over stdio and wherever an agent runs the tool.
   */
  closeStream?: () => void;
};

/** The syslog levels MCP logging uses, least severe first. */
export type ToolLogLevel = 'debug' | 'info' | 'notice' | 'warning' | 'error' | 'critical' | 'alert' | 'emergency';

/** What a tool asks another model: a conversation of text turns, and at most how many tokens to answer with. */
export type SampleRequest = {
  messages: readonly { role: 'user' | 'assistant'; text: string }[];
  maxTokens: number;
  systemPrompt?: string;
  temperature?: number;
};

/** The model's answer: its text (empty when it answered with something else), which model, and why it stopped. */
export type SampleResult = { text: string; model: string; stopReason?: string };

/** What a tool call knows of the agent run that made it. */
export interface CallerRun {
  /** The calling agent's session. */
  readonly sessionId: string;
  /** The operation making the call (`RunEvent.runId` of its events). */
  readonly runId: string;
}

/**
 * A tool whose call keeps its own durable state and picks up where it stopped (a sub-agent: its
 * session). Such a call is never answered as interrupted: a call a crash cut off, or one that stopped
 * waiting for approvals of its own (`execute` returned a `WaitingCall`), runs `execute` again, which
 * goes on from that state instead of starting over.
 */
export interface ResumableTool {
  /**
   * What call `callId` waits for, read from its state when a session is opened (a restart): the
   * approvals it waits on, as its own agent lists them; none when it waits for nothing.
   */
  waiting(callId: string, caller: CallerRun): Promise<PendingApproval[]>;
}

/**
 * What a resumable tool's `execute` returns for a call that stopped waiting on approvals of its own (a
 * sub-agent's call that needs approval): the call gets no result yet, its approvals are listed as the
 * calling agent's (under the call's id and the tool's name), and deciding one runs the call again.
 */
export class WaitingCall {
  constructor(readonly pending: readonly PendingApproval[]) {}
}

/** What a tool asks a person: a message, and the JSON Schema of the answer it needs (an object). */
export type InputQuestion = { message: string; schema: object; /** Who asks (an MCP server's name). */ from?: string };

/** A person's answer: the content (matching the question's schema), or a refusal. */
export type InputAnswer = { action: 'accept'; content: Record<string, unknown> } | { action: 'decline' } | { action: 'cancel' };

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
  /** Set for a tool whose call picks up where it stopped (`agentTool` sets it); see `ResumableTool`. */
  resumable?: ResumableTool;
};

/** Maps between original and sanitized tool names, both ways (`buildToolNameMap` builds one). */
export type ToolNameMap = {
  /** sanitized -> original */
  toOriginal: Map<string, string>;
  /** original -> sanitized */
  toModel: Map<string, string>;
};
