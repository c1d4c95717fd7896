import type { ModelInvoker } from '../runtime/contract/model.js';
import type { AgentConfig, Handoff } from '../runtime/agent/types.js';
import { AgentToolError } from './errors.js';

export type HandoffOptions = {
  /** The agent's name, unique among the agents of one conversation. Default: the config's `name`. */
  name?: string;
  /** What the model is told about the agent, in the description of its `transfer_to_<name>` tool. */
  description?: string;
  /** Its model, when it is not the conversation's invoker (which is asked for the config's `model`). */
  invokeModel?: ModelInvoker;
};

/**
 * Another agent the model may hand the conversation to: put it in an agent's `handoffs`. The model gets
 * a `transfer_to_<name>` tool; calling it hands the conversation over, in the same session, and the next
 * model call is that agent's (its system prompt, tools, model). Give a function for agents that hand back
 * to each other (`handoff(() => triage)`). See docs/subagents.md.
 */
export function handoff(agent: AgentConfig | (() => AgentConfig), options: HandoffOptions = {}): Handoff {
  if (typeof agent !== 'function' && (typeof agent !== 'object' || agent === null)) {
    throw new AgentToolError('handoff needs an agent config, or a function returning one.');
  }
  if (options.name !== undefined && (typeof options.name !== 'string' || options.name === '')) {
    throw new AgentToolError('handoff: `name` must be a non-empty string.');
  }
  if (typeof agent === 'object' && options.name === undefined && (typeof agent.name !== 'string' || agent.name === '')) {
    throw new AgentToolError("handoff: the agent needs a name (its config's `name`, or handoff(config, { name })).");
  }
  return { agent, ...options };
}
