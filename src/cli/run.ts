import { readFile } from 'node:fs/promises';
import { parseCommand } from './args.js';
import { USAGE } from './help.js';
import { isBadInput, oneLine } from './output.js';
import { loadExisting, runSessions } from './sessions/index.js';
import { SessionStore } from '../runtime/store/index.js';
import { paintFor } from './style.js';

/** The streams and surroundings one invocation works with. */
export type Io = {
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  env: NodeJS.ProcessEnv;
  cwd: string;
};

/** Exit codes: 0 done, 1 a failure while working, 2 a command line that was refused before any work. */
export async function run(argv: string[], io: Io): Promise<number> {
  const paint = paintFor(io.stdout, io.env);
  const errorPaint = paintFor(io.stderr, io.env);
  try {
    const command = parseCommand(argv, io.cwd);
    switch (command.name) {
      case 'help':
        io.stdout.write(USAGE);
        return 0;
      case 'version':
        io.stdout.write(`${await packageVersion()}\n`);
        return 0;
      case 'sessions':
        await runSessions(command, (text) => io.stdout.write(text), paint);
        return 0;
      case 'chat': {
        // Refused before the chat (the SDK, the demo server) is even loaded.
        if (command.session !== undefined) await loadExisting(new SessionStore(command.locations.store), command.session);
        const { runChat } = await import('./chat/index.js');
        return await runChat(command, io);
      }
    }
  } catch (error) {
    io.stderr.write(`${errorPaint('red', 'indusagi:')} ${oneLine(error)}\n`);
    return isBadInput(error) ? 2 : 1;
  }
}

async function packageVersion(): Promise<string> {
  const raw = await readFile(new URL('../../package.json', import.meta.url), 'utf8');
  return (JSON.parse(raw) as { version: string }).version;
}
