import { context as contexts, createContextKey, trace, SpanKind, type Attributes, type Context, type Span } from '@opentelemetry/api';
import type { ModelUsage, RunSnapshot, ToolDefinition } from '../runtime/contract/index.js';
import { RunFault } from '../runtime/loop/errors.js';
import { errorMessage } from '../errors/index.js';
import {
  ATTR_AGENT_NAME,
  ATTR_CONVERSATION_ID,
  ATTR_ERROR_TYPE,
  ATTR_INPUT_MESSAGES,
  ATTR_OPERATION_NAME,
  ATTR_OUTPUT_MESSAGES,
  ATTR_PROVIDER_NAME,
  ATTR_REQUEST_MODEL,
  ATTR_RESPONSE_MODEL,
  ATTR_RUN_OPERATION,
  ATTR_RUN_STATUS,
  ATTR_SYSTEM_INSTRUCTIONS,
  ATTR_TOKEN_TYPE,
  OP_CHAT,
  OP_INVOKE_AGENT,
} from './conventions.js';
import { answerMessages, promptMessages, systemInstructions } from './content.js';
import type { Instrumentation } from './instrumentation.js';
import { failSpan, failSpanWith, secondsSince } from './spans.js';
import { errorClassOf } from './error-type.js';
import { usageAttributes } from './usage.js';

/** The agent operations that are runs, each traced as one `invoke_agent` span. */
export type RunOperation = 'submit' | 'approve' | 'reject' | 'continue' | 'condense';

/** A tool call between its `tool_started` and `tool_finished`. */
export type ToolCallTrace = { span: Span; context: Context; name: string; startedAt: number; error?: unknown };

/** An open condensation: its span, and what its summarizer calls cost so far. */
export type CompactionTrace = { span: Span; context: Context; usage: ModelUsage; calls: number; failure?: unknown };

const RUN = createContextKey('indusagi run');

/** The attribute sets of one model's `chat` metrics: the call's, and each token type's. */
export type ChatMetrics = { call: Attributes; input: Attributes; output: Attributes };

/** Distinct metric attribute sets one agent keeps for reuse. */
const METRIC_SETS = 256;

/**
 * One run of one agent: its `invoke_agent` span and the context that carries it (and this scope) into
 * the conductor, the model invoker and the tools, so each finds its parent span there.
 */
export class RunScope {
  readonly context: Context;
  readonly startedAt = performance.now();
  readonly tools = new Map<string, ToolCallTrace>();
  condensation: CompactionTrace | undefined;

  constructor(
    readonly agent: AgentTrace,
    readonly span: Span,
    public sessionId: string,
    parent: Context,
  ) {
    this.context = trace.setSpan(parent, span).setValue(RUN, this);
  }
}

/** The state one instrumented agent shares between its decorators. */
export class AgentTrace {
  // Open runs, oldest first: the fallback parent when no context manager carries the scope.
  private readonly open = new Set<RunScope>();
  private readonly descriptions = new Map<string, string>();
  private readonly metricSets = new Map<string, Attributes>();
  private readonly chatSets = new Map<string, Map<string, ChatMetrics>>();
  private readonly mcpServers = new Map<string, string>();

  constructor(
    readonly inst: Instrumentation,
    readonly model: string,
    readonly provider: string | undefined,
    private readonly system: string | undefined,
    tools: readonly ToolDefinition[],
    /** `gen_ai.agent.name`: the agent's own `name` (a sub-agent's), else the telemetry's `agentName`. */
    readonly agentName: string | undefined = inst.agentName,
  ) {
    for (const tool of tools) {
      if (typeof tool?.description === 'string') this.descriptions.set(tool.name, tool.description);
      // MCP tools (indusagi/mcp) say where they come from; telemetry reads it without loading MCP.
      const server = (tool as { mcp?: { server?: unknown } } | undefined)?.mcp?.server;
      if (typeof server === 'string') this.mcpServers.set(tool.name, server);
    }
  }

  /** The MCP server one of the agent's tools comes from, when it is an MCP server's. */
  mcpServer(name: string): string | undefined {
    return this.mcpServers.get(name);
  }

  /**
   * A metric's attributes, one object per distinct set, kept: the SDK hashes whatever it is handed on
   * every record, but handing it the same object spares an allocation per record, and garbage
   * collection was the largest single cost of tracing a step. Sets past `METRIC_SETS` (a provider
   * naming a new model every reply) are made afresh rather than kept.
   */
  metricSet(key: string, make: () => Attributes): Attributes {
    let set = this.metricSets.get(key);
    if (set === undefined) {
      set = make();
      if (this.metricSets.size < METRIC_SETS) this.metricSets.set(key, set);
    }
    return set;
  }

  /**
   * The attribute sets of a `chat` call's metrics for one request and response model: the call's own,
   * and the two token types'. Two map lookups a call, where building a key string was a third of the
   * instrumentation's own cost.
   */
  chatMetrics(requestModel: string, responseModel: string | undefined): ChatMetrics {
    let byResponse = this.chatSets.get(requestModel);
    if (byResponse === undefined) {
      byResponse = new Map();
      if (this.chatSets.size < METRIC_SETS) this.chatSets.set(requestModel, byResponse);
    }
    const key = responseModel ?? '';
    let sets = byResponse.get(key);
    if (sets === undefined) {
      const call: Attributes = { [ATTR_OPERATION_NAME]: OP_CHAT, [ATTR_REQUEST_MODEL]: requestModel };
      if (this.provider !== undefined) call[ATTR_PROVIDER_NAME] = this.provider;
      if (responseModel !== undefined) call[ATTR_RESPONSE_MODEL] = responseModel;
      sets = { call, input: { ...call, [ATTR_TOKEN_TYPE]: 'input' }, output: { ...call, [ATTR_TOKEN_TYPE]: 'output' } };
      if (byResponse.size < METRIC_SETS) byResponse.set(key, sets);
    }
    return sets;
  }

  /** `gen_ai.tool.description` of one of the agent's own tools. */
  toolDescription(name: string): string | undefined {
    return this.descriptions.get(name);
  }

  /**
   * The run `context` belongs to. Found through the context (exact, even with runs queued or agents
   * nested); without a context manager registered, the latest open run.
   */
  scopeOf(context: Context): RunScope | undefined {
    return this.locate(context).run;
  }

  /** `scopeOf`, with the context a span of the run should start in: `context` itself when it carries the run. */
  locate(context: Context): { run: RunScope | undefined; parent: Context } {
    const scope = context.getValue(RUN) as RunScope | undefined;
    if (scope?.agent === this) return { run: scope, parent: context };
    let latest: RunScope | undefined;
    for (const open of this.open) latest = open;
    return { run: latest, parent: latest?.context ?? context };
  }

  /** Starts the `invoke_agent` span of a run, a child of the caller's current span. */
  begin(operation: RunOperation, sessionId: string, prompt: string | undefined): RunScope {
    const { tracer, captureContent } = this.inst;
    const agentName = this.agentName;
    const attributes: Attributes = {
      [ATTR_OPERATION_NAME]: OP_INVOKE_AGENT,
      [ATTR_REQUEST_MODEL]: this.model,
      [ATTR_CONVERSATION_ID]: sessionId,
      [ATTR_RUN_OPERATION]: operation,
    };
    if (this.provider !== undefined) attributes[ATTR_PROVIDER_NAME] = this.provider;
    if (agentName !== undefined) attributes[ATTR_AGENT_NAME] = agentName;
    const parent = contexts.active();
    const span = tracer.startSpan(
      agentName === undefined ? OP_INVOKE_AGENT : `${OP_INVOKE_AGENT} ${agentName}`,
      { kind: SpanKind.INTERNAL, attributes },
      parent,
    );
    if (captureContent && span.isRecording()) {
      if (prompt !== undefined) span.setAttribute(ATTR_INPUT_MESSAGES, promptMessages(prompt));
      const system = systemInstructions(this.system);
      if (system !== undefined) span.setAttribute(ATTR_SYSTEM_INSTRUCTIONS, system);
    }
    const scope = new RunScope(this, span, sessionId, parent);
    this.open.add(scope);
    return scope;
  }

  /** Ends a run's span with its outcome: the final snapshot, or what it threw (a `RunFault` names its kind). */
  end(scope: RunScope, outcome: { snapshot: RunSnapshot } | { error: unknown }): void {
    this.open.delete(scope);
    const { span } = scope;
    const snapshot = 'snapshot' in outcome ? outcome.snapshot : RunFault.isInstance(outcome.error) ? outcome.error.snapshot : undefined;
    let errorType: string | undefined;
    if ('error' in outcome) errorType = RunFault.isInstance(outcome.error) ? outcome.error.kind : undefined;
    // Whatever the loop left open ends with the run, failed by it when it failed.
    for (const call of scope.tools.values()) {
      failSpan(call.span, errorType ?? 'run_ended');
      call.span.end();
    }
    scope.tools.clear();
    if (scope.condensation !== undefined) {
      const condensation = scope.condensation;
      scope.condensation = undefined;
      if (condensation.failure !== undefined) failSpanWith(condensation.span, condensation.failure, this.inst.captureContent);
      else failSpan(condensation.span, errorType ?? 'run_ended');
      condensation.span.end();
    }
    if (snapshot !== undefined) {
      span.setAttributes(usageAttributes(snapshot.usage));
      span.setAttribute(ATTR_RUN_STATUS, 'error' in outcome ? 'faulted' : snapshot.status);
      if ('snapshot' in outcome && this.inst.captureContent && span.isRecording() && snapshot.text !== '') {
        span.setAttribute(ATTR_OUTPUT_MESSAGES, answerMessages(snapshot.text));
      }
    }
    if ('error' in outcome) {
      const { captureContent } = this.inst;
      if (errorType === undefined) errorType = failSpanWith(span, outcome.error, captureContent);
      else failSpan(span, errorType, captureContent ? errorMessage(outcome.error) : errorClassOf(outcome.error));
    }
    span.end();
    const metric: Attributes = { [ATTR_REQUEST_MODEL]: this.model };
    if (this.agentName !== undefined) metric[ATTR_AGENT_NAME] = this.agentName;
    if (errorType !== undefined) metric[ATTR_ERROR_TYPE] = errorType;
    this.inst.instruments.agentDuration.record(secondsSince(scope.startedAt), metric);
  }
}
