import type { ToolDefinition } from '../contract/tool.js';
import {
  compileSchema,
  formatIssues,
  SchemaDefinitionError,
  type CompiledSchema,
  type SchemaCheck,
  type SchemaIssue,
  validatorLoading,
} from '../../schema/index.js';
import { ToolError } from './tool-error.js';

/**
 * A tool call whose input does not match the tool's schema. It reaches the model as the error result
 * (the message lists every problem, path and message), so the model can correct itself; the tool never ran.
 */
export class ToolInputError extends ToolError {
  static override readonly errorName: string = 'ToolInputError';
  constructor(
    readonly toolName: string,
    readonly issues: SchemaIssue[],
  ) {
    super(invalidInputMessage(toolName, issues));
  }
}

/** What the model is told about invalid input: every issue, and that nothing ran. */
export function invalidInputMessage(toolName: string, issues: readonly SchemaIssue[]): string {
  const count = issues.length === 1 ? '1 problem' : `${issues.length} problems`;
  return `Invalid input for tool "${toolName}" (${count}); the tool did not run. Fix the input and call it again:\n${formatIssues(issues)}`;
}

/**
 * The tool's input schema compiled (once per schema object): the JSON Schema the model is sent and the
 * check every call passes before `execute`. Throws `SchemaDefinitionError` for a schema that cannot
 * be used, including one that does not describe an object, which the Messages API requires of tool inputs.
 */
export function compileToolInput(definition: Pick<ToolDefinition, 'name' | 'inputSchema' | 'inputJsonSchema'>): CompiledSchema {
  const what = `tool "${definition.name}" inputSchema`;
  const compiled = compileSchema(definition.inputSchema, what, definition.inputJsonSchema);
  const type = compiled.jsonSchema.type;
  if (type !== undefined && type !== 'object')
    throw new SchemaDefinitionError(what, `a tool's input must be an object; the JSON Schema says type ${JSON.stringify(type)}`);
  return compiled;
}

/** Checks one call's input: the value `execute` gets (a Standard Schema's output), or the `ToolInputError` to answer with. */
export function checkToolInput(toolName: string, compiled: CompiledSchema, input: unknown): ToolInputCheck | Promise<ToolInputCheck> {
  // The compiled validator loads on the first compile; a call that comes while it is still loading
  // waits for it (once per process), so a run checks with what every later run will use.
  const loading = validatorLoading();
  if (loading !== undefined) return loading.then(() => checkToolInput(toolName, compiled, input));
  const checked = compiled.check(input);
  return checked instanceof Promise ? checked.then((result) => toToolCheck(toolName, result)) : toToolCheck(toolName, checked);
}

export type ToolInputCheck = { ok: true; input: unknown } | { ok: false; error: ToolInputError };

function toToolCheck(toolName: string, checked: SchemaCheck): ToolInputCheck {
  return checked.ok ? { ok: true, input: checked.value } : { ok: false, error: new ToolInputError(toolName, checked.issues) };
}
