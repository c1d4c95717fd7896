import { MemoryInputError, WorkingMemoryConflictError } from '../memory/index.js';
import type { MemoryScope, WorkingMemory, WorkingMemoryStore } from '../memory/index.js';
import { checkWorkingScope, MAX_WORKING_LENGTH } from '../memory/working/index.js';
import { compileSchema, formatIssues } from '../schema/index.js';
import type { ToolDefinition } from '../runtime/contract/index.js';
import type { ContextSource, WorkingMemoryOptions } from './types.js';
import { ContextInputError, WorkingMemoryUpdateError } from './errors.js';

const DEFAULT_NAME = 'working_memory';
const DEFAULT_MAX_CHARS = 4_000;
// A name the tool can carry as it is: sanitized tool names are [a-zA-Z0-9_-], and `update_` takes 7 of 64.
const NAME = /^[A-Za-z0-9_-]{1,50}$/;
// Patches retried when another writer moved the block between the read and the write: each retry
// re-reads, so it only fails if the block changes this often while one call runs.
const PATCH_ATTEMPTS = 5;

/** What `workingMemory` returns: the source for the context manager and the tool for the agent. */
export interface WorkingMemoryParts {
  /** Shows the block, with its version, in every turn's system prompt (and how to update it). */
  source: ContextSource;
  /** `update_<name>` (`update_working_memory` by default): give it to the agent with its other tools. */
  tool: ToolDefinition;
}

type UpdateInput = { patch?: unknown; content?: unknown; version?: number };

/**
 * Working memory for one scope (`{ resource }`: a user; `{ resource, session }`: one thread): a small
 * JSON block kept in `store`, shown to the model every turn with its version, and rewritten by the model
 * through the tool, either with a JSON merge patch (RFC 7386) applied to the block as it is then (retried
 * if another writer got in first) or with a whole new content at the version it was shown. Content that
 * does not match `schema`, or is longer than `maxChars` characters of JSON, is refused: the model gets
 * the reason as the tool's error result and nothing is written.
 */
export function workingMemory(store: WorkingMemoryStore, opts: WorkingMemoryOptions): WorkingMemoryParts {
  if (typeof store?.getWorking !== 'function' || typeof store.setWorking !== 'function') {
    throw new ContextInputError(
      'workingMemory needs a WorkingMemoryStore (createMemoryStore(), openSqliteMemoryStore(), PostgresMemoryStore: an object with getWorking and setWorking).',
    );
  }
  if (typeof opts !== 'object' || opts === null)
    throw new ContextInputError('workingMemory needs options: { scope, schema?, maxChars?, name? }.');
  const scope = checkScopeOption(opts.scope);
  const name = opts.name ?? DEFAULT_NAME;
  if (typeof name !== 'string' || !NAME.test(name))
    throw new ContextInputError(`name must be 1-50 letters, digits, _ or -, got ${JSON.stringify(name)}.`);
  const maxChars = opts.maxChars ?? DEFAULT_MAX_CHARS;
  if (typeof maxChars !== 'number' || !Number.isSafeInteger(maxChars) || maxChars < 1 || maxChars > MAX_WORKING_LENGTH)
    throw new ContextInputError(`maxChars must be a whole number from 1 to ${MAX_WORKING_LENGTH}, got ${JSON.stringify(maxChars)}.`);
  const schema = opts.schema === undefined ? undefined : compileSchema(opts.schema, `workingMemory "${name}" schema`);
  const toolName = `update_${name}`;

  const instructions = [
    `Working memory "${name}" is a small JSON block kept for you across turns; it is shown below with its version.`,
    `When you learn something worth keeping there, or something in it stops being true, call ${toolName}:`,
    '{ "patch": ... } merges a JSON merge patch (RFC 7386) into the block as it is (a key set to null is removed);',
    '{ "content": ..., "version": N } replaces the whole block at the version shown.',
    `The block holds at most ${maxChars} characters of JSON.`,
    ...(schema === undefined ? [] : [`Its content must match this JSON Schema: ${JSON.stringify(schema.jsonSchema)}`]),
  ].join(' ');

  const check = async (content: unknown): Promise<string> => {
    const text = JSON.stringify(content);
    if (text === undefined) throw new WorkingMemoryUpdateError('input', 'The new content is not a JSON value; nothing was written.');
    if (text.length > maxChars)
      throw new WorkingMemoryUpdateError(
        'too_long',
        `The block would be ${text.length} characters of JSON; it holds at most ${maxChars}. Nothing was written: keep only what still matters (a patch setting a key to null removes it).`,
      );
    if (schema !== undefined) {
      const checked = await schema.check(content);
      if (!checked.ok)
        throw new WorkingMemoryUpdateError(
          'schema',
          `The block would not match its schema; nothing was written. Fix these and call ${toolName} again:\n${formatIssues(checked.issues)}`,
          { issues: checked.issues },
        );
    }
    return text;
  };

  // The store's own refusal of content (a NUL character, say) is the model's to fix, like the checks above.
  const write = async (content: unknown, expectedVersion: number): Promise<WorkingMemory> => {
    try {
      return await store.setWorking(scope, content, { expectedVersion });
    } catch (error) {
      if (MemoryInputError.isInstance(error))
        throw new WorkingMemoryUpdateError('input', `${error.message} Nothing was written.`, { cause: error });
      throw error;
    }
  };

  const replace = async (content: unknown, version: number): Promise<WorkingMemory> => {
    await check(content);
    try {
      return await write(content, version);
    } catch (error) {
      if (!WorkingMemoryConflictError.isInstance(error)) throw error;
      const now = await store.getWorking(scope);
      throw new WorkingMemoryUpdateError(
        'conflict',
        `The block changed since version ${version} was shown: it is ${now === undefined ? 'empty (version 0)' : `at version ${now.version} and holds ${JSON.stringify(now.content)}`}. Nothing was written; send a patch, or the whole content again at version ${now?.version ?? 0}.`,
        { currentVersion: now?.version ?? 0, cause: error },
      );
    }
  };

  const patch = async (change: unknown): Promise<WorkingMemory> => {
    for (let attempt = 1; ; attempt++) {
      const current = await store.getWorking(scope);
      const next = mergePatch(current?.content, change);
      await check(next);
      try {
        return await write(next, current?.version ?? 0);
      } catch (error) {
        if (!WorkingMemoryConflictError.isInstance(error)) throw error;
        if (attempt >= PATCH_ATTEMPTS)
          throw new WorkingMemoryUpdateError(
            'conflict',
            `The block kept changing while this patch was applied (${PATCH_ATTEMPTS} tries); nothing was written. Call ${toolName} again.`,
            { currentVersion: error.currentVersion, cause: error },
          );
      }
    }
  };

  const tool: ToolDefinition = {
    name: toolName,
    description:
      `Updates working memory "${name}", the block shown in the system prompt. Send either { "patch" } (a JSON merge patch, RFC 7386, ` +
      'applied to the block as it is now: objects merge, a key set to null is removed, anything else replaces) or { "content", "version" } ' +
      '(the whole new block, at the version shown). Returns the block as stored and its new version.',
    inputSchema: {
      type: 'object',
      properties: {
        patch: { description: 'A JSON merge patch (RFC 7386) to apply to the current block.' },
        content: { description: 'The whole new block, replacing the current one; needs "version".' },
        version: { type: 'integer', minimum: 0, description: 'The version shown with the block (0 when empty); only with "content".' },
      },
      additionalProperties: false,
    },
    async execute(input: UpdateInput) {
      const hasPatch = input.patch !== undefined;
      const hasContent = input.content !== undefined;
      if (hasPatch === hasContent)
        throw new WorkingMemoryUpdateError(
          'input',
          'Send either { "patch": ... } to merge into the block, or { "content": ..., "version": N } to replace it; nothing was written.',
        );
      if (hasPatch && input.version !== undefined)
        throw new WorkingMemoryUpdateError(
          'input',
          'A patch applies to the block as it is now and takes no "version"; send { "patch" } alone, or { "content", "version" } to replace the block at a version. Nothing was written.',
        );
      if (hasContent && input.version === undefined)
        throw new WorkingMemoryUpdateError(
          'input',
          '"content" replaces the whole block, so it needs the "version" shown with the block (0 when it is empty); nothing was written.',
        );
      const written = hasPatch ? await patch(input.patch) : await replace(input.content, input.version!);
      return { version: written.version, content: written.content };
    },
  };

  const source: ContextSource = {
    name,
    system: () => instructions,
    async select() {
      const block = await store.getWorking(scope);
      const shown =
        block === undefined
          ? `Working memory "${name}" (version 0): empty.`
          : `Working memory "${name}" (version ${block.version}):\n${JSON.stringify(block.content)}`;
      return { op: 'recalled', text: shown };
    },
  };

  return { source, tool };
}

function checkScopeOption(scope: unknown): MemoryScope {
  if (scope === undefined)
    throw new ContextInputError(
      'workingMemory needs a scope: { resource } for a user, { resource, session } for one thread, {} for a block shared by all.',
    );
  try {
    return checkWorkingScope(scope);
  } catch (error) {
    if (MemoryInputError.isInstance(error)) throw new ContextInputError(error.message);
    throw error;
  }
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * RFC 7386: an object patch merges into the target (a target that is not an object counts as `{}`),
 * key by key, `null` removing a key; any other patch replaces the target. Built through a Map, so a
 * `__proto__` key is data like any other.
 */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const merged = new Map<string, unknown>(isObject(target) ? Object.entries(target) : []);
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) merged.delete(key);
    else merged.set(key, mergePatch(merged.get(key), value));
  }
  return Object.fromEntries(merged);
}
