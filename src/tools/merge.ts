import { IndusagiError } from '../errors/index.js';
import { buildToolNameMap } from '../runtime/tools/names.js';
import { isHeldApproval } from './approvals.js';
import { DuplicateCallIdError, UnknownToolError } from './toolset.js';
import { DuplicateToolError, UnknownApprovalError } from '../runtime/tools/index.js';
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
  for (const key of ['execute', 'pendingApprovals', 'approve', 'reject'] as const) {
    if (typeof candidate[key] !== 'function') throw new InvalidToolsetError(position, `\`${key}\` is not a function`);
  }
}

/**
 * One toolset over several, in argument order. A name used twice throws `DuplicateToolError`, and two
 * names the model would see alike (`a.b`, `a_b`) throw `ToolNameCollisionError`: either would make a
 * call ambiguous. An approval goes to the toolset that holds the call, asked each time: never to one
 * whose tool merely returned something shaped like a pending approval, so a result an attacker wrote
 * cannot take an approval meant for somebody else's call.
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
  const holderOf = (approvalId: string, except?: Toolset) =>
    toolsets.find((toolset) => toolset !== except && toolset.pendingApprovals().some((held) => held.approvalId === approvalId));

  return {
    tools: toolsets.flatMap((toolset) => toolset.tools),
    names: [...owner.keys()],
    async execute(name, input, ctx) {
      const toolset = owner.get(name);
      if (!toolset) throw new UnknownToolError(name);
      const result = await toolset.execute(name, input, ctx);
      // One id, one held call across the merge too, or one approval could run a call other than the one shown.
      if (isHeldApproval(result) && holderOf(result.actionId, toolset) !== undefined) {
        toolset.reject(result.actionId);
        throw new DuplicateCallIdError(result.actionId);
      }
      return result;
    },
    pendingApprovals: () => toolsets.flatMap((toolset) => toolset.pendingApprovals()),
    async approve(actionId, ctx) {
      const toolset = holderOf(actionId);
      if (!toolset) throw new UnknownApprovalError(actionId);
      return toolset.approve(actionId, ctx);
    },
    reject(actionId) {
      return holderOf(actionId)?.reject(actionId) ?? false;
    },
  };
}
