import { IndusagiError } from '../errors/index.js';
import { buildToolNameMap } from './names.js';
import { DuplicateToolError, UnknownApprovalError, UnknownToolError, isPendingApproval } from './toolset.js';
import type { Toolset } from './toolset.js';

/** Something passed to `mergeToolsets` that is not a `Toolset`. */
export class InvalidToolsetError extends IndusagiError {
  static override readonly errorName: string = 'InvalidToolsetError';
  constructor(
    readonly position: number,
    detail: string,
  ) {
    super('invalid_toolset', `mergeToolsets argument ${position} is not a toolset: ${detail}.`);
  }
}

function checkToolset(value: unknown, position: number): asserts value is Toolset {
  if (typeof value !== 'object' || value === null) throw new InvalidToolsetError(position, 'expected the object toToolset returns');
  const candidate = value as Partial<Toolset>;
  if (!Array.isArray(candidate.tools)) throw new InvalidToolsetError(position, '`tools` is not an array');
  for (const key of ['execute', 'approve', 'reject'] as const) {
    if (typeof candidate[key] !== 'function') throw new InvalidToolsetError(position, `\`${key}\` is not a function`);
  }
}

/**
 * One toolset over several, in argument order. A name used twice throws `DuplicateToolError`, and two
 * names the model would see alike (`a.b`, `a_b`) throw `ToolNameCollisionError`: either would make a
 * call ambiguous. Approvals go back to the toolset whose tool asked for them.
 */
export function mergeToolsets(...toolsets: Toolset[]): Toolset {
  toolsets.forEach((toolset, i) => checkToolset(toolset, i));
  const owner = new Map<string, Toolset>();
  for (const toolset of toolsets) {
    for (const tool of toolset.tools) {
      if (owner.has(tool.name)) throw new DuplicateToolError(tool.name);
      owner.set(tool.name, toolset);
    }
  }
  buildToolNameMap(owner.keys());
  const pendingOwner = new Map<string, Toolset>();

  return {
    tools: toolsets.flatMap((toolset) => toolset.tools),
    names: [...owner.keys()],
    async execute(name, input, ctx) {
      const toolset = owner.get(name);
      if (!toolset) throw new UnknownToolError(name);
      const result = await toolset.execute(name, input, ctx);
      if (isPendingApproval(result)) pendingOwner.set(result.actionId, toolset);
      return result;
    },
    async approve(actionId, ctx) {
      const toolset = pendingOwner.get(actionId);
      if (!toolset) throw new UnknownApprovalError(actionId);
      pendingOwner.delete(actionId);
      return toolset.approve(actionId, ctx);
    },
    reject(actionId) {
      const toolset = pendingOwner.get(actionId);
      if (!toolset) return false;
      pendingOwner.delete(actionId);
      return toolset.reject(actionId);
    },
  };
}
