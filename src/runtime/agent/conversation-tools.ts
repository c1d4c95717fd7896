import type { ToolDefinition } from '../contract/tool.js';
import type { LoopTools } from '../loop/types.js';

/**
 * A definition's tools as one conversation runs them. The definition compiled every tool once, its
 * built-in history tools included; what is the conversation's is `history`, those tools built on its
 * own history: they are shown to the model, and callable, only while `open()` says so (once a
 * condensation left something to search), and their calls go to this conversation's history.
 */
export function conversationTools(tools: LoopTools, history: readonly ToolDefinition[], open: () => boolean): LoopTools {
  const own = new Map(history.map((tool) => [tool.name, tool]));
  const always = tools.specs.filter((spec) => !own.has(tools.names.toOriginal.get(spec.name) ?? spec.name));
  return {
    get specs() {
      return open() ? tools.specs : always;
    },
    names: tools.names,
    has: (name) => tools.has(name) && (!own.has(name) || open()),
    needsApproval: (name) => tools.needsApproval(name),
    idempotent: (name) => tools.idempotent(name),
    resumable: (name) => tools.resumable(name),
    check: (name, input) => tools.check(name, input),
    execute: (name, input, ctx) => {
      const mine = own.get(name);
      return mine === undefined ? tools.execute(name, input, ctx) : mine.execute(input, ctx);
    },
  };
}
