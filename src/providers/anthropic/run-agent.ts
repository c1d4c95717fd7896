import { createConductor } from '../../runtime/agent/definition.js';
import { ModelCallError, RunFault } from '../../runtime/loop/errors.js';
import { contextFromOptions } from '../../context/from-options.js';
import { agentRunParts } from '../../parts/agent-run.js';
import type { AgentPart } from '../../parts/types.js';
import { lazyDemoModel } from './create-agent.js';
import { demoChosen } from './demo-switch.js';
import { runAgentSettings, type RunAgentOptions } from './run-agent-options.js';

/**
 * Runs the model-and-tool loop over an Anthropic client, yielding a text part per streamed delta and one
 * tool part per tool call (with `approvalId` when the toolset holds the call for approval). It is the
 * conductor over the caller's `messages` with Claude through `client` as its model, streamed through
 * the one RunEvent -> AgentPart translation; its context is `contextFromOptions`. The client's own
 * errors end the generator unchanged; an abort ends it with `RunAbortedError`, the step cap with
 * `MaxStepsError`. Leaving the loop early (`break`) aborts the run. With `INDUSAGI_MODEL=demo` in the
 * environment it talks to the offline demo model instead of `client`.
 */
export async function* runAgent(opts: RunAgentOptions): AsyncGenerator<AgentPart> {
  const { config, invokeModel, messages } = runAgentSettings(opts);
  const context = contextFromOptions(opts, { maxTokens: config.contextWindow, reserve: config.maxOutputTokens });
  // `runAgent` always names a client, so the demo switch replaces it: otherwise a loop written for Claude
  // could never be tried without a key, which is what `INDUSAGI_MODEL=demo` is for.
  const model = demoChosen(process.env) ? { model: lazyDemoModel() } : {};
  const agent = createConductor(
    { ...config, ...model, context: context.manager, prepareStep: opts.prepareStep },
    { invokeModel: model.model === undefined ? invokeModel : undefined, messages },
  );
  const controller = new AbortController();
  const signal = opts.signal ? AbortSignal.any([controller.signal, opts.signal]) : controller.signal;
  const prompt = opts.prompt;
  const start = () => (prompt !== undefined ? agent.submit(prompt, { signal }) : agent.continue({ signal }));
  try {
    for await (const part of agentRunParts(start())) yield* context.parts(part);
  } catch (error) {
    throw RunFault.isInstance(error) ? reason(error) : error;
  } finally {
    // A consumer that stops early (break, return, throw) ends the run; after a normal end this does nothing.
    controller.abort();
    await agent.close();
  }
}

/** What `runAgent` callers catch: the failure behind the fault, and the SDK's own error behind a failed call. */
function reason(fault: RunFault): unknown {
  const cause = fault.cause;
  return ModelCallError.isInstance(cause) && cause.cause !== undefined ? cause.cause : (cause ?? fault);
}
