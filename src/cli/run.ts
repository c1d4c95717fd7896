import { readFile } from 'node:fs/promises';
import { parseCommand } from './args.js';
import { EXIT } from './exit-codes.js';
import { helpFor } from './help.js';
import { isBadInput, oneLine } from './output.js';
import { chooseSession } from './session-choice.js';
import { runSessions } from './sessions/index.js';
import { runMemory } from './memory/index.js';
import { runDb } from './db/index.js';
import { runTrust } from './trust-command.js';
import { openSessionStore } from './session-store.js';
import { paintFor } from './style.js';
import { terminalText } from './safe-text.js';

/** The streams and surroundings one invocation works with. */
export type Io = {
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  env: NodeJS.ProcessEnv;
  cwd: string;
};

/** The exit code: see `EXIT` (0 done, 1 a failure while working, 2 a command line refused before any work, …). */
export async function run(argv: string[], io: Io): Promise<number> {
  const paint = paintFor(io.stdout, io.env);
  const errorPaint = paintFor(io.stderr, io.env);
  try {
    const command = parseCommand(argv, io.cwd, io.env);
    switch (command.name) {
      case 'help':
        io.stdout.write(helpFor(command.topic));
        return EXIT.ok;
      case 'version':
        io.stdout.write(`${await packageVersion()}\n`);
        return EXIT.ok;
      case 'sessions':
        await runSessions(command, (text) => io.stdout.write(text), paint);
        return EXIT.ok;
      case 'memory':
        await runMemory(
          command,
          (text) => io.stdout.write(text),
          paint,
          (line) => io.stderr.write(`${errorPaint('yellow', 'indusagi:')} ${terminalText(line)}\n`),
        );
        return EXIT.ok;
      case 'db':
        await runDb(command, io.env, (text) => io.stdout.write(text));
        return EXIT.ok;
      case 'mcp':
        await (await import('./mcp/serve.js')).serveBuiltInTools(command, io);
        return EXIT.ok;
      case 'trust':
        await runTrust(command, io.env, (text) => io.stdout.write(text));
        return EXIT.ok;
      case 'serve':
        return await (await import('./serve/index.js')).runServe(command, io);
      case 'worker':
        return await (await import('./serve/index.js')).runWorker(command, io);
      case 'eval':
        return await (await import('./eval/index.js')).runEval(command, io);
      case 'chat': {
        // Decided before the chat (the SDK, the demo server) is even loaded.
        const store = openSessionStore(command.locations.store);
        let session;
        try {
          session = await chooseSession(command.session, store);
        } finally {
          await store.close();
        }
        const { runChat, runPrint } = await import('./chat/index.js');
        return await (command.print !== undefined ? runPrint(command, command.print, session, io) : runChat(command, session, io));
      }
    }
  } catch (error) {
    io.stderr.write(`${errorPaint('red', 'indusagi:')} ${oneLine(error)}\n`);
    return isBadInput(error) ? EXIT.usage : EXIT.failed;
  }
}

async function packageVersion(): Promise<string> {
  const raw = await readFile(new URL('../../package.json', import.meta.url), 'utf8');
  return (JSON.parse(raw) as { version: string }).version;
}
