import type { ModelTool } from '../contract/model.js';
import { buildToolNameMap } from '../tools/names.js';
import { DuplicateToolError } from '../tools/index.js';
import type { ResumableTool, ToolContext } from '../contract/tool.js';
import type { InputCheck, LoopTools } from './types.js';

export type LoopToolsSource = {
  /** Tools under their ORIGINAL names. */
  tools: ReadonlyArray<{ name: string; description: string; inputSchema: object }>;
  execute(name: string, input: unknown, ctx: ToolContext): unknown;
  needsApproval?(name: string): boolean;
  idempotent?(name: string): boolean;
  resumable?(name: string): ResumableTool | undefined;
  /** See `LoopTools.check`. */
  check?(name: string, input: unknown): InputCheck | Promise<InputCheck>;
};

/**
 * Builds the loop's view of a toolset. Throws at set-up, not mid-run: `DuplicateToolError` for a repeated
 * name, `ToolNameCollisionError` for two names the model would see as one (`a.b` and `a_b`).
 */
export function defineLoopTools(source: LoopToolsSource): LoopTools {
  const known = new Set<string>();
  for (const tool of source.tools) {
    if (known.has(tool.name)) throw new DuplicateToolError(tool.name);
    known.add(tool.name);
  }
  const names = buildToolNameMap(known);
  const specs: ModelTool[] = source.tools.map((tool) => ({
    name: names.toModel.get(tool.name)!,
    description: tool.description,
    inputSchema: tool.inputSchema,
  }));
  const needsApproval = source.needsApproval ?? (() => false);
  const idempotent = source.idempotent ?? (() => false);
  const resumable = source.resumable ?? (() => undefined);
  return {
    specs,
    names,
    has: (name) => known.has(name),
    needsApproval: (name) => needsApproval(name),
    idempotent: (name) => idempotent(name),
    resumable: (name) => resumable(name),
    check: source.check ?? ((_name, input) => ({ ok: true, input })),
    execute: (name, input, ctx) => source.execute(name, input, ctx),
  };
}
