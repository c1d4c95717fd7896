// `indusagi chat`: an interactive (or piped) conversation with an agent over a stored session.
import { randomBytes } from 'node:crypto';
import { createAgent } from '../../providers/anthropic/index.js';
import { SessionStore } from '../../runtime/store/index.js';
import type { Command } from '../args.js';
import { describeMemoryReport, openMemoryFile } from '../memory-file.js';
import { chooseModel } from '../model.js';
import type { Io } from '../run.js';
import { paintFor } from '../style.js';
import { Workspace } from '../tools/index.js';
import { chatConfig } from './config.js';
import { ChatController } from './controller.js';
import { LineSource } from './lines.js';
import { RunRenderer } from './render.js';
import { Spinner } from './spinner.js';

type ChatCommand = Extract<Command, { name: 'chat' }>;

/** Exit code when the user leaves with a second Ctrl-C, as shells expect after SIGINT. */
const EXIT_INTERRUPTED = 130;

/**
 * Runs a chat until input ends, `/exit`, or a second Ctrl-C. `command.session` must name a stored
 * session (the caller checks); the memory file is read before the model starts. Piped (no terminal),
 * prompts are echoed after `› ` and the exit code is 1 if any run or command failed.
 */
export async function runChat(command: ChatCommand, io: Io): Promise<number> {
  const store = new SessionStore(command.locations.store);
  const memory = await openMemoryFile(command.locations.memory);
  const workspace = await Workspace.open(io.cwd);
  const model = await chooseModel(io.env, command.model);

  const terminal = io.stdin.isTTY === true && io.stdout.isTTY === true;
  const paint = paintFor(io.stdout, io.env);
  const write = (text: string) => void io.stdout.write(text);
  const renderer = new RunRenderer(write, paint, new Spinner(io.stdout, terminal));
  const config = chatConfig(model, workspace, memory);
  const chat = new ChatController(
    {
      store,
      renderer,
      write,
      paint,
      makeAgent: (sessionId) => createAgent({ ...config, sessionId }, { store, invokeModel: model.invokeModel }),
    },
    command.session ?? newSessionId(),
  );
  const lines = new LineSource(io.stdin, io.stdout, terminal);

  // First Ctrl-C stops the run (or, idle, warns); the next one, before another line is entered, leaves.
  let armed = false;
  let leaving = false;
  const onInterrupt = () => {
    if (!armed && chat.interrupt()) {
      armed = true;
      return;
    }
    if (!armed) {
      armed = true;
      renderer.line(paint('dim', '(Ctrl-C again to exit)'));
      if (terminal) lines.readline.prompt();
      return;
    }
    leaving = true;
    chat.interrupt();
    lines.close();
  };
  if (terminal) lines.readline.on('SIGINT', onInterrupt);
  process.on('SIGINT', onInterrupt);

  try {
    renderer.line(paint('bold', `indusagi chat · session ${chat.sessionId} · ${model.describe}`));
    renderer.line(paint('dim', 'type /help for commands, /exit to leave'));
    for (const note of describeMemoryReport(command.locations.memory, memory.report)) renderer.line(paint('yellow', note));
    await chat.open(command.session !== undefined);
    for (;;) {
      const line = await lines.next(paint('cyan', 'you › '));
      if (line === null || leaving) break;
      armed = false;
      if (!terminal) write(`${paint('cyan', '›')} ${line}\n`);
      if (!(await chat.handle(line))) break;
      if (leaving) break;
    }
  } finally {
    process.off('SIGINT', onInterrupt);
    lines.close();
    try {
      await chat.close();
    } finally {
      await model.close();
    }
  }
  if (leaving) return EXIT_INTERRUPTED;
  return !terminal && chat.failures > 0 ? 1 : 0;
}

/** Sortable and short enough to type: `20261129-183401-7f3a`. */
function newSessionId(): string {
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `${stamp}-${randomBytes(2).toString('hex')}`;
}
