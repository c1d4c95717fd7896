import type { Turn } from '../contract/turn.js';
import type { ModelTool } from '../contract/model.js';
import type { ContextManagerLike, ContextReport, ContextTurn } from '../contract/context.js';
import type { ToolNameMap } from '../contract/tool.js';
import type { LoopTools } from '../loop/types.js';

export type ContextRunInput = {
  manager: ContextManagerLike;
  /** The prompt memory recalls against. */
  prompt: string;
  /** The conversation, latest prompt included, tool names original. */
  messages: readonly Turn[];
  system?: string;
  /** The caller's own tools; used when no source owns the tool list, and for every ordinary call. */
  tools: LoopTools;
};

/** One run under a context manager: what its calls send besides the messages, and the tools they run. */
export type ContextRun = {
  /** The messages after the manager's own `compact` (its `history`): the same array when it left them alone. */
  readonly compacted: readonly Turn[];
  /** The caller's system prompt followed by the sources' stable system texts: the cached part. */
  readonly system: string | undefined;
  /** The selections (recalled memory), which change from turn to turn: sent after `system`, uncached. */
  readonly volatileSystem: string | undefined;
  /** The tools for the loop: meta-tool calls go to the manager, the rest to the caller's tools. */
  readonly tools: LoopTools;
  /** What the latest `prepare` reported (recalled memory, loaded tools): publish before the first model call. */
  readonly prepared: ContextReport[];
  /** What the next call sends besides the messages (the tool list grows as searches load tools). */
  sending(): { system?: string; tools: readonly ModelTool[] };
  /** Prepares the turn again on compacted `messages`, so selections such as recalled memory see the room that freed. */
  reprepare(messages: readonly Turn[]): Promise<void>;
  /** What the manager reported while answering call `callId`: publish right after that call's result. */
  takeParts(callId: string): ContextReport[];
  /** Runs the sources' write-backs after the run's last reply; returns what they reported. */
  finish(messages: readonly Turn[], text: string): Promise<ContextReport[]>;
};

/**
 * Drives a `ContextManager` around one run, as docs/context.md lays out: `compact`, then `prepare` once
 * (system text, tool list, budgeted selections; again if the run's first step compacted); every tool
 * call is offered to `handle` first (a `search_tools` call loads tools, which the very next model call
 * sees); `commit` after. The conductor makes it a producer of the per-step hook.
 */
export async function beginContextRun(input: ContextRunInput): Promise<ContextRun> {
  const { manager, tools: own } = input;
  const compacted: readonly Turn[] = await manager.compact(input.messages as Turn[]);
  let turn: ContextTurn = { prompt: input.prompt, messages: compacted.slice(), system: input.system };
  let prepared = await manager.prepare(turn);
  const specsOf = (tools: ModelTool[] | null): ModelTool[] => tools ?? own.specs;
  // The same array for every call until a handled call changes it, so the compaction's overhead is counted once.
  let specs = specsOf(prepared.tools);
  let everything: string | undefined;
  let system: string | undefined;
  let volatileSystem: string | undefined;
  let names = own.names;
  let meta = new Set<string>();
  const adopt = (): void => {
    everything = joinSystem(input.system, prepared.system);
    // A manager that does not split its text says nothing about what is stable: all of it counts as changing.
    const split = prepared.stableSystem !== undefined && prepared.selectedSystem !== undefined;
    system = joinSystem(input.system, split ? prepared.stableSystem : undefined);
    volatileSystem = (split ? prepared.selectedSystem : prepared.system) || undefined;
    names = mergeNames(own.names, prepared.nameMap, prepared.metaTools);
    meta = new Set(prepared.metaTools);
  };
  adopt();
  const pending = new Map<string, ContextReport[]>();
  const isMeta = (name: string): boolean => meta.has(names.toModel.get(name) ?? name);

  const tools: LoopTools = {
    get specs() {
      return specs;
    },
    get names() {
      return names;
    },
    has: (name) => isMeta(name) || own.has(name),
    needsApproval: (name) => own.needsApproval(name),
    idempotent: (name) => own.idempotent(name),
    resumable: (name) => (isMeta(name) ? undefined : own.resumable(name)),
    // A meta-tool's source checks its own input (`search_tools` does); every other call is the caller's tool's.
    check: (name, callInput) => (isMeta(name) ? { ok: true, input: callInput } : own.check(name, callInput)),
    async execute(name, callInput, ctx) {
      const handled = await manager.handle(names.toModel.get(name) ?? name, callInput, turn);
      if (handled === null) return own.execute(name, callInput, ctx);
      if (handled.tools !== null) specs = handled.tools;
      if (handled.parts.length > 0) pending.set(ctx.callId, handled.parts);
      return handled.result;
    },
  };

  return {
    compacted,
    get system() {
      return system;
    },
    get volatileSystem() {
      return volatileSystem;
    },
    tools,
    get prepared() {
      return prepared.parts;
    },
    sending: () => ({ system: everything, tools: specs }),
    async reprepare(messages) {
      turn = { prompt: input.prompt, messages: messages.slice(), system: input.system };
      prepared = await manager.prepare(turn);
      specs = specsOf(prepared.tools);
      adopt();
    },
    takeParts(callId) {
      const parts = pending.get(callId);
      if (parts === undefined) return [];
      pending.delete(callId);
      return parts;
    },
    finish: (final, text) => manager.commit({ ...turn, messages: final.slice(), text }),
  };
}

function joinSystem(system: string | undefined, added: string | undefined): string | undefined {
  return [system, added].filter((text) => text !== undefined && text !== '').join('\n\n') || undefined;
}

// The sources' map wins: it names the tools they hand the model, which may not all be the caller's.
function mergeNames(own: ToolNameMap, fromSources: ReadonlyMap<string, string>, metaTools: readonly string[]): ToolNameMap {
  const toOriginal = new Map(own.toOriginal);
  for (const [sanitized, original] of fromSources) toOriginal.set(sanitized, original);
  for (const name of metaTools) if (!toOriginal.has(name)) toOriginal.set(name, name);
  const toModel = new Map<string, string>();
  for (const [sanitized, original] of toOriginal) toModel.set(original, sanitized);
  return { toOriginal, toModel };
}
