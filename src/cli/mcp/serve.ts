import type { McpServing } from '../../mcp/index.js';
import { serveMcp } from '../../mcp/index.js';
import { openMemory } from '../memory/index.js';
import { builtInTools, Workspace } from '../tools/index.js';
import type { Io } from '../run.js';

/** What `mcp serve` serves from: where the memory is, and HTTP's port and host (stdio without a port). */
export type ServeCommand = { port?: number; host?: string; memory: string };

/**
 * `indusagi mcp serve`: the chat's built-in tools (files of the current folder, the clock, memory)
 * as an MCP server, for Claude Desktop, Claude Code or another agent. Over stdio (stdout is the
 * protocol's, so nothing else is written there) until stdin ends, or over Streamable HTTP with `--port`
 * until interrupted. Writing a file asks the client's user first, through elicitation.
 */
export async function serveBuiltInTools(command: ServeCommand, io: Io): Promise<void> {
  const workspace = await Workspace.open(io.cwd);
  const memory = await openMemory(command.memory);
  for (const note of memory.notes) io.stderr.write(`indusagi: ${note}\n`);
  const tools = builtInTools({ workspace, memory: memory.store, maxReadChars: 64_000 });
  const instructions = `Tools over the folder ${workspace.root} (list, read, write: a write asks first) and a memory of facts that lasts across sessions.`;
  let serving: McpServing;
  try {
    serving =
      command.port === undefined
        ? await serveMcp({ name: 'indusagi', tools, instructions, transport: { stdin: io.stdin, stdout: io.stdout } })
        : await serveMcp({ name: 'indusagi', tools, instructions, transport: { port: command.port, host: command.host } });
  } catch (error) {
    await memory.close();
    throw error;
  }
  if (serving.url !== undefined) io.stderr.write(`indusagi: serving MCP at ${serving.url} (Ctrl-C stops)\n`);
  // Stdio ends when the client closes our stdin; HTTP when the process is told to stop.
  await new Promise<void>((resolve) => {
    if (serving.url === undefined) io.stdin.once('end', resolve);
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await serving.close();
  await memory.close();
}
