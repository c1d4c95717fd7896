import type { ToolContext, ToolDefinition } from '../runtime/contract/tool.js';
import { compileJsonSchema, type JsonSchemaCheck } from '../schema/index.js';
import { sanitizeToolName } from '../runtime/tools/names.js';
import { compileToolInput } from '../runtime/tools/tool-input.js';
import { errorMessage } from '../errors/index.js';
import {
  DEFAULT_MAX_DESCRIPTION_CHARS,
  MAX_INPUT_SCHEMA_CHARS,
  type McpToolAnnotations,
  type McpToolInfo,
  type McpToolOptions,
} from './config.js';
import { McpToolCollisionError } from './errors.js';

/**
 * An MCP server's tool as the agent's: named `server.tool` (the model sees `server_tool`), its input
 * checked against the server's schema before the call, its result the text the model reads. `mcp`
 * says where it comes from; telemetry puts `mcp.server` on its `execute_tool` spans.
 */
export type McpToolDefinition = ToolDefinition & { readonly mcp: McpToolInfo };

/** A tool a server listed that the client will not offer, and why (an input schema that cannot be compiled, say). */
export type McpRefusedTool = { server: string; name: string; reason: string };

// Anthropic and OpenAI both refuse longer tool names.
const MAX_MODEL_NAME = 64;

/** What the definitions need of their client: a call by the tool's own name. */
export type ToolRunner = (tool: McpToolInfo, input: unknown, ctx: ToolContext) => Promise<string>;

/** A listed tool the client accepted: what it is, and the check its structured results must pass. */
export type AcceptedTool = { info: McpToolInfo; output?: JsonSchemaCheck };

/**
 * Reads a server's `tools/list` entries one by one, so one malformed tool (no name, an input schema
 * that is not an object or cannot be compiled) is refused alone and the others still work.
 */
export function acceptTools(
  server: string,
  listed: readonly unknown[],
  options: McpToolOptions,
): { accepted: AcceptedTool[]; refused: McpRefusedTool[] } {
  const accepted: AcceptedTool[] = [];
  const refused: McpRefusedTool[] = [];
  const seen = new Set<string>();
  for (const raw of listed) {
    const tool = raw as Record<string, unknown> | null;
    const name = typeof tool === 'object' && tool !== null && typeof tool.name === 'string' ? tool.name : undefined;
    if (name === undefined || name === '') {
      refused.push({ server, name: String(name ?? '(no name)'), reason: 'it has no name' });
      continue;
    }
    if (seen.has(name)) {
      refused.push({ server, name, reason: 'the server lists it twice' });
      continue;
    }
    seen.add(name);
    const made = toolInfo(server, name, tool!, options.maxDescriptionChars ?? DEFAULT_MAX_DESCRIPTION_CHARS);
    if (typeof made === 'string') refused.push({ server, name, reason: made });
    else if (keeps(options.tools, made.info)) accepted.push(made);
  }
  return { accepted, refused };
}

function keeps(filter: McpToolOptions['tools'], info: McpToolInfo): boolean {
  if (filter === undefined) return true;
  return typeof filter === 'function' ? filter(info) === true : filter.includes(info.name);
}

function toolInfo(server: string, name: string, tool: Record<string, unknown>, maxDescription: number): AcceptedTool | string {
  const modelName = sanitizeToolName(`${server}.${name}`);
  if (modelName.length > MAX_MODEL_NAME)
    return `"${server}.${name}" is longer than the ${MAX_MODEL_NAME} characters models accept in a tool name; give the server a shorter name`;
  const inputSchema = tool.inputSchema;
  if (typeof inputSchema !== 'object' || inputSchema === null || Array.isArray(inputSchema)) return 'its inputSchema is not an object';
  if ((inputSchema as { type?: unknown }).type !== 'object') return 'its inputSchema does not describe an object (type "object")';
  // A schema cut short would describe other input, so one too long to send with every call is refused.
  let schemaChars: number;
  try {
    schemaChars = JSON.stringify(inputSchema).length;
  } catch (error) {
    return `its inputSchema cannot be written as JSON (${errorMessage(error)})`;
  }
  if (schemaChars > MAX_INPUT_SCHEMA_CHARS)
    return `its inputSchema is ${schemaChars.toLocaleString('en-US')} characters of JSON, past the ${MAX_INPUT_SCHEMA_CHARS.toLocaleString('en-US')} a tool may send the model`;
  try {
    compileToolInput({ name: `${server}.${name}`, inputSchema });
  } catch (error) {
    return errorMessage(error);
  }
  const description = cut(typeof tool.description === 'string' ? tool.description : '', maxDescription, 'description');
  const info: McpToolInfo = { server, name, description: description.text, inputSchema };
  if (description.from !== undefined) info.descriptionCutFrom = description.from;
  // A title stands in for a missing description, so it is held to the same length.
  const title = typeof tool.title === 'string' ? cut(tool.title, maxDescription, 'title').text : undefined;
  if (title !== undefined) info.title = title;
  const annotations = annotationsOf(tool.annotations);
  if (annotations !== undefined) info.annotations = annotations;
  if (tool.outputSchema === undefined) return { info };
  const outputSchema = tool.outputSchema;
  if (typeof outputSchema !== 'object' || outputSchema === null || Array.isArray(outputSchema)) return 'its outputSchema is not an object';
  try {
    const output = compileJsonSchema(outputSchema, `tool "${server}.${name}" outputSchema`);
    info.outputSchema = outputSchema;
    return { info, output };
  } catch (error) {
    return errorMessage(error);
  }
}

/**
 * `text` cut to `max` characters (never half a surrogate pair) with a note the model reads, so it knows
 * the description is incomplete; `from` is the length the server sent, when it was cut. Cut rather than
 * refused: a tool with a long description still works, and the note says where to look for the rest.
 */
function cut(text: string, max: number, what: string): { text: string; from?: number } {
  if (text.length <= max) return { text };
  let end = max;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  const note = `[The server's ${what} was cut to its first ${end.toLocaleString('en-US')} of ${text.length.toLocaleString('en-US')} characters.]`;
  return { text: `${text.slice(0, end)}\n\n${note}`, from: text.length };
}

// Only the hints of the right type: a server may send anything.
function annotationsOf(raw: unknown): McpToolAnnotations | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const out: McpToolAnnotations = {};
  const given = raw as Record<string, unknown>;
  for (const key of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const) {
    if (typeof given[key] === 'boolean') out[key] = given[key];
  }
  if (typeof given.title === 'string') out.title = given.title;
  return Object.keys(out).length === 0 ? undefined : out;
}

/**
 * Throws `McpToolCollisionError` when two tools (of these servers, in `taken` from others) would reach
 * the model under one name, `a.b_c` and `a_b.c` say. Returns the model names, for the next check.
 */
export function checkCollisions(tools: readonly McpToolInfo[], taken = new Map<string, string>()): Map<string, string> {
  for (const tool of tools) {
    const original = `${tool.server}.${tool.name}`;
    const modelName = sanitizeToolName(original);
    const other = taken.get(modelName);
    if (other !== undefined && other !== original) throw new McpToolCollisionError(other, original, modelName);
    taken.set(modelName, original);
  }
  return taken;
}

/**
 * A listing's tools, read (see `acceptTools`) and checked for collisions. With `taken` (at connect), a
 * collision, within the server or with another server's tools, throws `McpToolCollisionError`; without
 * it (a list that changed later), the colliding tool is refused instead.
 */
export function acceptListing(
  server: string,
  listed: readonly unknown[],
  options: McpToolOptions,
  taken?: ReadonlyMap<string, string>,
): { accepted: AcceptedTool[]; refused: McpRefusedTool[] } {
  const { accepted, refused } = acceptTools(server, listed, options);
  if (taken !== undefined) {
    checkCollisions(
      accepted.map((tool) => tool.info),
      new Map(taken),
    );
  } else {
    // A list that changed later cannot fail a connect that is over: a colliding tool is refused instead.
    const names = new Map<string, string>();
    for (let i = accepted.length - 1; i >= 0; i--) {
      try {
        checkCollisions([accepted[i].info], names);
      } catch (error) {
        refused.push({ server, name: accepted[i].info.name, reason: errorMessage(error) });
        accepted.splice(i, 1);
      }
    }
  }
  return { accepted, refused };
}

/**
 * Whether a call waits for a person. The app's rule wins; without one, a tool is trusted only when it
 * says it is read-only or says it is not destructive (MCP's default for `destructiveHint` is true).
 */
export function needsApproval(info: McpToolInfo, rule: McpToolOptions['needsApproval']): boolean {
  if (typeof rule === 'boolean') return rule;
  if (typeof rule === 'function') {
    const decided = rule(info);
    if (decided !== undefined) return decided === true;
  } else if (rule !== undefined && Object.hasOwn(rule, info.name)) {
    return rule[info.name] === true;
  }
  const hints = info.annotations ?? {};
  if (hints.readOnlyHint === true) return false;
  return hints.destructiveHint !== false;
}

/** The tool as a `ToolDefinition` the conductor runs. */
export function toToolDefinition(info: McpToolInfo, options: McpToolOptions, run: ToolRunner): McpToolDefinition {
  const hints = info.annotations ?? {};
  return {
    name: `${info.server}.${info.name}`,
    description: info.description || info.title || `Tool "${info.name}" of MCP server "${info.server}".`,
    inputSchema: info.inputSchema,
    needsApproval: needsApproval(info, options.needsApproval),
    idempotent: hints.readOnlyHint === true || hints.idempotentHint === true,
    execute: (input: unknown, ctx: ToolContext) => run(info, input, ctx),
    mcp: info,
  };
}
