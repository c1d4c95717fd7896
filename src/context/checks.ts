import type { Budget, CompletedTurn, ContextHistory, ContextManagerOptions, ContextSource, ContextTurn, SourceEvent } from './types.js';
import type { ModelTool } from '../runtime/contract/model.js';
import { ContextInputError, ContextSourceError } from './errors.js';

const OPS = new Set(['recalled', 'loaded', 'saved']);

export function checkBudget(budget: ContextManagerOptions['budget'] | undefined): Required<Budget> {
  if (typeof budget !== 'object' || budget === null)
    throw new ContextInputError('budget must be an object: { maxTokens, reserve?, count }.');
  const { maxTokens, count } = budget;
  const reserve = budget.reserve ?? 0;
  if (typeof maxTokens !== 'number' || !Number.isFinite(maxTokens) || maxTokens <= 0) {
    throw new ContextInputError(`budget.maxTokens must be a positive number, got ${String(maxTokens)}.`);
  }
  if (typeof reserve !== 'number' || !Number.isFinite(reserve) || reserve < 0 || reserve >= maxTokens) {
    throw new ContextInputError(
      `budget.reserve must be a number from 0 up to (not including) maxTokens ${maxTokens}, got ${String(reserve)}.`,
    );
  }
  if (typeof count !== 'function')
    throw new ContextInputError('budget.count must be a function (text) => tokens; core ships no tokenizer.');
  const maxToolTokens = budget.maxToolTokens ?? Math.floor((maxTokens - reserve) / 2);
  if (typeof maxToolTokens !== 'number' || !Number.isFinite(maxToolTokens) || maxToolTokens < 0 || maxToolTokens > maxTokens - reserve) {
    throw new ContextInputError(
      `budget.maxToolTokens must be a number from 0 up to maxTokens - reserve (${maxTokens - reserve}), got ${String(budget.maxToolTokens)}.`,
    );
  }
  return { maxTokens, reserve, count, maxToolTokens };
}

export function checkSources(sources: unknown): ContextSource[] {
  if (!Array.isArray(sources)) throw new ContextInputError('sources must be an array of context sources.');
  const names = new Set<string>();
  sources.forEach((source: ContextSource | null, i) => {
    if (typeof source !== 'object' || source === null) throw new ContextInputError(`sources[${i}] is not a context source.`);
    if (typeof source.name !== 'string' || source.name === '') throw new ContextInputError(`sources[${i}] has no name.`);
    if (names.has(source.name)) throw new ContextInputError(`Two sources are named "${source.name}"; parts could not tell them apart.`);
    names.add(source.name);
  });
  return [...sources];
}

export function checkHistory(history: unknown): ContextHistory | undefined {
  if (history === undefined) return undefined;
  if (typeof (history as ContextHistory | null)?.compact !== 'function')
    throw new ContextInputError('history must be { compact(messages, budget) }.');
  return history as ContextHistory;
}

export function checkTurn(turn: ContextTurn, needsText: false): ContextTurn;
export function checkTurn(turn: CompletedTurn, needsText: true): CompletedTurn;
export function checkTurn(turn: ContextTurn | CompletedTurn, needsText: boolean): ContextTurn {
  if (typeof turn !== 'object' || turn === null) throw new ContextInputError('A turn must be an object: { prompt, messages }.');
  if (typeof turn.prompt !== 'string') throw new ContextInputError('turn.prompt must be a string.');
  if (!Array.isArray(turn.messages)) throw new ContextInputError('turn.messages must be an array of turns.');
  if (turn.system !== undefined && typeof turn.system !== 'string') throw new ContextInputError('turn.system must be a string when given.');
  if (needsText && typeof (turn as CompletedTurn).text !== 'string')
    throw new ContextInputError('commit needs turn.text: the final assistant text.');
  return turn;
}

export function checkEvent(event: SourceEvent, source: string, method: string): SourceEvent {
  if (typeof event !== 'object' || event === null || !OPS.has(event.op)) {
    throw new ContextSourceError(
      `Source "${source}" ${method} returned ${JSON.stringify(event)}; expected { op: 'recalled' | 'loaded' | 'saved', … }.`,
    );
  }
  return event;
}

export function checkStrings(value: unknown, source: string, method: string): string[] {
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) {
    throw new ContextSourceError(`Source "${source}" ${method}() must return an array of strings.`);
  }
  return value;
}

/**
 * A source's tool list must be `ModelTool`s, the shape every model invoker reads: a tool in another
 * shape (Anthropic's `input_schema`, say) would reach the model without its schema.
 */
export function checkTools(list: unknown, source: string): asserts list is ModelTool[] {
  if (!Array.isArray(list)) throw new ContextSourceError(`Source "${source}" tools() must return an array of tools.`);
  list.forEach((tool: Partial<ModelTool> | null, i) => {
    const what = `Source "${source}" tools()[${i}]`;
    if (typeof tool !== 'object' || tool === null || typeof tool.name !== 'string' || tool.name === '') {
      throw new ContextSourceError(`${what} is not a tool: expected { name, description, inputSchema }.`);
    }
    if (typeof tool.description !== 'string') throw new ContextSourceError(`${what} ("${tool.name}") has no string description.`);
    if (typeof tool.inputSchema !== 'object' || tool.inputSchema === null) {
      const hint = 'input_schema' in tool ? " (it has `input_schema`: sources speak the runtime's `ModelTool` shape)" : '';
      throw new ContextSourceError(`${what} ("${tool.name}") has no inputSchema object${hint}.`);
    }
  });
}
