import { SLASH_HELP } from './chat/slash.js';
import { DEFAULT_MEMORY, DEFAULT_STORE } from './args.js';
import { CliUsageError } from './errors.js';
import { DEFAULT_DATA, DEFAULT_PORT } from './serve/args.js';
import { EXIT_CODES } from './exit-codes.js';

export const USAGE = `indusagi: a terminal agent over Claude or OpenAI's models

usage:
  indusagi chat [--session ID | --continue] [--model M] [--store DIR|URL] [--memory FILE] [--embedder E] [--mcp FILE]
  indusagi -p PROMPT [--json] [--force] [--session ID | --continue] [--model M] [--store DIR|URL] [--memory FILE]
  indusagi sessions ls [--store DIR|URL]
  indusagi sessions show ID [--store DIR|URL]
  indusagi sessions tree ID [--store DIR|URL]
  indusagi sessions export ID [--format md|json] [--store DIR|URL]
  indusagi sessions rm ID [--store DIR|URL]
  indusagi memory ls [--all] [--memory FILE|URL] [--resource R] [--session S]
  indusagi memory rm ID [--memory FILE|URL] [--resource R] [--session S]
  indusagi memory edit ID TEXT [--memory FILE|URL] [--resource R] [--session S]
  indusagi db migrate [--database URL] [--schema NAME]
  indusagi mcp serve [--port N [--host H] [--token-file F]] [--allow-bash] [--memory FILE|URL]
  indusagi trust [DIR] [--revoke] | indusagi trust --list
  indusagi serve [--port N] [--host H] [--data DIR | --database URL [--worker]] [--tokens FILE] [--agent FILE] [--model M]
  indusagi worker --database URL [--agent FILE] [--model M] [--concurrency N]
  indusagi eval FILE [--model M] [--record F | --replay F] [--concurrency N] [--json] [--html F] [--baseline F] [--journal F] [--store DIR|URL]
  indusagi help [COMMAND] | COMMAND --help | --version

Sessions live in --store (default ./${DEFAULT_STORE}), remembered facts in --memory
(default ./${DEFAULT_MEMORY}); either can be a postgres:// URL once "indusagi db migrate" set
it up (db migrate reads INDUSAGI_DATABASE_URL without --database). The file tools reach only
the current folder.
--model names the provider and model: anthropic:MODEL or openai:MODEL (a bare MODEL
is Anthropic's). Claude needs ANTHROPIC_API_KEY (ANTHROPIC_BASE_URL for another
Anthropic-compatible endpoint), OpenAI OPENAI_API_KEY (and OPENAI_BASE_URL); without
--model the chat uses INDUSAGI_MODEL (same forms), else whichever key is set,
Anthropic's first. --model demo (or INDUSAGI_MODEL=demo) is the offline demo model
whatever keys are set; without the key it needs, a chat talks to the demo model too.

in a chat:
${SLASH_HELP.map((line) => `  ${line}`).join('\n')}
`;

const EXIT_LINES = EXIT_CODES.map(([code, meaning]) => `  ${String(code).padEnd(4)}${meaning}`).join('\n');

const CHAT = `usage: indusagi chat [options]        a conversation on the terminal (or piped, one prompt per line)
       indusagi -p PROMPT [options]     one prompt: print the answer and exit

options:
  --session ID     work on session ID; a new session is made under that name if none has it
  -c, --continue   work on the most recently changed session
  --model M        provider:model (anthropic:… or openai:…; a bare id is Anthropic's), or demo
  --store DIR|URL  where sessions live: a folder (default ./${DEFAULT_STORE}) or a postgres:// URL
  --memory F|URL   the remembered facts: a file (default ./${DEFAULT_MEMORY}) or a postgres:// URL
  --embedder E     how memory recalls: auto (default: by meaning too when the offline embedder's
                   packages are installed, else words only; /memory says which), offline, none
  --mcp FILE       MCP servers to use, in the mcpServers format of Claude Desktop and Claude Code
                   (repeatable); a .mcp.json in the folder is used too once you allow it
  -p, --print P    run the prompt P ("-": read it from stdin), print the final answer, exit
  --json           with -p: print every run event as one JSON line instead of the answer
  --force          with -p: append to a session whose latest turn could not be read (its live
                   leaf fell back to an older node); without it -p refuses, exit 1
  -h, --help       this text

On a terminal the editor stays at the bottom with a status line under it (model, session,
context used of the window, the session's tokens and estimated cost), redrawn in place as
runs stream above. Enter sends, Alt-Enter or Ctrl-J starts a new line, a paste is one prompt
whatever lines it holds, Up/Down recall earlier prompts of this folder, @ completes a path,
Ctrl-O shows tool results whole. A call that needs approval asks: y yes, n no, a always for
that tool in this session (rules in your ~/.config/indusagi/settings.json, and in a folder
you trusted its .indusagi/settings.json, approve some without asking; see "indusagi help trust").
/resume, /tree and /model open pickers for the arrow keys. Markdown is rendered, code
highlighted and wrapped to the terminal width; piped output, or NO_COLOR set, stays plain.

exit codes:
${EXIT_LINES}

in a chat:
${SLASH_HELP.map((line) => `  ${line}`).join('\n')}
`;

const SERVE = `usage: indusagi serve [options]                  the agent server: HTTP API, SSE streams, useChat (docs/server.md)
       indusagi worker --database URL [options]   executes the runs of the servers on that database

options:
  --port N          port (default PORT, else ${DEFAULT_PORT}; 0: any free port)
  --host H          the interface to listen on (default 127.0.0.1; 0.0.0.0 for every one)
  --data DIR        one machine: threads, runs and sessions live here (default ./${DEFAULT_DATA})
  --database URL    many machines: a postgres:// URL (or INDUSAGI_DATABASE_URL), set up once with
                    "indusagi db migrate"; servers then serve and workers execute
  --schema NAME     the database schema (default indusagi)
  --worker          serve --database: execute runs in this process too
  --tokens FILE     serve: a JSON array of { "token", "tenant", "user", "readOnly"? }; else
                    INDUSAGI_SERVER_TOKEN; on one machine without either, a random token is printed
  --agent FILE      a module whose default export builds each run's agent (default: the chat's
                    file, clock and memory tools, no bash; files only in --workspace DIR/<tenant>,
                    default ./.indusagi/workspace, kept apart from --data and --tokens)
  --model M         as for chat: provider:model with its key in the environment; the offline demo
                    model without one
  --embedder E      serve --data: how each tenant's memory recalls, as for chat (auto, offline, none)
  --concurrency N   runs executed at once (default 4)
  --lease-ms N      a worker silent this long is dead and its runs are taken over (default 30000)

SIGINT or SIGTERM stops taking runs, waits up to 30 s for those under way, and exits 0.
`;

const EVAL = `usage: indusagi eval FILE [options]     run an evaluation module (docs/evals.md)

FILE default-exports defineEval(({ model, modelId, store }) => ({ agent, data, scorers })) of
indusagi/evals; each case runs in its own session of --store. A module whose evaluation runs
itself ({ run }: memory recall on LoCoMo, dist/evals/locomo-recall.eval.js) takes --json, --html
and --baseline only.

options:
  --model M         as for chat: provider:model with its key in the environment; the offline demo
                    model without one
  --record F        keep every model reply in F (JSONL), keyed by its request
  --replay F        answer every model request from F: no network, no cost; a request F does not
                    hold fails that case (replay_miss) instead of calling a model
  --concurrency N   cases run at once (default: the module's, else 4)
  --json            print the results as JSON instead of the summary
  --html F          write a self-contained HTML report to F
  --baseline F      compare with an earlier run's --json output: wins, losses, ties, p-values
  --journal F       make the evaluation resumable: run it again with the same F after a kill and it
                    goes on where it stopped, no finished case run or billed again
  --store DIR|URL   where the cases' sessions go (default ./${DEFAULT_STORE})

Exit 0 when every case ran and was scored, 1 when a case faulted or missed its recording, 2 for
a command line or module refused before any case ran.
`;

const TRUST = `usage: indusagi trust [DIR]            trust the folder DIR (default: this one)
       indusagi trust --revoke [DIR]   take that back
       indusagi trust --list           every folder trusted or refused

A folder's own files cannot approve anything until you trust it: a cloned repository can ship any
file. Its .indusagi/settings.json (approval rules) and .indusagi/mcp-consent.json (kept answers
about its .mcp.json) apply only once you trusted it, here or at the question an interactive chat
asks. Decisions are kept by the folder's real path in $XDG_CONFIG_HOME/indusagi/trust.json (else
~/.config/indusagi/trust.json), next to your own rules (settings.json, every folder) and your
answers about .mcp.json files (mcp-consent.json). -p in a folder not trusted leaves its files
unused and says so on stderr.
`;

const SESSIONS: Record<string, string> = {
  ls: 'indusagi sessions ls [--store DIR|URL]\n  every stored session, most recently changed first: id, time, nodes, live leaf, first prompt',
  show: "indusagi sessions show ID [--store DIR|URL]\n  the live branch as a transcript, then the session's billed tokens and estimated cost",
  tree: 'indusagi sessions tree ID [--store DIR|URL]\n  every branch of the session, one line per node, the live leaf marked',
  export:
    'indusagi sessions export ID [--format md|json] [--store DIR|URL]\n  the live branch as Markdown (default), or every node as JSON',
  rm: 'indusagi sessions rm ID [--store DIR|URL]\n  deletes the session file; refused while a chat has the session open',
};

/**
 * The help for `topic` (the words of `indusagi help chat`, `indusagi sessions rm --help`): the overview
 * for none, a command's own page, or the overview's lines about that command.
 */
export function helpFor(topic: string[]): string {
  const [command, action] = topic;
  if (command === undefined) return USAGE;
  if (command === 'chat') return CHAT;
  if (command === 'serve' || command === 'worker') return SERVE;
  if (command === 'eval') return EVAL;
  if (command === 'trust') return TRUST;
  if (command === 'sessions') {
    if (action !== undefined && SESSIONS[action] !== undefined) return `usage: ${SESSIONS[action]}\n`;
    return `usage:\n${Object.values(SESSIONS)
      .map((text) => `  ${text.replace(/\n/g, '\n  ')}`)
      .join('\n')}\n\nID is a session id as "indusagi sessions ls" prints it.\n`;
  }
  const lines = USAGE.split('\n').filter((line) => line.startsWith(`  indusagi ${command} `) || line === `  indusagi ${command}`);
  if (lines.length === 0) throw new CliUsageError(`no help for "${topic.join(' ')}": not a command; try "indusagi help"`);
  // `memory rm --help`: that action's line, when the overview has one.
  const own = lines.filter((line) => action !== undefined && line.startsWith(`  indusagi ${command} ${action} `));
  return `usage:\n${(own.length > 0 ? own : lines).join('\n')}\n`;
}
