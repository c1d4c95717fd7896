import type { StandardSchemaV1 } from '@standard-schema/spec';
import type { ToolContext, ToolDefinition } from '../runtime/contract/tool.js';
import type { JsonSchema } from '../schema/index.js';
import { compileToolInput } from '../runtime/tools/tool-input.js';

type ToolFields = Omit<ToolDefinition, 'inputSchema' | 'inputJsonSchema' | 'execute'>;

/** A tool whose input is a Standard Schema: `execute` gets the schema's output type, validated. */
export type StandardTool<Schema extends StandardSchemaV1> = ToolFields & {
  inputSchema: Schema;
  /** The JSON Schema the model sees, when the library cannot derive one (see `ToolDefinition.inputJsonSchema`). */
  inputJsonSchema?: JsonSchema;
  execute(input: StandardSchemaV1.InferOutput<Schema>, ctx: ToolContext): unknown;
};

/**
 * A tool whose input is a JSON Schema; `Input` is what you declare it to be (`tool<{ city: string }>(…)`),
 * validated against the schema.
 */
export type JsonSchemaTool<Input = unknown> = ToolFields & {
  inputSchema: JsonSchema;
  execute(input: Input, ctx: ToolContext): unknown;
};

/**
 * Defines a tool with `execute` typed from its input schema:
 * `tool({ name, description, inputSchema: z.object({ city: z.string() }), execute: ({ city }) => … })`
 * gives `city: string`. Checks the schema now, so one that cannot work (no JSON Schema to be had for
 * the model, not an object schema) throws `SchemaDefinitionError` here rather than when an agent first
 * uses it. Returns the definition itself, ready for `AgentConfig.tools` or `toToolset`.
 */
export function tool<Schema extends StandardSchemaV1>(definition: StandardTool<Schema>): StandardTool<Schema>;
export function tool<Input = unknown>(definition: JsonSchemaTool<Input>): JsonSchemaTool<Input>;
export function tool(definition: ToolDefinition): ToolDefinition {
  compileToolInput(definition);
  return definition;
}
