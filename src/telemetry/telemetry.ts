import type { AgentConfig, AgentTelemetry, ConductorDeps, InstrumentedAgent } from '../runtime/agent/index.js';
import type { MemoryStore } from '../memory/types.js';
import { traceAgent } from './agent.js';
import { traceEvalCase, type EvalCaseInfo, type EvalCaseOutcome } from './eval-case.js';
import { resolveInstrumentation, type TelemetryOptions } from './instrumentation.js';
import { traceInvoker } from './invoker.js';
import { TappedLedger } from './ledger-tap.js';
import { traceMemoryStore, type MemoryStoreTelemetryOptions } from './memory-store.js';
import { AgentTrace } from './run-scope.js';
import { traceSessionStore } from './session-store.js';
import { traceTool } from './tools.js';
import { traceGuardrail } from './guardrails.js';

/** What `createTelemetry` returns: pass it as `deps.telemetry`; wrap memory stores with `memoryStore`. */
export interface Telemetry extends AgentTelemetry {
  /**
   * `store` with `create_memory`, `search_memory`, `update_memory` and `delete_memory` spans, and the
   * same members as `store`: the optional ones (`all`, `get`, `list`, `update`) and working memory
   * (`getWorking`, `setWorking`, `forgetWorking`) traced, any other (`close`, `path`) passed through.
   * Hand the returned store to whatever uses it (`memorySource`, `workingMemory`, your tools); its
   * operations nest under the run that makes them.
   */
  memoryStore<S extends MemoryStore>(store: S, options?: MemoryStoreTelemetryOptions): S;
  /**
   * Runs one evaluation case inside an `evaluate_case` span (what `evaluate({ telemetry })` of
   * indusagi/evals calls for each case): the case's agent runs nest under it, and it records the case's
   * status and scores.
   */
  evalCase<R extends EvalCaseOutcome>(info: EvalCaseInfo, work: () => Promise<R>): Promise<R>;
}

/**
 * OpenTelemetry spans and metrics for agents, following the GenAI semantic conventions (see
 * docs/telemetry.md): `createAgent(config, { telemetry: createTelemetry() })`. Spans go to the global
 * tracer provider unless `tracer` is given, metrics to the global meter provider unless `meter` is;
 * with no SDK registered both are no-ops. Context propagation (a tool's own spans under its
 * `execute_tool`) needs a context manager, which the Node SDK registers.
 * Throws `TelemetryOptionsError` for options that cannot work.
 */
export function createTelemetry(options: TelemetryOptions = {}): Telemetry {
  const inst = resolveInstrumentation(options);
  return {
    instrument(config: AgentConfig, deps: ConductorDeps): InstrumentedAgent {
      const invokeModel = deps.invokeModel;
      // Whatever is not what it should be goes back untouched, for the conductor to refuse.
      // The conductor hands its config over with `model` as the id (an invoker given as `model` is `invokeModel` by then).
      if (typeof invokeModel !== 'function' || typeof config !== 'object' || config === null || typeof config.model !== 'string')
        return { config, deps, conversation: (ledger) => ({ ledger, agent: (conductor) => conductor }) };
      const tools = Array.isArray(config.tools) ? config.tools : [];
      const name = typeof config.name === 'string' ? config.name : inst.agentName;
      // One trace state per definition: every conversation opened from it reports under the same agent.
      const agent = new AgentTrace(inst, config.model, invokeModel.provider ?? inst.providerName, config.system, tools, name);
      const traced: ConductorDeps = { ...deps, invokeModel: traceInvoker(invokeModel, agent) };
      if (deps.store !== undefined) traced.store = traceSessionStore(deps.store, inst);
      const tracedConfig = { ...config };
      if (Array.isArray(config.tools)) tracedConfig.tools = config.tools.map((tool) => traceTool(tool, agent));
      if (Array.isArray(config.inputGuardrails)) tracedConfig.inputGuardrails = config.inputGuardrails.map((g) => traceGuardrail(g, agent));
      if (Array.isArray(config.outputGuardrails))
        tracedConfig.outputGuardrails = config.outputGuardrails.map((g) => traceGuardrail(g, agent));
      return {
        config: tracedConfig,
        deps: traced,
        conversation: (ledger) => ({ ledger: new TappedLedger(ledger, agent), agent: (conductor) => traceAgent(conductor, agent) }),
      };
    },
    memoryStore: (store, memoryOptions) => traceMemoryStore(store, inst, memoryOptions),
    evalCase: (info, work) => traceEvalCase(inst, info, work),
  };
}
