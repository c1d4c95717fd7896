// `indusagi chat`: an interactive (or piped) conversation with an agent over a stored session, and
// `indusagi -p`, one prompt run for a script.
import { modelCard } from '../../runtime/models/index.js';
import type { ChatCommand } from '../args.js';
import { EXIT } from '../exit-codes.js';
import type { Io } from '../run.js';
import type { ChosenSession } from '../session-choice.js';
import { paintFor, paintsColour } from '../style.js';
import { ChatController } from './controller.js';
import { PromptEditor } from './editor.js';
import { LineSource } from './lines.js';
import { loadMarkdown } from './markdown.js';
import { RunRenderer } from './render.js';
import { setUpChat } from './setup.js';
import { terminalAsk } from '../mcp/ask.js';
import { Spinner } from './spinner.js';

export { runPrint } from './print.js';

/**
 * Runs a chat until input ends, `/exit`, or a second Ctrl-C. The memory file is read before the model
 * starts. Piped (no terminal), prompts are echoed after `› ` and the exit code is 1 if any run or
 * command failed; on a terminal a status line follows each run.
 */
export async function runChat(command: ChatCommand, session: ChosenSession, io: Io): Promise<number> {
  const setup = await setUpChat(command, io.env, io.cwd, terminalAsk(io));
  const { model } = setup;

  const terminal = io.stdin.isTTY === true && io.stdout.isTTY === true;
  const paint = paintFor(io.stdout, io.env);
  const colour = paintsColour(io.stdout, io.env);
  const write = (text: string) => void io.stdout.write(text);
  // On a terminal, Markdown is rendered (plain source with NO_COLOR) and wrapped to its width; piped, text streams as it comes.
  const layout = terminal ? { mode: colour ? ('rich' as const) : ('plain' as const), width: () => io.stdout.columns || 80 } : undefined;
  const renderer = new RunRenderer(write, paint, new Spinner(io.stdout, terminal), layout);
  const chat = new ChatController(
    {
      store: setup.store,
      renderer,
      write,
      paint,
      makeAgent: setup.makeAgent,
      mcpStatus: setup.mcpStatus,
      status: terminal ? { model: model.model, contextWindow: model.contextWindow ?? modelCard(model.model).contextWindow } : undefined,
    },
    session.id,
  );
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
      const warn = () => renderer.line(paint('dim', '(Ctrl-C again to exit)'));
      if (editor !== null) editor.interject(warn);
      else warn();
      return;
    }
    leaving = true;
    chat.interrupt();
    lines.close();
  };
  const editor = terminal ? new PromptEditor(io.stdin, io.stdout, onInterrupt) : null;
  const lines = editor ?? new LineSource(io.stdin);
  // A terminal in raw mode sends Ctrl-C as a key (the editor's); a signal still comes from `kill -INT` or a pipe's shell.
  process.on('SIGINT', onInterrupt);

  let markdown: Promise<void> | undefined;
  try {
    renderer.line(paint('bold', `indusagi chat · session ${chat.sessionId} · ${model.describe}`));
    renderer.line(paint('dim', 'type /help for commands, /exit to leave'));
    for (const note of setup.memoryNotes) renderer.line(paint('yellow', note));
    await chat.open(session.exists);
    for (;;) {
      const next = lines.next(paint('cyan', chat.choosing ? 'pick › ' : 'you › '));
      // The Markdown parser loads while the first prompt is being typed, not before it is shown.
      markdown ??= layout?.mode === 'rich' ? loadMarkdown() : Promise.resolve();
      const line = await next;
      await markdown;
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
      await setup.close();
    }
  }
  if (leaving) return EXIT.interrupted;
  return !terminal && chat.failures > 0 ? EXIT.failed : EXIT.ok;
}
