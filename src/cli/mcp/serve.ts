import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { McpServing } from '../../mcp/index.js';
import { serveMcp } from '../../mcp/index.js';
import { errorMessage } from '../../errors/index.js';
import { CliUsageError } from '../errors.js';
import { openMemory } from '../memory/index.js';
import type { EmbedderFlag } from '../embedder-flag.js';
import { builtInTools, Workspace } from '../tools/index.js';
import type { Io } from '../run.js';

/**
 * What `mcp serve` serves from: where the memory is, HTTP's port, host and token file (stdio without a
 * port), and whether the shell tool is served.
 */
export type ServeCommand = {
  port?: number;
  host?: string;
  memory: string;
  /** How the memory recalls (`--embedder`); default `auto`. */
  embedder?: EmbedderFlag;
  allowBash: boolean;
  tokenFile?: string;
};

/** The environment variable a token can come from instead of `--token-file`. */
export const TOKEN_ENV = 'INDUSAGI_MCP_TOKEN';
// A token a person could guess, or that a shell glitch emptied, is refused rather than served behind.
const MIN_TOKEN_CHARS = 16;

/**
 * `indusagi mcp serve`: the chat's built-in tools (files of the current folder, the clock, memory; the
 * shell only with `--allow-bash`) as an MCP server, for Claude Desktop, Claude Code or another agent.
 * Over stdio (stdout is the protocol's, so nothing else is written there) until stdin ends, or over
 * Streamable HTTP with `--port` until interrupted, answering only requests that carry its bearer token.
 * Writing a file or running a command asks the client's user first, through elicitation.
 */
export async function serveBuiltInTools(command: ServeCommand, io: Io): Promise<void> {
  // Before anything is opened: a token that cannot be read stops the command with nothing served.
  const token = command.port === undefined ? undefined : await tokenFor(command, io);
  const workspace = await Workspace.open(io.cwd);
  const memory = await openMemory(command.memory, { embedder: command.embedder ?? 'auto' });
  for (const note of memory.notes) io.stderr.write(`indusagi: ${note}\n`);
  // The shell runs anything the client's user allows: a client (or, over HTTP, anyone holding the
  // token) gets it only when the person starting the server asked for it.
  const tools = builtInTools({ workspace, memory: memory.store, maxReadChars: 64_000 }).filter(
    (tool) => command.allowBash || tool.name !== 'bash',
  );
  const shell = command.allowBash ? ', a shell (each command asks first)' : '';
  const instructions = `Tools over the folder ${workspace.root} (list, read, write: a write asks first${shell}) and a memory of facts that lasts across sessions.`;
  let serving: McpServing;
  try {
    serving =
      command.port === undefined
        ? await serveMcp({ name: 'indusagi', tools, instructions, transport: { stdin: io.stdin, stdout: io.stdout } })
        : await serveMcp({
            name: 'indusagi',
            tools,
            instructions,
            transport: { port: command.port, host: command.host, token: token!.value },
          });
  } catch (error) {
    await memory.close();
    throw error;
  }
  if (serving.url !== undefined) {
    io.stderr.write(`indusagi: serving MCP at ${serving.url} (Ctrl-C stops)\n`);
    // Made up here, so this is the only place the client's owner can learn it.
    if (token!.made) io.stderr.write(`indusagi: token: ${token!.value} (clients send "Authorization: Bearer <token>")\n`);
    else io.stderr.write(`indusagi: clients must send "Authorization: Bearer <token>" with the token of ${token!.from}\n`);
  }
  // Stdio ends when the client closes our stdin; HTTP when the process is told to stop.
  await new Promise<void>((resolve) => {
    if (serving.url === undefined) io.stdin.once('end', resolve);
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await serving.close();
  await memory.close();
}

/** The HTTP transport's token: `--token-file`'s first line, else `INDUSAGI_MCP_TOKEN`, else 256 random bits. */
async function tokenFor(command: ServeCommand, io: Io): Promise<{ value: string; made: boolean; from?: string }> {
  let given: string | undefined;
  let from: string;
  if (command.tokenFile !== undefined) {
    from = command.tokenFile;
    try {
      given = (await readFile(command.tokenFile, 'utf8')).split(/\r?\n/)[0].trim();
    } catch (error) {
      throw new CliUsageError(`--token-file: cannot read ${command.tokenFile}: ${errorMessage(error)}`);
    }
  } else if (io.env[TOKEN_ENV] !== undefined) {
    from = TOKEN_ENV;
    given = io.env[TOKEN_ENV].trim();
  } else {
    return { value: randomBytes(32).toString('base64url'), made: true };
  }
  if (given.length < MIN_TOKEN_CHARS || !/^[\x21-\x7e]+$/.test(given))
    throw new CliUsageError(
      `the token of ${from} must be at least ${MIN_TOKEN_CHARS} visible ASCII characters without spaces (has ${given.length})`,
    );
  return { value: given, made: false, from };
}
