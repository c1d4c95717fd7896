import type { RunEventBody } from '../contract/events.js';
import type { ModelCard, ModelInvoker, ModelRequest, ModelTool } from '../contract/model.js';
import type { StepOverrides } from '../contract/step.js';
import type { ToolContext, ToolDefinition } from '../contract/tool.js';
import type { Turn } from '../contract/turn.js';
import type { RunControls } from '../loop/controls.js';
import type { LoopTools } from '../loop/types.js';
import { isSummaryTurn } from '../compaction/summary-turn.js';
import { ToolError } from '../tools/tool-error.js';
import { buildToolNameMap, sanitizeToolName } from '../tools/names.js';
import { AgentConfigError } from './errors.js';
import type { AgentSession } from './session.js';
import { bindModel, resolveSettings } from './settings.js';
import { resolveModel } from '../models/resolve.js';
import { ModelChoiceError } from '../models/errors.js';
import type { AgentConfig, Handoff } from './types.js';

/** The name of the first agent of a conversation whose config has none. */
export const MAIN_AGENT = 'main';

/** The tool that hands the conversation to agent `name`. */
export function transferToolName(name: string): string {
  return `transfer_to_${sanitizeToolName(name)}`;
}

type Profile = {
  name: string;
  config: AgentConfig;
  tools: LoopTools;
  /** Its transfer tools, by name: the agent each hands to. */
  transfers: Map<string, string>;
  transferSpecs: ModelTool[];
  /** What a step of the agent overrides; undefined for the conversation's first agent, whose run settings apply. */
  overrides?: StepOverrides;
  /** The model id billed for its calls. */
  model?: string;
};

/**
 * The agents one definition's conversations may be handed between (the agent's own config, and every
 * agent its `handoffs` reach), resolved once: their settings, tools and transfer tools, and one name map
 * for all of them. Each conversation opens its own `Handoffs` from it.
 */
export class HandoffPlan {
  /** Every transfer tool, by name: the agent it hands to. */
  readonly targets = new Map<string, string>();
  /** One name map for every agent: the loop maps the names of a whole run with it, handoffs included. */
  readonly names: LoopTools['names'];

  constructor(
    readonly profiles: ReadonlyMap<string, Profile>,
    readonly root: Profile,
  ) {
    const names = new Set<string>();
    for (const profile of profiles.values()) {
      for (const name of profile.tools.names.toModel.keys()) names.add(name);
      for (const [name, to] of profile.transfers) {
        names.add(name);
        this.targets.set(name, to);
      }
    }
    this.names = buildToolNameMap(names);
  }

  /** The handoffs of one conversation; `bind` gives each agent's tools what is this conversation's (its history). */
  open(bind: (tools: LoopTools) => LoopTools): Handoffs {
    return new Handoffs(this, bind);
  }
}

/**
 * The agents of one conversation and which of them has it. The loop runs the tools of `tools`, a view
 * of the agent that has the conversation plus its `transfer_to_<name>` tools; a transfer call records
 * the handoff, and the next model call (`step`) is the new agent's: its system prompt, model, output cap
 * and controls. The session records every handoff as the transfer call and its result, so the agent
 * that has a session is read back from it (`restore`): a run picked up in another process comes back
 * to that agent.
 */
export class Handoffs {
  readonly tools: LoopTools;
  #active: Profile;
  #next: { to: Profile; callId: string } | undefined;
  readonly #plan: HandoffPlan;
  /** Each agent's tools as this conversation runs them. */
  readonly #bound = new Map<Profile, LoopTools>();

  constructor(plan: HandoffPlan, bind: (tools: LoopTools) => LoopTools) {
    this.#plan = plan;
    this.#active = plan.root;
    for (const profile of plan.profiles.values()) this.#bound.set(profile, bind(profile.tools));
    let cached: { of: ModelTool[]; active: Profile; specs: ModelTool[] } | undefined;
    const active = (): Profile => this.#active;
    const toolsOf = (profile: Profile): LoopTools => this.#bound.get(profile)!;
    this.tools = {
      get specs() {
        const profile = active();
        const specs = toolsOf(profile).specs;
        // The same array while nothing changes, so what a call sends is counted once.
        if (cached?.of !== specs || cached.active !== profile) {
          cached = { of: specs, active: profile, specs: [...specs, ...profile.transferSpecs] };
        }
        return cached.specs;
      },
      names: plan.names,
      has: (name) => active().transfers.has(name) || toolsOf(active()).has(name),
      needsApproval: (name) => !active().transfers.has(name) && toolsOf(active()).needsApproval(name),
      idempotent: (name) => active().transfers.has(name) || toolsOf(active()).idempotent(name),
      resumable: (name) => (active().transfers.has(name) ? undefined : toolsOf(active()).resumable(name)),
      check: (name, input) => (active().transfers.has(name) ? { ok: true, input } : toolsOf(active()).check(name, input)),
      execute: (name, input, ctx) =>
        active().transfers.has(name) ? this.#transfer(name, ctx) : toolsOf(active()).execute(name, input, ctx),
    };
  }

  /** The name of the agent that has the conversation. */
  get active(): string {
    return this.#active.name;
  }

  /** The model id billed for the next call, when it is not the conversation's first agent's. */
  get model(): string | undefined {
    return this.#active.model;
  }

  /**
   * The per-step hook's producer for one run: applies a handoff the last batch made (publishing
   * `handoff`), then returns what the agent that has the conversation overrides for the call.
   */
  step(publish: (event: RunEventBody) => void): () => StepOverrides | undefined {
    return () => {
      const next = this.#next;
      if (next !== undefined) {
        this.#next = undefined;
        const from = this.#active.name;
        this.#active = next.to;
        publish({ kind: 'handoff', from, to: next.to.name, callId: next.callId });
      }
      return this.#active.overrides;
    };
  }

  /**
   * Reads which agent has `session` from its handoffs: the target of the last transfer that went
   * through, looking past a compaction into the turns it took out of the context if need be.
   */
  async restore(session: AgentSession): Promise<void> {
    this.#next = undefined;
    const { targets, profiles, root } = this.#plan;
    let name = lastHandoff(session.context, targets);
    const first = session.context[0];
    if (name === undefined && first !== undefined && isSummaryTurn(first)) {
      name = lastHandoff(
        (await session.compactedAway()).map((node) => node.turn),
        targets,
      );
    }
    this.#active = (name === undefined ? undefined : profiles.get(name)) ?? root;
  }

  #transfer(name: string, ctx: ToolContext): string {
    const to = this.#plan.profiles.get(this.#active.transfers.get(name)!)!;
    if (this.#next !== undefined && this.#next.to !== to) {
      throw new ToolError(`The conversation is already being handed to ${this.#next.to.name}; one handoff per reply.`);
    }
    if (to === this.#active) return `You are ${to.name} already; carry on.`;
    this.#next = { to, callId: ctx.callId };
    return `Handed the conversation to ${to.name}.`;
  }
}

/**
 * The agents of `config`'s conversations, or undefined when it has no handoffs. `rootTools` are the
 * conductor's own tools; every other agent's come from its config and `builtIn` (each conversation
 * binds them to its history when it opens). Throws `AgentConfigError` for a handoff without a name, two
 * agents under one name, or an agent's config that cannot work.
 */
export function buildHandoffs(
  config: AgentConfig,
  rootTools: LoopTools,
  invoke: ModelInvoker,
  builtIn: readonly ToolDefinition[],
): HandoffPlan | undefined {
  if (config.handoffs === undefined) return undefined;
  if (!Array.isArray(config.handoffs)) throw new AgentConfigError('`handoffs` must be an array of handoff(config) values.');
  if (config.handoffs.length === 0) return undefined;
  const root: Profile = { name: config.name ?? MAIN_AGENT, config, tools: rootTools, transfers: new Map(), transferSpecs: [] };
  const profiles = new Map<string, Profile>([[root.name, root]]);
  const queue: Profile[] = [root];
  for (let profile = queue.shift(); profile !== undefined; profile = queue.shift()) {
    for (const handoff of profile.config.handoffs ?? []) {
      const target = configOf(handoff, profile.name);
      const name = handoff.name ?? target.name;
      if (typeof name !== 'string' || name === '') {
        throw new AgentConfigError(
          `A handoff of agent ${JSON.stringify(profile.name)} has no name: give its config a \`name\`, or handoff(config, { name }).`,
        );
      }
      let to = profiles.get(name);
      if (to === undefined) {
        to = profileOf(name, target, handoff, invoke, builtIn);
        profiles.set(name, to);
        queue.push(to);
      } else if (to.config !== target && to !== root) {
        // (A handoff to the first agent's name is to the first agent, whatever config names it: `{ ...triage, sessionId }`.)
        throw new AgentConfigError(
          `Two different agents are called ${JSON.stringify(name)}; agents of one conversation need names of their own.`,
        );
      }
      const tool = transferToolName(name);
      profile.transfers.set(tool, name);
      profile.transferSpecs.push({
        name: tool,
        description: handoff.description ?? `Hand the conversation to the ${name} agent, which answers from the next reply on.`,
        inputSchema: { type: 'object', properties: {} },
      });
    }
  }
  return new HandoffPlan(profiles, root);
}

function configOf(handoff: Handoff, from: string): AgentConfig {
  const agent = (handoff as Partial<Handoff> | null)?.agent;
  const config = typeof agent === 'function' ? agent() : agent;
  if (typeof config !== 'object' || config === null) {
    throw new AgentConfigError(`A handoff of agent ${JSON.stringify(from)} has no agent config; make one with handoff(config).`);
  }
  return config;
}

function profileOf(name: string, config: AgentConfig, handoff: Handoff, invoke: ModelInvoker, builtIn: readonly ToolDefinition[]): Profile {
  let model: ModelInvoker;
  let settings: { card: ModelCard; tools: LoopTools; controls: RunControls };
  try {
    // Its model as any agent's: an id asked of the conversation's invoker (or the handoff's), or an invoker of its own.
    const bound = bindModel(config, { invokeModel: handoff.invokeModel });
    config = bound.config;
    // An invoker built for one model calls that one whatever a request names: another agent's id is not its to call.
    const resolved = resolveModel(config.model, bound.deps.invokeModel ?? invoke);
    model = withModel(resolved.invoker, resolved.modelId);
    settings = resolveSettings(config, model, builtIn);
  } catch (error) {
    if (AgentConfigError.isInstance(error) || ModelChoiceError.isInstance(error))
      throw new AgentConfigError(`Agent ${JSON.stringify(name)}: ${error.message}`, { cause: error });
    throw error;
  }
  const overrides: StepOverrides = {
    // An agent without a system prompt of its own must not speak with the first agent's.
    system: config.system ?? '',
    model,
    maxOutputTokens: settings.card.maxOutputTokens,
    ...settings.controls,
  };
  return { name, config, tools: settings.tools, transfers: new Map(), transferSpecs: [], overrides, model: model.modelId };
}

/** `invoke` asked for model `id`: the loop sends the id of a step's model, so a handed-to agent's calls name its own. */
function withModel(invoke: ModelInvoker, id: string): ModelInvoker {
  const call = (request: ModelRequest) => invoke(request);
  return Object.assign(call, {
    provider: invoke.provider,
    modelId: id,
    card: invoke.modelId === id ? invoke.card : undefined,
    checkOptions: invoke.checkOptions?.bind(invoke),
    checkControls: invoke.checkControls?.bind(invoke),
  });
}

/** The agent the last transfer in `turns` that went through (its result is not an error) handed to. */
function lastHandoff(turns: readonly Turn[], targets: ReadonlyMap<string, string>): string | undefined {
  const transfers = new Map<string, string>();
  let last: string | undefined;
  for (const turn of turns) {
    for (const block of turn.blocks) {
      if (block.kind === 'tool_call' && targets.has(block.name)) transfers.set(block.id, targets.get(block.name)!);
      if (block.kind === 'tool_result' && block.isError !== true && transfers.has(block.callId)) last = transfers.get(block.callId);
    }
  }
  return last;
}
