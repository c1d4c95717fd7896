import type { Block, Turn } from '../contract/turn.js';
import type { ToolNameMap } from '../tools/names.js';

/**
 * The context as the model sees it: tool names inside `tool_call` blocks sanitized. Turns inside the
 * loop, the store and snapshots keep the ORIGINAL names. The mirror grows with the context, so each
 * turn is converted once, not once per step; when no name changes, the context is used as it is.
 */
export class ModelView {
  private readonly renames: boolean;
  private mirror: Turn[] = [];

  constructor(readonly names: ToolNameMap) {
    let renames = false;
    for (const [original, sanitized] of names.toModel) if (original !== sanitized) renames = true;
    this.renames = renames;
  }

  /** A fresh array the callee may keep. `context` must only have grown since the last call or `reset`. */
  of(context: readonly Turn[]): Turn[] {
    if (!this.renames) return context.slice();
    for (let i = this.mirror.length; i < context.length; i++) this.mirror.push(renameCalls(context[i], this.names.toModel));
    return this.mirror.slice();
  }

  /** Forgets the mirror; call it when the context was replaced rather than grown. */
  reset(): void {
    this.mirror = [];
  }
}

/** The reply with the model's (sanitized) tool names mapped back to the original ones. */
export function withOriginalNames(turn: Turn, names: ToolNameMap): Turn {
  return renameCalls(turn, names.toOriginal);
}

// Unknown names pass through unchanged, so a call to a tool that does not exist round-trips as the model wrote it.
function renameCalls(turn: Turn, map: ReadonlyMap<string, string>): Turn {
  let blocks: Block[] | undefined;
  for (let i = 0; i < turn.blocks.length; i++) {
    const block = turn.blocks[i];
    if (block.kind !== 'tool_call') continue;
    const name = map.get(block.name);
    if (name === undefined || name === block.name) continue;
    blocks ??= turn.blocks.slice();
    blocks[i] = { ...block, name };
  }
  return blocks ? { role: turn.role, blocks } : turn;
}
