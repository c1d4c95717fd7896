import type { OutputGuardrail } from '../contract/guardrail.js';
import { GuardrailDefinitionError } from './errors.js';

/** One entry of a deny-list: a tool call whose argument matches it never runs. */
export type DeniedArgument = {
  /** What is denied: a substring (case-sensitive), or a pattern (`/rm\s+-rf/i`). */
  match: string | RegExp;
  /** The tools it covers, by their own names (`notes.delete`); every tool when absent. */
  tools?: string[];
  /**
   * The argument it covers: a key of the input, or a dotted path into it (`options.target`). Absent,
   * every string and number anywhere in the input is checked (inside arrays and nested objects too).
   */
  path?: string;
  /** Why the entry is there: said in the trip's message. */
  reason?: string;
};

export type DenyToolArgumentsOptions = {
  /** The guardrail's name, as trips report it. Default `deny_tool_arguments`. */
  name?: string;
};

type Rule = { test: (value: string) => boolean; shown: string; tools: ReadonlySet<string> | null; path: string[] | null; reason?: string };

/**
 * An output guardrail that checks every tool call against a deny-list before the call runs (or is
 * offered for approval): a call with an argument matching an entry trips the run, and the tool never
 * runs. Answers pass. The trip's message names the argument and the entry, never the value. Throws
 * `GuardrailDefinitionError` for a list that cannot work.
 */
export function denyToolArguments(denied: DeniedArgument[], options: DenyToolArgumentsOptions = {}): OutputGuardrail {
  if (!Array.isArray(denied) || denied.length === 0)
    throw new GuardrailDefinitionError('denyToolArguments needs a non-empty array of { match, tools?, path?, reason? }.');
  const rules = denied.map(ruleOf);
  const name = options?.name ?? 'deny_tool_arguments';
  if (typeof name !== 'string' || name === '') throw new GuardrailDefinitionError('denyToolArguments: `name` must be a non-empty string.');
  return {
    name,
    execute(args) {
      if (args.stage !== 'tool_call') return { tripwireTriggered: false };
      const { name: tool, input } = args.call;
      for (const rule of rules) {
        if (rule.tools !== null && !rule.tools.has(tool)) continue;
        const found = matching(rule, input);
        if (found === null) continue;
        const where = found === '' ? 'The input' : `Argument "${found}"`;
        return {
          tripwireTriggered: true,
          message: `${where} of ${tool} matches the deny-list entry ${rule.shown}${rule.reason === undefined ? '' : `: ${rule.reason}`}`,
          outputInfo: { tool, argument: found, entry: rule.shown },
        };
      }
      return { tripwireTriggered: false };
    },
  };
}

function ruleOf(entry: DeniedArgument, index: number): Rule {
  const where = `denyToolArguments: entry ${index}`;
  if (typeof entry !== 'object' || entry === null) throw new GuardrailDefinitionError(`${where} is not an object.`);
  const { match, tools, path, reason } = entry;
  let test: Rule['test'];
  let shown: string;
  if (typeof match === 'string' && match !== '') {
    test = (value) => value.includes(match);
    shown = JSON.stringify(match);
  } else if (match instanceof RegExp) {
    // Without `g` and `y`, `test` keeps no position from one value to the next.
    const pattern = new RegExp(match.source, match.flags.replace(/[gy]/g, ''));
    test = (value) => pattern.test(value);
    shown = String(pattern);
  } else throw new GuardrailDefinitionError(`${where} needs \`match\`: a non-empty string or a RegExp.`);
  if (tools !== undefined && !(Array.isArray(tools) && tools.length > 0 && tools.every((tool) => typeof tool === 'string' && tool !== '')))
    throw new GuardrailDefinitionError(`${where}: \`tools\` must be a non-empty array of tool names.`);
  if (path !== undefined && !(typeof path === 'string' && path.split('.').every((key) => key !== '')))
    throw new GuardrailDefinitionError(`${where}: \`path\` must be a key or a dotted path such as "options.target".`);
  if (reason !== undefined && typeof reason !== 'string') throw new GuardrailDefinitionError(`${where}: \`reason\` must be a string.`);
  return { test, shown, tools: tools === undefined ? null : new Set(tools), path: path === undefined ? null : path.split('.'), reason };
}

/** The path of the first value of `input` the rule denies ('' for the input itself), or null. */
function matching(rule: Rule, input: unknown): string | null {
  if (rule.path === null) return firstMatch(input, '', rule.test, new Set());
  let value = input;
  for (const key of rule.path) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, key)) return null;
    value = (value as Record<string, unknown>)[key];
  }
  return firstMatch(value, rule.path.join('.'), rule.test, new Set());
}

function firstMatch(value: unknown, at: string, test: Rule['test'], seen: Set<object>): string | null {
  if (typeof value === 'string' || typeof value === 'number') return test(String(value)) ? at : null;
  if (typeof value !== 'object' || value === null || seen.has(value)) return null;
  seen.add(value);
  for (const [key, inner] of Object.entries(value)) {
    const found = firstMatch(inner, at === '' ? key : `${at}.${key}`, test, seen);
    if (found !== null) return found;
  }
  return null;
}
