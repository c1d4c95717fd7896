import { context as contexts, propagation, trace, SpanKind, type Attributes, type Context } from '@opentelemetry/api';
import type { RunEvent, ToolDefinition } from '../runtime/contract/index.js';
import {
  ATTR_AGENT_NAME,
  ATTR_CONVERSATION_ID,
  ATTR_ERROR_TYPE,
  ATTR_MCP_METHOD_NAME,
  ATTR_MCP_SERVER,
  ATTR_OPERATION_NAME,
  ATTR_TOOL_CALL_ARGUMENTS,
  ATTR_TOOL_CALL_ID,
  ATTR_TOOL_CALL_RESULT,
  ATTR_TOOL_DESCRIPTION,
  ATTR_TOOL_NAME,
  ATTR_TOOL_TYPE,
  ERROR_OTHER,
  ERROR_TOOL_NOT_RUN,
  OP_EXECUTE_TOOL,
} from './conventions.js';
import { jsonOf } from './content.js';
import type { AgentTrace, RunScope, ToolCallTrace } from './run-scope.js';
import { errorClassOf, errorTypeOf } from './error-type.js';
import { failSpan, secondsSince } from './spans.js';
import { errorMessage } from '../errors/index.js';

type ToolStarted = Extract<RunEvent, { kind: 'tool_started' }>;
type ToolFinished = Extract<RunEvent, { kind: 'tool_finished' }>;

/**
 * A tool whose `execute` runs with its call's `execute_tool` span current, so spans the tool starts
 * nest under it, given the span's trace context as `ctx.traceContext` when a propagator is registered,
 * and whose throw is kept for the span's `error.type`. The span itself starts and ends
 * with the call's `tool_started`/`tool_finished` events, which also cover calls that never reach a
 * tool (unknown names, bad input, rejections) and the context manager's own tools.
 */
export function traceTool(tool: ToolDefinition, agent: AgentTrace): ToolDefinition {
  // Not a tool at all: left as it is, for the conductor to refuse with its own error.
  if (typeof tool !== 'object' || tool === null || typeof tool.execute !== 'function') return tool;
  const execute = tool.execute;
  return {
    ...tool,
    execute(input, ctx) {
      const call = agent.scopeOf(contexts.active())?.tools.get(ctx?.callId);
      if (call === undefined) return execute.call(tool, input, ctx);
      // The call's trace context, for a tool that calls a remote service (an MCP tool sends it in `_meta`).
      const carrier: Record<string, string> = {};
      propagation.inject(call.context, carrier);
      const traced = Object.keys(carrier).length > 0 ? { ...ctx, traceContext: carrier } : ctx;
      try {
        const out = contexts.with(call.context, execute, tool, input, traced);
        if (!isThenable(out)) return out;
        return Promise.resolve(out).catch((error: unknown) => {
          call.error = error;
          throw error;
        });
      } catch (error) {
        call.error = error;
        throw error;
      }
    },
  };
}

/** Opens the `execute_tool {name}` span of a call about to run, a child of the run's span. */
export function startToolCall(run: RunScope, parent: Context, event: ToolStarted | ToolFinished): ToolCallTrace {
  const { tracer, captureContent } = run.agent.inst;
  const attributes: Attributes = {
    [ATTR_OPERATION_NAME]: OP_EXECUTE_TOOL,
    [ATTR_TOOL_NAME]: event.name,
    [ATTR_TOOL_CALL_ID]: event.callId,
    [ATTR_TOOL_TYPE]: 'function',
    [ATTR_CONVERSATION_ID]: run.sessionId,
  };
  const description = run.agent.toolDescription(event.name);
  if (description !== undefined) attributes[ATTR_TOOL_DESCRIPTION] = description;
  const server = run.agent.mcpServer(event.name);
  if (server !== undefined) {
    attributes[ATTR_MCP_SERVER] = server;
    attributes[ATTR_MCP_METHOD_NAME] = 'tools/call';
  }
  const span = tracer.startSpan(`${OP_EXECUTE_TOOL} ${event.name}`, { kind: SpanKind.INTERNAL, attributes }, parent);
  if (captureContent && span.isRecording()) span.setAttribute(ATTR_TOOL_CALL_ARGUMENTS, jsonOf(event.input));
  const call: ToolCallTrace = { span, context: trace.setSpan(parent, span), name: event.name, startedAt: performance.now() };
  run.tools.set(event.callId, call);
  return call;
}

/**
 * Ends a call's span with its result. A call with no `tool_started` never ran (the loop answered it
 * itself): its span opens and closes here, failed with `tool_not_run`.
 */
export function finishToolCall(run: RunScope, parent: Context, event: ToolFinished): void {
  const started = run.tools.get(event.callId);
  const call = started ?? startToolCall(run, parent, event);
  run.tools.delete(event.callId);
  const { span } = call;
  if (run.agent.inst.captureContent && span.isRecording()) span.setAttribute(ATTR_TOOL_CALL_RESULT, jsonOf(event.result));
  let errorType: string | undefined;
  const { captureContent } = run.agent.inst;
  if (started === undefined) {
    // What the loop answered (an unknown tool, invalid input, a rejection's reason) is the call's result: content.
    errorType = ERROR_TOOL_NOT_RUN;
    failSpan(span, errorType, captureContent && typeof event.result === 'string' ? event.result : undefined);
  } else if (event.isError) {
    errorType = call.error === undefined ? ERROR_OTHER : errorTypeOf(call.error);
    const message = call.error === undefined ? undefined : captureContent ? errorMessage(call.error) : errorClassOf(call.error);
    failSpan(span, errorType, message);
  }
  span.end();
  // A call that never ran is no execution to time.
  if (started === undefined) return;
  const agentName = run.agent.agentName;
  const metric = run.agent.metricSet(`tool\u0000${call.name}\u0000${errorType ?? ''}`, () => {
    const set: Attributes = { [ATTR_TOOL_NAME]: call.name, [ATTR_TOOL_TYPE]: 'function' };
    if (agentName !== undefined) set[ATTR_AGENT_NAME] = agentName;
    if (errorType !== undefined) set[ATTR_ERROR_TYPE] = errorType;
    return set;
  });
  run.agent.inst.instruments.toolDuration.record(secondsSince(call.startedAt), metric);
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}
