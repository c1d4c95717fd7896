import type { Turn } from '../runtime/contract/turn.js';
import type { AgentContextPart } from '../parts/types.js';
import type { ModelTool } from '../runtime/contract/model.js';
import { ToolNameCollisionError } from '../runtime/tools/names.js';
import { definitionTokens } from '../tools/lazy-toolset.js';
import type { ContextManager, ContextManagerOptions, HandledCall, PreparedContext, SkippedSelection, SourceEvent } from './types.js';
import { ContextInputError, ContextSourceError } from './errors.js';
import { checkBudget, checkEvent, checkHistory, checkSources, checkStrings, checkTools, checkTurn } from './checks.js';

type ToolList = { tools: ModelTool[] | null; nameMap: Map<string, string> };

/**
 * Puts memory recall, lazy tool loading and history compaction under one token budget. The manager
 * holds no per-turn state: a source's own state (loaded tools) lives as long as the source, so use one
 * manager per conversation.
 */
export function createContextManager(opts: ContextManagerOptions): ContextManager {
  if (typeof opts !== 'object' || opts === null) throw new ContextInputError('createContextManager needs { budget, sources }.');
  const budget = checkBudget(opts.budget);
  const sources = checkSources(opts.sources);
  const history = checkHistory(opts.history);
  const limit = budget.maxTokens - budget.reserve;

  const count = (text: string, what: string): number => {
    const tokens = budget.count(text);
    if (typeof tokens !== 'number' || !Number.isFinite(tokens) || tokens < 0) {
      throw new ContextSourceError(`budget.count returned ${String(tokens)} for ${what}; it must return a finite number >= 0.`);
    }
    return tokens;
  };

  // Asked afresh at prepare and after every handled call, because a handled call (a search) can load tools.
  const collectTools = (): ToolList => {
    const nameMap = new Map<string, string>();
    const addName = (sanitized: string, original: string) => {
      const existing = nameMap.get(sanitized);
      if (existing !== undefined && existing !== original) throw new ToolNameCollisionError(existing, original, sanitized);
      nameMap.set(sanitized, original);
    };
    let tools: ModelTool[] | null = null;
    const taken = new Set<string>();
    for (const source of sources) {
      const map = source.nameMap?.();
      if (map !== undefined) for (const [sanitized, original] of map) addName(sanitized, original);
      const list = source.tools?.();
      if (list === undefined) continue;
      checkTools(list, source.name);
      if (list.length === 0) continue;
      tools ??= [];
      for (const tool of list) {
        if (taken.has(tool.name))
          throw new ToolNameCollisionError(nameMap.get(tool.name) ?? tool.name, map?.get(tool.name) ?? tool.name, tool.name);
        taken.add(tool.name);
        tools.push(tool);
      }
    }
    return { tools, nameMap };
  };

  const toPart = (source: string, event: SourceEvent): AgentContextPart => {
    const part: AgentContextPart = { type: 'context', source, op: event.op };
    if (event.records !== undefined) part.records = event.records;
    if (event.tools !== undefined) part.tools = event.tools;
    return part;
  };

  return {
    budget,

    async compact(messages: Turn[]) {
      if (!Array.isArray(messages)) throw new ContextInputError('compact takes the array of messages.');
      if (!history) return messages;
      const compacted = await history.compact(messages, budget);
      if (!Array.isArray(compacted)) throw new ContextSourceError('history.compact must return the array of messages to send.');
      return compacted;
    },

    async prepare(turn): Promise<PreparedContext> {
      checkTurn(turn, false);
      const { tools, nameMap } = collectTools();
      const metaTools = new Set<string>();
      const system: string[] = [];
      let used = count(JSON.stringify(turn.messages), 'the messages') + (turn.system ? count(turn.system, 'turn.system') : 0);

      for (const source of sources) {
        if (source.metaTools) for (const name of checkStrings(source.metaTools(), source.name, 'metaTools')) metaTools.add(name);
        const text = source.system?.(turn);
        if (text === undefined || text === '') continue;
        if (typeof text !== 'string') throw new ContextSourceError(`Source "${source.name}" system() must return a string.`);
        used += count(text, `source "${source.name}" system text`);
        system.push(text);
      }

      const stableCount = system.length;
      const parts: AgentContextPart[] = [];
      const skipped: SkippedSelection[] = [];
      for (const source of sources) {
        if (!source.select) continue;
        const loaded = await source.select(turn, { remaining: Math.max(0, limit - used), count: budget.count });
        if (loaded === null || loaded === undefined) continue;
        checkEvent(loaded, source.name, 'select');
        if (typeof loaded.text !== 'string') throw new ContextSourceError(`Source "${source.name}" select returned no text.`);
        const tokens = count(loaded.text, `source "${source.name}" selection`);
        const { text, ...event } = loaded;
        if (used + tokens > limit) {
          skipped.push({ source: source.name, tokens, ...event });
          parts.push({ ...toPart(source.name, event), op: 'skipped', tokens });
          continue;
        }
        used += tokens;
        if (text !== '') system.push(text);
        parts.push(toPart(source.name, event));
      }

      return {
        system: system.join('\n\n'),
        stableSystem: system.slice(0, stableCount).join('\n\n'),
        selectedSystem: system.slice(stableCount).join('\n\n'),
        tools,
        metaTools: [...metaTools],
        nameMap,
        parts,
        skipped,
        tokens: { used, limit },
      };
    },

    async handle(name, input, turn): Promise<HandledCall | null> {
      if (typeof name !== 'string') throw new ContextInputError('handle takes the tool name the model called.');
      // What loaded tools may still add: their definitions go out with every later model call. Measured
      // once: a source that passes the call on (answers undefined) loaded nothing.
      let toolBudget: { remaining: number; count: (text: string) => number } | undefined;
      for (const source of sources) {
        if (!source.handle) continue;
        if (toolBudget === undefined) {
          const listed = collectTools().tools;
          const inList = listed === null ? 0 : listed.reduce((sum, tool) => sum + definitionTokens(tool, budget.count), 0);
          toolBudget = { remaining: Math.max(0, budget.maxToolTokens - inList), count: budget.count };
        }
        const answer = await source.handle(name, input, turn, toolBudget);
        if (answer === undefined) continue;
        if (typeof answer !== 'object' || answer === null || !('result' in answer)) {
          throw new ContextSourceError(`Source "${source.name}" handle must return { result, event? } or undefined.`);
        }
        const parts = answer.event === undefined ? [] : [toPart(source.name, checkEvent(answer.event, source.name, 'handle'))];
        return { source: source.name, result: answer.result, parts, tools: collectTools().tools };
      }
      return null;
    },

    async commit(turn) {
      checkTurn(turn, true);
      const parts: AgentContextPart[] = [];
      for (const source of sources) {
        const event = await source.commit?.(turn);
        if (event !== null && event !== undefined) parts.push(toPart(source.name, checkEvent(event, source.name, 'commit')));
      }
      return parts;
    },
  };
}
