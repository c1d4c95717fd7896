import { CliUsageError } from '../errors.js';

export type SlashCommand =
  | { name: 'help' | 'exit' | 'sessions' | 'tree' | 'compact' | 'continue' | 'mcp' | 'memory' }
  | { name: 'fork'; arg: string }
  | { name: 'resume' | 'approve' | 'reject' | 'model'; arg: string | null };

const NO_ARG = new Set(['help', 'exit', 'sessions', 'tree', 'compact', 'continue', 'mcp', 'memory']);
const NEEDS_ARG = new Set(['fork']);
const OPTIONAL_ARG = new Set(['resume', 'approve', 'reject', 'model']);

export const SLASH_HELP = [
  '/sessions        list stored sessions',
  '/resume [ID]     switch to a stored session (no ID: pick one; on a terminal with the arrow keys)',
  '/tree            draw this session (on a terminal: move to a node, Enter continues from there)',
  '/fork NODE       continue from an earlier node (an id or unique prefix from /tree)',
  '/compact         condense the history now',
  '/model [P:MODEL] switch the model (no argument: pick one; piped: list them)',
  '/continue        pick up a run that stopped before its end (a crash, a failed call)',
  '/approve [ID]    run a tool call that waits for approval (no ID: the only one waiting;',
  '                 on a terminal the prompt takes y, n, or a: always for that tool here)',
  '/reject [ID]     refuse it; the model is told',
  '/mcp             the MCP servers: state, tools, and the tools loaded so far',
  '/memory          where the memory is and how it recalls (the embedder, or words only)',
  '/help            this list',
  '/exit            leave (Ctrl-D works too; Ctrl-C stops a run, twice leaves)',
];

/** Null when the line is a prompt for the model; a command or a `CliUsageError` when it starts with "/". */
export function parseSlash(line: string): SlashCommand | null {
  const trimmed = line.trim();
  if (!trimmed.startsWith('/')) return null;
  const [word, ...rest] = trimmed.slice(1).split(/\s+/);
  const name = word.toLowerCase();
  if (rest.length > 1) throw new CliUsageError(`/${name} takes at most one argument`);
  const arg = rest[0] ?? null;
  if (NO_ARG.has(name)) {
    if (arg !== null) throw new CliUsageError(`/${name} takes no argument`);
    return { name } as SlashCommand;
  }
  if (NEEDS_ARG.has(name)) {
    if (arg === null) throw new CliUsageError(`/${name} needs an id`);
    return { name, arg } as SlashCommand;
  }
  if (OPTIONAL_ARG.has(name)) return { name, arg } as SlashCommand;
  throw new CliUsageError(`unknown command /${name}; /help lists them`);
}
