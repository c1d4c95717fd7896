// `indusagi chat`: an interactive (or piped) conversation with an agent over a stored session, and
// `indusagi -p`, one prompt run for a script.
import { modelCard } from '../../runtime/models/index.js';
import type { ChatCommand } from '../args.js';
import { EXIT } from '../exit-codes.js';
import { missingKey, modelChoices } from '../model.js';
import type { ModelFlag } from '../model-flag.js';
import type { Io } from '../run.js';
import type { ChosenSession } from '../session-choice.js';
import { paintFor, paintsColour } from '../style.js';
import { terminalText } from '../safe-text.js';
import { approvalLines } from './approval-lines.js';
import { ChatController } from './controller.js';
import { LineSource } from './lines.js';
import { loadMarkdown } from './markdown.js';
import { RunRenderer } from './render.js';
import { setUpChat, type ChatSetup } from './setup.js';
import { terminalAsk } from '../mcp/ask.js';
import { PromptHistory, TerminalUi, TerminalView, workspacePaths } from './terminal/index.js';
import type { ChatView } from './view.js';

export { runPrint } from './print.js';

/**
 * Runs a chat until input ends, `/exit`, or a second Ctrl-C. The memory file is read before the model
 * starts. On a terminal the chat is a persistent screen (`TerminalUi`): the editor stays at the bottom
 * with the status line under it while runs stream above. Piped (no terminal), prompts are echoed after
 * `› `, output is a plain transcript, and the exit code is 1 if any run or command failed.
 */
export async function runChat(command: ChatCommand, session: ChosenSession, io: Io): Promise<number> {
  const setup = await setUpChat(command, io.env, io.cwd, terminalAsk(io));
  const terminal = io.stdin.isTTY === true && io.stdout.isTTY === true;
  const paint = paintFor(io.stdout, io.env);
  const colour = paintsColour(io.stdout, io.env);
  let history: PromptHistory | null = null;
  try {
    if (terminal) history = await PromptHistory.load(setup.workspace.root);
  } catch (error) {
    await setup.close();
    throw error;
  }

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
      view.line(paint('dim', '(Ctrl-C again to exit)'));
      return;
    }
    leaving = true;
    chat.interrupt();
    input.close();
  };

  let ui: TerminalUi | null = null;
  if (history !== null) {
    const kept = history;
    ui = new TerminalUi({
      input: io.stdin,
      output: io.stdout,
      paint,
      colour,
      history: kept.entries,
      remember: (prompt) =>
        void kept
          .add(prompt)
          .catch((error: unknown) => view.line(paint('yellow', `  ! prompt history: ${String((error as Error).message)}`))),
      paths: () => workspacePaths(setup.workspace.root),
      onInterrupt,
    });
  }
  const view: ChatView =
    ui !== null ? new TerminalView(ui, paint, colour ? 'rich' : 'plain') : new RunRenderer((text) => void io.stdout.write(text), paint);
  const lines = ui !== null ? null : new LineSource(io.stdin);
  const input = { next: () => (ui !== null ? ui.next() : lines!.next()), close: () => (ui !== null ? ui.close() : lines!.close()) };
  let chat: ChatController;
  try {
    chat = new ChatController(chatDeps(setup, view, io, paint), session.id);
  } catch (error) {
    // The terminal's raw mode, stdin and the servers' processes would keep the command alive after the error was printed.
    input.close();
    await setup.close();
    throw error;
  }
  // A terminal in raw mode sends Ctrl-C as a key (the editor's); a signal still comes from `kill -INT` or a pipe's shell.
  process.on('SIGINT', onInterrupt);

  try {
    view.line(paint('bold', `indusagi chat · session ${chat.sessionId} · ${setup.model.describe}`));
    view.line(paint('dim', 'type /help for commands, /exit to leave'));
    for (const note of setup.memoryNotes) view.line(paint('yellow', note));
    if (history !== null && history.skipped > 0)
      view.line(paint('yellow', `prompt history: ${history.skipped} unreadable line(s) skipped (a write cut short)`));
    if (setup.rules.size > 0) view.line(paint('dim', `${setup.rules.size} approval rule(s) in force (settings.json)`));
    // The Markdown parser loads while the first prompt is being typed, not before it is shown. A failure
    // is not lost: the view loads it again before it shows text, and says so when that fails too.
    if (ui !== null && colour) void loadMarkdown().catch(() => undefined);
    await chat.open(session.exists);
    for (;;) {
      const line = await input.next();
      if (line === null || leaving) break;
      armed = false;
      if (ui === null) io.stdout.write(`${paint('cyan', '›')} ${line}\n`);
      if (!(await chat.handle(line))) break;
      if (leaving) break;
    }
  } finally {
    process.off('SIGINT', onInterrupt);
    input.close();
    try {
      await chat.close();
    } finally {
      await setup.close();
    }
  }
  if (leaving) return EXIT.interrupted;
  return ui === null && chat.failures > 0 ? EXIT.failed : EXIT.ok;
}

function chatDeps(setup: ChatSetup, view: ChatView, io: Io, paint: ReturnType<typeof paintFor>) {
  const env = io.env;
  const errorPaint = paintFor(io.stderr, env);
  return {
    store: setup.store,
    makeAgent: setup.makeAgent,
    mcpStatus: setup.mcpStatus,
    memoryStatus: setup.memoryStatus,
    view,
    paint,
    warn: (text: string) => void io.stderr.write(`${errorPaint('yellow', 'indusagi:')} ${terminalText(text)}\n`),
    rules: setup.rules,
    describeApproval: (call: Parameters<typeof approvalLines>[1]) => approvalLines(setup.workspace, call, paint),
    model: () => ({
      id: setup.model.model,
      contextWindow: setup.model.contextWindow ?? modelCard(setup.model.model).contextWindow,
      describe: setup.model.describe,
      offline: setup.model.offline,
    }),
    models: { choices: () => modelChoices(env), missingKey: (flag: ModelFlag) => missingKey(env, flag), switchTo: setup.switchModel },
  };
}
