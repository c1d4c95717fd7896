import { context as contexts, diag } from '@opentelemetry/api';
import type { RunEvent } from '../runtime/contract/index.js';
import { RunLedger, type RunEventHandler } from '../runtime/ledger/index.js';
import {
  ATTR_CONDENSE_SUMMARIES,
  ATTR_CONDENSE_TOKENS_AFTER,
  ATTR_CONDENSE_TOKENS_BEFORE,
  ATTR_CONDENSE_TURNS_REMOVED,
  ATTR_CONVERSATION_ID,
  ATTR_TOOL_CALL_ID,
  ATTR_TOOL_NAME,
  EVENT_APPROVAL_REQUESTED,
  EVENT_RUN_STARTED,
} from './conventions.js';
import type { AgentTrace } from './run-scope.js';
import { finishToolCall, startToolCall } from './tools.js';
import { guardrailTripped } from './guardrails.js';
import { usageAttributes } from './usage.js';

/**
 * The agent's ledger with telemetry reading every event as it is published. Not a subscriber: the
 * conductor builds a snapshot per step only for subscribers, and telemetry needs none. Subscriptions
 * and publishing go to `inner`, the caller's own ledger when they passed one.
 */
export class TappedLedger extends RunLedger {
  constructor(
    private readonly inner: RunLedger,
    private readonly agent: AgentTrace,
  ) {
    super();
  }

  override subscribe(handler: RunEventHandler): () => void {
    return this.inner.subscribe(handler);
  }

  override get subscriberCount(): number {
    return this.inner.subscriberCount;
  }

  override publish(event: RunEvent): void {
    try {
      observe(this.agent, event);
    } catch (error) {
      // Telemetry never fails a run; what went wrong goes to OpenTelemetry's own diagnostic logger.
      diag.error(`indusagi telemetry could not record "${event.kind}"`, error);
    }
    this.inner.publish(event);
  }
}

function observe(agent: AgentTrace, event: RunEvent): void {
  switch (event.kind) {
    case 'run_started': {
      const run = agent.scopeOf(contexts.active());
      if (run === undefined) return;
      run.sessionId = event.sessionId;
      run.span.setAttribute(ATTR_CONVERSATION_ID, event.sessionId);
      run.span.addEvent(EVENT_RUN_STARTED);
      return;
    }
    case 'tool_started': {
      const { run, parent } = agent.locate(contexts.active());
      if (run !== undefined) startToolCall(run, parent, event);
      return;
    }
    case 'tool_finished': {
      const { run, parent } = agent.locate(contexts.active());
      if (run !== undefined) finishToolCall(run, parent, event);
      return;
    }
    case 'approval_requested': {
      agent
        .scopeOf(contexts.active())
        ?.span.addEvent(EVENT_APPROVAL_REQUESTED, { [ATTR_TOOL_NAME]: event.name, [ATTR_TOOL_CALL_ID]: event.callId });
      return;
    }
    case 'guardrail_tripped': {
      const run = agent.scopeOf(contexts.active());
      if (run !== undefined) guardrailTripped(run.span, event, agent.inst.captureContent);
      return;
    }
    case 'compacted': {
      const run = agent.scopeOf(contexts.active());
      const condensation = run?.condensation;
      if (run === undefined || condensation === undefined) return;
      run.condensation = undefined;
      condensation.span.setAttributes({
        [ATTR_CONDENSE_TOKENS_BEFORE]: event.tokensBefore,
        [ATTR_CONDENSE_TOKENS_AFTER]: event.tokensAfter,
        [ATTR_CONDENSE_TURNS_REMOVED]: event.removed,
        [ATTR_CONDENSE_SUMMARIES]: condensation.calls,
        ...usageAttributes(condensation.usage),
      });
      condensation.span.end();
      return;
    }
    default:
      return;
  }
}
