// `indusagi chat`: an interactive (or piped) conversation with an agent over a stored session, and
// `indusagi -p`, one prompt run for a script.
import { modelCard } from '../../runtime/models/index.js';
import type { ChatCommand } from '../args.js';
import { EXIT } from '../exit-codes.js';
import type { Io } from '../run.js';
import type { ChosenSession } from '../session-choice.js';
import { paintFor } from '../style.js';
import { ChatController } from './controller.js';
import { LineSource } from './lines.js';
import { RunRenderer } from './render.js';
import { setUpChat } from './setup.js';
import { Spinner } from './spinner.js';

export { runPrint } from './print.js';

/**
 * Runs a chat until input ends, `/exit`, or a second Ctrl-C. The memory file is read before the model
 * starts. Piped (no terminal), prompts are echoed after `› ` and the exit code is 1 if any run or
 * command failed; on a terminal a status line follows each run.
 */
export async function runChat(command: ChatCommand, session: ChosenSession, io: Io): Promise<number> {
  const setup = await setUpChat(command, io.env, io.cwd);
  const { model } = setup;

  const terminal = io.stdin.isTTY === true && io.stdout.isTTY === true;
  const paint = paintFor(io.stdout, io.env);
  const write = (text: string) => void io.stdout.write(text);
  const renderer = new RunRenderer(write, paint, new Spinner(io.stdout, terminal));
  const chat = new ChatController(
    {
      store: setup.store,
      renderer,
      write,
      paint,
      makeAgent: setup.makeAgent,
      status: terminal ? { model: model.model, contextWindow: model.contextWindow ?? modelCard(model.model).contextWindow } : undefined,
    },
    session.id,
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
    for (const note of setup.memoryNotes) renderer.line(paint('yellow', note));
    await chat.open(session.exists);
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
  if (leaving) return EXIT.interrupted;
  return !terminal && chat.failures > 0 ? EXIT.failed : EXIT.ok;
}
