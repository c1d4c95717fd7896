import type { DemoToolKey } from './vocabulary.js';

/** What a prompt asks the demo model for: a tool call, or one of its scripted answers. */
export type Intent =
  | { kind: 'tool'; tool: DemoToolKey; input: Record<string, string> }
  /** "ask the researcher to …": call the tool named for each agent (a sub-agent), all at once. */
  | { kind: 'delegate'; tasks: Array<{ agent: string; task: string }> }
  /** "hand me over to the writer": call its `transfer_to_writer` tool. */
  | { kind: 'handoff'; agent: string }
  /** "search tools for echo": call `search_tools` (a lazy catalog's, MCP's) with that query. */
  | { kind: 'search'; query: string }
  /** "call echo with hi": call the tool of that name (or ending `_echo`, as an MCP server's), `hi` as its input. */
  | { kind: 'call'; tool: string; argument: string }
  | { kind: 'long' }
  | { kind: 'help' }
  | { kind: 'chat' };

type Rule = { pattern: RegExp; intent: (m: RegExpMatchArray) => Intent };

const ASK = /^\s*(?:please\s+)?ask\s+(?:the\s+)?([\w.-]+?)\s+to\s+(.+)$/is;

// Order matters: "remember that I read novels" is a memory request, not a read; "run ls" runs, whatever it says;
// "ask the reader to read x" is a task for the reader.
const RULES: Rule[] = [
  {
    pattern: /^\s*(?:please\s+)?(?:search|find)\s+(?:the\s+)?tools?\s+(?:for|about|that)\s+(.+)$/is,
    intent: (m) => ({ kind: 'search', query: unquote(m[1].trim()).replace(/[?.!]+$/, '') }),
  },
  {
    pattern: /^\s*(?:please\s+)?(?:call|use)\s+(?:the\s+)?([\w.-]+?)(?:\s+tool)?\s+with\s+(.+)$/is,
    intent: (m) => ({ kind: 'call', tool: m[1], argument: unquote(m[2].trim()) }),
  },
  { pattern: ASK, intent: (m) => ({ kind: 'delegate', tasks: tasksOf(m.input ?? '') }) },
  {
    pattern:
      /\b(?:hand|pass)\s+(?:me|this|it|the conversation)?\s*(?:over|back)?\s*to\s+(?:the\s+)?([\w.-]+)|\btransfer\s+(?:me\s+)?to\s+(?:the\s+)?([\w.-]+)/i,
    intent: (m) => ({ kind: 'handoff', agent: (m[1] ?? m[2]).replace(/[.]+$/, '') }),
  },
  { pattern: /^\s*(?:please\s+)?run\s+(.+)$/is, intent: (m) => tool('bash', { command: unquote(m[1]) }) },
  {
    pattern: /\breplace\s+(.+?)\s+with\s+(.+?)\s+in\s+(?:the\s+)?(?:file\s+)?(\S+)\s*$/is,
    intent: (m) => tool('edit', { path: cleanPath(m[3]), old_string: unquote(m[1]), new_string: unquote(m[2]) }),
  },
  {
    pattern: /\bwhat do you (?:remember|know|recall)(?:\s+about)?\s*(.*)$|^\s*recall\b\s*(.*)$/is,
    intent: (m) => tool('recall', { query: cleanQuery(m[1] ?? m[2] ?? '') }),
  },
  { pattern: /^\s*(?:please\s+)?remember(?:\s+that)?\s+(.+)$/is, intent: (m) => tool('remember', { fact: cleanFact(m[1]) }) },
  {
    pattern: /\bwrite\s+(.+?)\s+(?:to|into)\s+(?:the\s+)?(?:file\s+)?(\S+)\s*$/is,
    intent: (m) => tool('write', { path: cleanPath(m[2]), content: unquote(m[1]) }),
  },
  {
    pattern:
      /\blist\b(?:\s+(?:the|all))?(?:\s+(?:files|folder|directory|contents|entries))?(?:\s+(?:in|of|under|inside)\s+(?:the\s+)?(?:folder\s+|directory\s+)?(\S+))?/i,
    intent: (m) => tool('list', { path: m[1] ? cleanPath(m[1]) : '.' }),
  },
  { pattern: /\b(?:read|open|show me)\s+(?:the\s+)?(?:file\s+)?(\S+)/i, intent: (m) => tool('read', { path: cleanPath(m[1]) }) },
  {
    pattern: /\bwhat(?:'s| is)? the (?:time|date)\b|\bwhat time\b|\bwhat day\b|\bcurrent (?:time|date)\b|\btoday'?s date\b/i,
    intent: () => tool('time', {}),
  },
  { pattern: /\blong (?:story|answer|reply)\b|\bslow(?:ly)?\b|\btake your time\b/i, intent: () => ({ kind: 'long' }) },
  { pattern: /^\s*(?:help|what can you do)\b/i, intent: () => ({ kind: 'help' }) },
];

/** Picks what to do about a prompt; anything unrecognised is a plain chat answer. */
export function readIntent(prompt: string): Intent {
  for (const rule of RULES) {
    const match = prompt.match(rule.pattern);
    if (match) return rule.intent(match);
  }
  return { kind: 'chat' };
}

/** One task per "ask X to Y" line (or `;`-separated clause): several of them run at once. */
function tasksOf(prompt: string): Array<{ agent: string; task: string }> {
  return prompt
    .split(/\n|;/)
    .map((clause) => clause.match(ASK))
    .filter((m): m is RegExpMatchArray => m !== null)
    .map((m) => ({ agent: m[1], task: m[2].trim() }));
}

function tool(name: DemoToolKey, input: Record<string, string>): Intent {
  return { kind: 'tool', tool: name, input };
}

/** Paths arrive wrapped in prose ("read `package.json`.") or as a terminal's `@path` mention. */
function cleanPath(raw: string): string {
  return raw.replace(/^[`'"(@]+/, '').replace(/[`'")?!.,;:]+$/, '');
}

function unquote(raw: string): string {
  const trimmed = raw.trim();
  const quoted = trimmed.match(/^(["'`])(.*)\1$/s);
  return quoted ? quoted[2] : trimmed;
}

function cleanFact(raw: string): string {
  return raw.trim().replace(/[.!]+$/, '');
}

function cleanQuery(raw: string): string {
  return raw.trim().replace(/[?.!]+$/, '');
}
