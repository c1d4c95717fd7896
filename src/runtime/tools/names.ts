import { IndusagiError } from '../../errors/index.js';
import type { ToolNameMap } from '../contract/tool.js';

export type { ToolNameMap };

/** Two tool names that the model would see as one. */
export class ToolNameCollisionError extends IndusagiError {
  static override readonly errorName: string = 'ToolNameCollisionError';
  constructor(
    readonly first: string,
    readonly second: string,
    readonly sanitized: string,
  ) {
    super('tool_name_collision', `Tool names "${first}" and "${second}" both become "${sanitized}" for the model; rename one.`);
  }
}

const INVALID = /[^a-zA-Z0-9_-]/g;

/** The name the model sees: every character outside `[a-zA-Z0-9_-]` (dots included) becomes `_`. */
export function sanitizeToolName(name: string): string {
  return name.replace(INVALID, '_');
}

/** Builds the name map; throws `ToolNameCollisionError` when two names sanitize alike. */
export function buildToolNameMap(names: Iterable<string>): ToolNameMap {
  const toOriginal = new Map<string, string>();
  const toModel = new Map<string, string>();
  for (const name of names) {
    const sanitized = sanitizeToolName(name);
    const existing = toOriginal.get(sanitized);
    if (existing !== undefined) throw new ToolNameCollisionError(existing, name, sanitized);
    toOriginal.set(sanitized, name);
    toModel.set(name, sanitized);
  }
  return { toOriginal, toModel };
}
