import { context as contexts, trace, SpanKind, type Attributes } from '@opentelemetry/api';
import type { ModelInvoker, ModelReply, ModelRequest } from '../runtime/contract/index.js';
import { addUsage, zeroUsage } from '../runtime/usage/sum.js';
import { invokerTraits } from '../runtime/models/resolve.js';
import {
  ATTR_CALL_PURPOSE,
  ATTR_HTTP_STATUS,
  ATTR_RETRY_ATTEMPT,
  ATTR_RETRY_DELAY_MS,
  ATTR_RETRY_REASON,
  EVENT_MODEL_RETRY,
  ATTR_CONVERSATION_ID,
  ATTR_ERROR_TYPE,
  ATTR_INPUT_MESSAGES,
  ATTR_OPERATION_NAME,
  ATTR_OUTPUT_MESSAGES,
  ATTR_PROVIDER_NAME,
  ATTR_REQUEST_MAX_TOKENS,
  ATTR_REQUEST_MODEL,
  ATTR_RESPONSE_FINISH_REASONS,
  ATTR_RESPONSE_ID,
  ATTR_RESPONSE_MODEL,
  ATTR_RESPONSE_TIME_TO_FIRST_CHUNK,
  ATTR_SYSTEM_INSTRUCTIONS,
  OP_CHAT,
  SPAN_CONDENSE,
} from './conventions.js';
import { inputMessages, outputMessages, systemInstructions } from './content.js';
import type { AgentTrace, CompactionTrace, RunScope } from './run-scope.js';
import { failSpanWith, secondsSince } from './spans.js';
import { inputTokensOf, usageAttributes } from './usage.js';

/**
 * The model invoker with a `chat {model}` CLIENT span around every call, a child of the run's span (or,
 * for the condensation summarizer's calls, of the `indusagi.condense` span they open) and the current
 * span while the call runs, so a provider SDK's own spans nest under it. Records each retry the invoker
 * reports (`onRetry`) as an `indusagi.model_retry` event with its wait, time to first chunk, the
 * response's id, model, finish reason and usage, and the `gen_ai.client.*` metrics.
 */
export function traceInvoker(inner: ModelInvoker, agent: AgentTrace): ModelInvoker {
  const { tracer, instruments, captureContent } = agent.inst;
  const provider = agent.provider;
  const invoke = async (request: ModelRequest): Promise<ModelReply> => {
    const located = agent.locate(contexts.active());
    const run = located.run;
    const summary = request.purpose === 'summary';
    const parent = summary && run !== undefined ? openCompaction(run).context : located.parent;
    const attributes: Attributes = {
      [ATTR_OPERATION_NAME]: OP_CHAT,
      [ATTR_REQUEST_MODEL]: request.model,
      [ATTR_REQUEST_MAX_TOKENS]: request.maxOutputTokens,
    };
    if (provider !== undefined) attributes[ATTR_PROVIDER_NAME] = provider;
    if (run !== undefined) attributes[ATTR_CONVERSATION_ID] = run.sessionId;
    if (request.purpose !== undefined) attributes[ATTR_CALL_PURPOSE] = request.purpose;
    const span = tracer.startSpan(`${OP_CHAT} ${request.model}`, { kind: SpanKind.CLIENT, attributes }, parent);
    if (captureContent && span.isRecording()) {
      span.setAttribute(ATTR_INPUT_MESSAGES, inputMessages(request.messages));
      const system = systemInstructions(request.system, request.volatileSystem);
      if (system !== undefined) span.setAttribute(ATTR_SYSTEM_INSTRUCTIONS, system);
    }
    const startedAt = performance.now();
    let firstChunk: number | undefined;
    // A copy, then the hooks: an object spread followed by more properties (`{ ...request, onRetry }`)
    // builds a new hidden class per call in V8, about 3-6 us each; this is a tenth of that.
    const traced: ModelRequest = Object.assign({}, request);
    traced.onFirstChunk = () => {
      firstChunk ??= performance.now();
      request.onFirstChunk?.();
    };
    traced.onRetry = (retry) => {
      const event: Attributes = {
        [ATTR_RETRY_ATTEMPT]: retry.attempt,
        [ATTR_RETRY_DELAY_MS]: retry.delayMs,
        [ATTR_RETRY_REASON]: retry.reason,
      };
      if (retry.status !== undefined) event[ATTR_HTTP_STATUS] = retry.status;
      span.addEvent(EVENT_MODEL_RETRY, event);
      request.onRetry?.(retry);
    };
    const onText = request.onText;
    // An invoker that never says when its stream began still says when text arrived.
    if (onText !== undefined) {
      traced.onText = (delta) => {
        firstChunk ??= performance.now();
        onText(delta);
      };
    }

    let reply: ModelReply;
    try {
      reply = await contexts.with(trace.setSpan(parent, span), inner, undefined, traced);
    } catch (error) {
      const errorType = failSpanWith(span, error, captureContent);
      if (summary && run?.condensation !== undefined) run.condensation.failure ??= error;
      span.end();
      const failed = { ...agent.chatMetrics(request.model, undefined).call, [ATTR_ERROR_TYPE]: errorType };
      instruments.operationDuration.record(secondsSince(startedAt), failed);
      throw error;
    }

    // An unsampled span (or no SDK at all) records nothing: its attributes are not worth building.
    if (span.isRecording()) {
      const done: Attributes = reply.usage === undefined ? {} : usageAttributes(reply.usage);
      done[ATTR_RESPONSE_FINISH_REASONS] = [reply.stopReason];
      if (reply.id !== undefined) done[ATTR_RESPONSE_ID] = reply.id;
      if (reply.model !== undefined) done[ATTR_RESPONSE_MODEL] = reply.model;
      if (firstChunk !== undefined) done[ATTR_RESPONSE_TIME_TO_FIRST_CHUNK] = (firstChunk - startedAt) / 1000;
      span.setAttributes(done);
      if (captureContent && reply.turn !== undefined) span.setAttribute(ATTR_OUTPUT_MESSAGES, outputMessages(reply.turn, reply.stopReason));
    }
    span.end();

    const metric = agent.chatMetrics(request.model, reply.model);
    instruments.operationDuration.record(secondsSince(startedAt), metric.call);
    if (firstChunk !== undefined) instruments.timeToFirstChunk.record((firstChunk - startedAt) / 1000, metric.call);
    if (reply.usage !== undefined) {
      instruments.tokenUsage.record(inputTokensOf(reply.usage), metric.input);
      instruments.tokenUsage.record(reply.usage.outputTokens, metric.output);
    }
    if (summary && run?.condensation !== undefined) {
      run.condensation.calls++;
      if (reply.usage !== undefined) addUsage(run.condensation.usage, reply.usage);
    }
    return reply;
  };
  // Stands in for the inner invoker: its model, card and checks go with it.
  return Object.assign(invoke, invokerTraits(inner));
}

/**
 * The run's open condensation, opened by its first summarizer call: the `compacted` event that ends it
 * comes only after the summary is written, so its calls need a parent before anything announces it.
 */
function openCompaction(run: RunScope): CompactionTrace {
  if (run.condensation !== undefined) return run.condensation;
  const span = run.agent.inst.tracer.startSpan(SPAN_CONDENSE, { attributes: { [ATTR_CONVERSATION_ID]: run.sessionId } }, run.context);
  run.condensation = { span, context: trace.setSpan(run.context, span), usage: zeroUsage(), calls: 0 };
  return run.condensation;
}
