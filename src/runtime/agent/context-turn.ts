import type { Turn } from '../contract/turn.js';
import type { ModelTool } from '../contract/model.js';
import type { ContextManagerLike, ContextReport, ContextTurn } from '../contract/context.js';
import type { ToolNameMap } from '../contract/tool.js';
import type { LoopTools } from '../loop/types.js';

export type ContextTurnInput = {
  manager: ContextManagerLike;
  /** The prompt memory recalls against. */
  prompt: string;
  /** The conversation, latest prompt included, tool names original. */
  messages: readonly Turn[];
  system?: string;
  /** The caller's own tools; used when no source owns the tool list, and for every ordinary call. */
  tools: LoopTools;
  /**
   * Shrinks the history when it would not fit beside everything the turn sends (the conductor's
   * condensation, acting as the manager's history compaction); returns `messages` itself when it fits.
   * Asked after `prepare`; when the history shrank, `prepare` runs again on it, so selections such as
   * recalled memory see the room that freed.
   */
  fit?: (messages: readonly Turn[], sending: ContextTurnSending) => Promise<readonly Turn[]>;
};

/** What each call of a context turn sends besides the messages: every system text and the tool list. */
export type ContextTurnSending = { system?: string; tools: readonly ModelTool[] };

/** One turn under a context manager, ready for the loop. */
export type ContextTurnHandle = {
  /** The messages after `compact`: the same array when the manager left them alone. */
  messages: readonly Turn[];
  /** The caller's system prompt followed by the sources' stable system texts: the cached part. */
  system: string | undefined;
  /** The selections (recalled memory), which change from turn to turn: sent after `system`, uncached. */
  volatileSystem: string | undefined;
  /** The tools for the loop: meta-tool calls go to the manager, the rest to the caller's tools. */
  tools: LoopTools;
  /** What `prepare` reported (recalled memory, loaded tools): publish before the first model call. */
  prepared: ContextReport[];
  /** What the manager reported while answering call `callId`: publish right after that call's result. */
  takeParts(callId: string): ContextReport[];
  /** Runs the sources' write-backs after the turn's last reply; returns what they reported. */
  finish(messages: readonly Turn[], text: string): Promise<ContextReport[]>;
  /** What the next call sends besides the messages (the tool list grows as searches load tools). */
  sending(): ContextTurnSending;
};

/**
 * Drives a `ContextManager` around the loop, as docs/context.md lays out: `compact`, then `prepare`
 * once per turn (system text, tool list, budgeted selections); every tool call is offered to `handle`
 * first (a `search_tools` call loads tools, which the very next model call sees); `commit` after.
 */
export async function beginContextTurn(input: ContextTurnInput): Promise<ContextTurnHandle> {
  const { manager, tools: own } = input;
  let messages: readonly Turn[] = await manager.compact(input.messages as Turn[]);
  let turn: ContextTurn = { prompt: input.prompt, messages: messages.slice(), system: input.system };
  let prepared = await manager.prepare(turn);
  const specsOf = (tools: ModelTool[] | null): ModelTool[] => tools ?? own.specs;
  // The same array in `fit` and later calls until a handled call changes it, so the condensation's overhead is counted once.
  let specs = specsOf(prepared.tools);
  if (input.fit !== undefined) {
    const fitted = await input.fit(messages, { system: joinSystem(input.system, prepared.system), tools: specs });
    if (fitted !== messages) {
      messages = fitted;
      turn = { prompt: input.prompt, messages: messages.slice(), system: input.system };
      prepared = await manager.prepare(turn);
      specs = specsOf(prepared.tools);
    }
  }
  const everything = joinSystem(input.system, prepared.system);
  // A manager that does not split its text says nothing about what is stable: all of it counts as changing.
  const split = prepared.stableSystem !== undefined && prepared.selectedSystem !== undefined;
  const system = joinSystem(input.system, split ? prepared.stableSystem : undefined);
  const volatileSystem = (split ? prepared.selectedSystem : prepared.system) || undefined;
  const names = mergeNames(own.names, prepared.nameMap, prepared.metaTools);
  const meta = new Set(prepared.metaTools);
  const pending = new Map<string, ContextReport[]>();

  const tools: LoopTools = {
    get specs() {
      return specs;
    },
    names,
    has: (name) => meta.has(names.toModel.get(name) ?? name) || own.has(name),
    needsApproval: (name) => own.needsApproval(name),
    idempotent: (name) => own.idempotent(name),
    // A meta-tool's source checks its own input (`search_tools` does); every other call is the caller's tool's.
    check: (name, input) => (meta.has(names.toModel.get(name) ?? name) ? { ok: true, input } : own.check(name, input)),
    async execute(name, callInput, ctx) {
      const handled = await manager.handle(names.toModel.get(name) ?? name, callInput, turn);
      if (handled === null) return own.execute(name, callInput, ctx);
      if (handled.tools !== null) specs = handled.tools;
      if (handled.parts.length > 0) pending.set(ctx.callId, handled.parts);
      return handled.result;
    },
  };

  return {
    messages,
    system,
    volatileSystem,
    tools,
    prepared: prepared.parts,
    takeParts(callId) {
      const parts = pending.get(callId);
      if (parts === undefined) return [];
      pending.delete(callId);
      return parts;
    },
    finish: (final, text) => manager.commit({ ...turn, messages: final.slice(), text }),
    sending: () => ({ system: everything, tools: specs }),
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
