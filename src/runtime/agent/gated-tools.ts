import type { LoopTools } from '../loop/types.js';

/**
 * `tools` with the tools named in `gated` shown to the model, and callable, only while `open()` says so:
 * the history tools exist only once a condensation left something to search.
 */
export function gateTools(tools: LoopTools, gated: ReadonlySet<string>, open: () => boolean): LoopTools {
  const always = tools.specs.filter((spec) => !gated.has(tools.names.toOriginal.get(spec.name) ?? spec.name));
  return {
    get specs() {
      return open() ? tools.specs : always;
    },
    names: tools.names,
    has: (name) => tools.has(name) && (!gated.has(name) || open()),
    needsApproval: (name) => tools.needsApproval(name),
    idempotent: (name) => tools.idempotent(name),
    resumable: (name) => tools.resumable(name),
    check: (name, input) => tools.check(name, input),
    execute: (name, input, ctx) => tools.execute(name, input, ctx),
  };
}
