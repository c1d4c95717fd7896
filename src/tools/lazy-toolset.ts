import { IndusagiError } from '../errors/index.js';
import { Bm25Index, splitIdentifier, tokenize } from '../search/index.js';
import { buildToolNameMap, ToolNameCollisionError } from '../runtime/tools/names.js';
import { UnknownToolError } from './toolset.js';
import { DuplicateToolError } from '../runtime/tools/index.js';
import type { ModelTool } from '../runtime/contract/model.js';
import { compileJsonSchema, compileSchema, isStandardSchema } from '../schema/index.js';
import { ToolInputError } from '../runtime/tools/tool-input.js';

/** The meta-tool's name, as the model sees it. */
export const SEARCH_TOOLS = 'search_tools';

export type LazyToolsetOptions = {
  /** Original names of tools that are always callable and never searched. */
  pin?: string[];
  /** Most tools one search loads. Default 5. */
  k?: number;
  /** Most names listed in the menu; the rest are counted. Default 50. */
  menuSize?: number;
};

export type FoundTool = { name: string; description: string };

/** A tool a search matched but left unloaded: its definition (`tokens`, as the budget counts) did not fit. */
export type SkippedTool = { name: string; tokens: number };

/**
 * What `search_tools` returns to the model. `name` is the callable (sanitized) name. `skipped` (only
 * when some were) lists matches left unloaded for the budget.
 */
export type SearchToolsResult = { found: FoundTool[]; note: string; skipped?: SkippedTool[] };

/**
 * How much more a search may load: `remaining` tokens of tool definitions (each one's JSON, as the
 * model is sent it, measured by `count`). A context manager hands it to its sources' `handle`.
 */
export type ToolBudget = { remaining: number; count: (text: string) => number };

export interface LazyToolset {
  /** The tools for the next model call (`ModelTool`s, names sanitized): `search_tools`, then pinned, then loaded ones. */
  tools(): ModelTool[];
  /** The system-prompt text: how to load tools and a short menu of the unpinned ones. Never changes. */
  readonly menu: string;
  /** Sanitized -> original, for every wrapped tool (loaded or not). */
  readonly nameMap: ReadonlyMap<string, string>;
  /** Original names of the pinned tools. */
  readonly pinned: readonly string[];
  /** Original names of the tools searches have loaded, in load order. */
  loaded(): string[];
  /** Whether `name` (as the model called it) is the `search_tools` meta-tool. */
  isMetaTool(name: string): boolean;
  /**
   * Searches names and descriptions, loads the best unloaded, unpinned matches and reports them. With a
   * `budget`, a match whose definition would take more than is left of it is not loaded, and is listed
   * in `skipped` (the note tells the model).
   */
  search(query: string, budget?: ToolBudget): SearchToolsResult;
  /** Runs a model's `search_tools` call; input that is not `{ query: string }` throws a `ToolInputError` (a `ToolError`) for the model. */
  handle(input: unknown, budget?: ToolBudget): SearchToolsResult;
  /** Unloads every tool searches loaded (pinned tools stay). */
  reset(): void;
}

/** A tool spec or option `lazyToolset` cannot use. */
export class LazyToolsetInputError extends IndusagiError {
  static override readonly errorName: string = 'LazyToolsetInputError';
  constructor(message: string) {
    super('lazy_toolset_input', message);
  }
}

const SEARCH_TOOLS_SPEC: ModelTool = Object.freeze({
  name: SEARCH_TOOLS,
  description:
    'Find tools by keyword and load them. Search with a few words about the task or a tool name from the menu; the tools found can be called from your next step.',
  inputSchema: {
    type: 'object',
    properties: { query: { type: 'string', description: 'Keywords describing the tool you need.' } },
    required: ['query'],
  },
});

// `search_tools` input is checked like any tool's, so the model reads the same kind of error everywhere.
const searchToolsIssues = compileJsonSchema(SEARCH_TOOLS_SPEC.inputSchema, `${SEARCH_TOOLS} inputSchema`);

// A name says what a tool is for more densely than its description, so its terms count twice.
const NAME_WEIGHT = 2;

/** The index terms of one tool: its description's, then its name's (split at identifier humps) NAME_WEIGHT times. */
export function toolTerms(spec: { name: string; description: string }): string[] {
  const nameTerms = tokenize(`${spec.name} ${splitIdentifier(spec.name)}`);
  const terms = tokenize(spec.description);
  for (let w = 0; w < NAME_WEIGHT; w++) terms.push(...nameTerms);
  return terms;
}

/**
 * Keeps a large toolset's schemas out of context: the model gets `search_tools`, the pinned tools and
 * a menu of the rest, and each search makes its best matches callable on the next model call. Search
 * ranks with the same BM25 index as memory, over name and description.
 *
 * `tools` is a formatted toolset (`toToolset(...).tools` or `mergeToolsets(...).tools`, whose schemas
 * are `input_schema`) or tools in the runtime's shape (`ModelTool`s, or `ToolDefinition`s, whose
 * Standard Schemas give their JSON Schema); `tools()` hands out `ModelTool`s either way.
 */
export function lazyToolset(tools: unknown[], opts?: LazyToolsetOptions): LazyToolset {
  const specs = checkSpecs(tools);
  const { pin, k, menuSize } = checkOptions(opts, specs);
  const names = buildToolNameMap(specs.map((spec) => spec.name));
  const shadowing = names.toOriginal.get(SEARCH_TOOLS);
  if (shadowing !== undefined) throw new ToolNameCollisionError(shadowing, `${SEARCH_TOOLS} (the lazy toolset's meta-tool)`, SEARCH_TOOLS);
  // Frozen because every `tools()` call hands out the same objects.
  const forModel = specs.map((spec) => Object.freeze({ ...spec, name: names.toModel.get(spec.name)! }));

  const index = new Bm25Index();
  const toolOfDoc: number[] = [];
  const deferred: number[] = [];
  specs.forEach((spec, i) => {
    if (pin.has(spec.name)) return;
    toolOfDoc[index.add(toolTerms(spec))] = i;
    deferred.push(i);
  });
  const pinnedTools = specs.flatMap((spec, i) => (pin.has(spec.name) ? [i] : []));
  const loaded = new Set<number>();
  const notLoaded = (doc: number) => !loaded.has(toolOfDoc[doc]);

  const search = (query: string, budget?: ToolBudget): SearchToolsResult => {
    if (typeof query !== 'string') throw new LazyToolsetInputError(`search query must be a string, got ${typeof query}.`);
    const hits = index.search(tokenize(query), { k, accept: notLoaded });
    const found: FoundTool[] = [];
    const skipped: SkippedTool[] = [];
    let left = budget?.remaining ?? Infinity;
    for (const { doc } of hits) {
      const i = toolOfDoc[doc];
      if (budget !== undefined) {
        const tokens = definitionTokens(forModel[i], budget.count);
        // Loaded, a definition goes out with every later model call: one that does not fit stays unloaded.
        if (tokens > left) {
          skipped.push({ name: forModel[i].name, tokens });
          continue;
        }
        left -= tokens;
      }
      loaded.add(i);
      found.push({ name: forModel[i].name, description: forModel[i].description });
    }
    const note =
      found.length === 0 && skipped.length > 0
        ? skippedNote(skipped, budget).trim()
        : noteFor(query, found, deferred.length - loaded.size) + skippedNote(skipped, budget);
    return skipped.length === 0 ? { found, note } : { found, note, skipped };
  };

  return {
    tools: () => [SEARCH_TOOLS_SPEC, ...pinnedTools.map((i) => forModel[i]), ...[...loaded].map((i) => forModel[i])],
    menu: menuFor(
      deferred.map((i) => forModel[i].name),
      menuSize,
    ),
    nameMap: names.toOriginal,
    pinned: pinnedTools.map((i) => specs[i].name),
    loaded: () => [...loaded].map((i) => specs[i].name),
    isMetaTool: (name) => name === SEARCH_TOOLS,
    search,
    handle(input, budget) {
      const issues = searchToolsIssues(input);
      if (issues.length > 0) throw new ToolInputError(SEARCH_TOOLS, issues);
      return search((input as { query: string }).query, budget);
    },
    reset: () => loaded.clear(),
  };
}

/** What one tool's definition costs the context, as `count` measures its JSON. */
export function definitionTokens(tool: ModelTool, count: (text: string) => number): number {
  const tokens = count(JSON.stringify({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema }));
  if (typeof tokens !== 'number' || !Number.isFinite(tokens) || tokens < 0)
    throw new LazyToolsetInputError(`the budget's count returned ${String(tokens)}; it must return a finite number >= 0.`);
  return tokens;
}

function skippedNote(skipped: SkippedTool[], budget: ToolBudget | undefined): string {
  if (skipped.length === 0 || budget === undefined) return '';
  const listed = skipped.map((tool) => `${tool.name} (${tool.tokens.toLocaleString('en-US')} tokens)`).join(', ');
  return ` Not loaded, as their definitions would not fit the ${Math.max(0, budget.remaining).toLocaleString('en-US')} tokens left for tools in the context: ${listed}.`;
}

function noteFor(query: string, found: FoundTool[], remaining: number): string {
  if (found.length > 0) {
    return `Loaded ${found.map((tool) => tool.name).join(', ')}; call ${found.length === 1 ? 'it' : 'them'} from your next step.`;
  }
  if (remaining === 0) return 'Every tool is already loaded; call it directly.';
  return `No unloaded tool matched "${query}". Try other keywords or a name from the menu.`;
}

function menuFor(names: string[], menuSize: number): string {
  if (names.length === 0) return '';
  const shown = names.slice(0, menuSize);
  const more = names.length - shown.length;
  return [
    `More tools are available but not loaded. Call ${SEARCH_TOOLS} with a few keywords (or a name below) to load them.`,
    `Tools: ${shown.join(', ')}${more > 0 ? `, and ${more} more` : ''}.`,
  ].join('\n');
}

function checkSpecs(tools: unknown): ModelTool[] {
  if (!Array.isArray(tools))
    throw new LazyToolsetInputError('lazyToolset takes an array of tools ({ name, description, inputSchema } or toToolset(...).tools).');
  const seen = new Set<string>();
  return tools.map((tool, i) => {
    const spec = tool as { name?: unknown; description?: unknown; inputSchema?: unknown; input_schema?: unknown } | null;
    if (typeof spec !== 'object' || spec === null) throw new LazyToolsetInputError(`tools[${i}] is not a tool.`);
    if (typeof spec.name !== 'string' || spec.name === '') throw new LazyToolsetInputError(`tools[${i}].name must be a non-empty string.`);
    if (typeof spec.description !== 'string') throw new LazyToolsetInputError(`tools[${i}] ("${spec.name}") has no string description.`);
    if (seen.has(spec.name)) throw new DuplicateToolError(spec.name);
    seen.add(spec.name);
    return { name: spec.name, description: spec.description, inputSchema: schemaOf(spec as Record<string, unknown>, i) };
  });
}

/** The JSON Schema of tool `i`, from whichever of the two shapes it has; both, or neither, is a mistake worth naming. */
function schemaOf(spec: Record<string, unknown>, i: number): object {
  const { inputSchema, input_schema: formatted } = spec;
  const what = `tools[${i}] ("${String(spec.name)}")`;
  if (inputSchema !== undefined && formatted !== undefined)
    throw new LazyToolsetInputError(`${what} has both inputSchema and input_schema; give one.`);
  const schema = inputSchema ?? formatted;
  if (typeof schema !== 'object' || schema === null)
    throw new LazyToolsetInputError(`${what} has no inputSchema (or input_schema) object.`);
  // A `ToolDefinition`'s Standard Schema (zod…) is not what the model reads: its JSON Schema is.
  if (isStandardSchema(schema)) return compileSchema(schema, `${what} inputSchema`, spec.inputJsonSchema as object | undefined).jsonSchema;
  return schema;
}

function checkOptions(opts: LazyToolsetOptions | undefined, specs: ModelTool[]) {
  const k = opts?.k ?? 5;
  if (!Number.isInteger(k) || k < 1) throw new LazyToolsetInputError(`k must be a whole number >= 1, got ${String(k)}.`);
  const menuSize = opts?.menuSize ?? 50;
  if (!Number.isInteger(menuSize) || menuSize < 0)
    throw new LazyToolsetInputError(`menuSize must be a whole number >= 0, got ${String(menuSize)}.`);
  const pinList = opts?.pin ?? [];
  if (!Array.isArray(pinList)) throw new LazyToolsetInputError('pin must be an array of tool names.');
  const known = new Set(specs.map((spec) => spec.name));
  for (const name of pinList) if (!known.has(name)) throw new UnknownToolError(name);
  return { pin: new Set(pinList), k, menuSize };
}
