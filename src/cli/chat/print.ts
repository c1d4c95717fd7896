import { RunFault } from '../../runtime/loop/index.js';
import { loadReportProblems } from '../../runtime/store/index.js';
import type { RunEvent, RunSnapshot } from '../../runtime/contract/events.js';
import type { ChatCommand } from '../args.js';
import { CliUsageError } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import { oneLine } from '../output.js';
import type { Io } from '../run.js';
import { terminalJson, terminalText } from '../safe-text.js';
import type { ChosenSession } from '../session-choice.js';
import { approveAllowed } from '../approvals.js';
import { setUpChat, type ChatSetup } from './setup.js';
import { retryNotice } from './status.js';

/**
 * `indusagi -p PROMPT`: one run on the chosen session. Stdout gets the final answer, or with `--json`
 * every run event as one JSON line (steering characters `\u`-escaped, so a terminal is safe either
 * way); stderr gets what a person watching should know (retries, a call waiting for approval, a
 * failure). The exit code says how the run ended: see `EXIT`.
 */
export async function runPrint(command: ChatCommand, given: string, session: ChosenSession, io: Io): Promise<number> {
  const prompt = given === '-' ? await readAll(io.stdin) : given;
  if (prompt.trim() === '') throw new CliUsageError('-p: the prompt is empty');
  const setup = await setUpChat(command, io.env, io.cwd);
  let agent: ReturnType<ChatSetup['makeAgent']>;
  try {
    agent = setup.makeAgent(session.id);
  } catch (error) {
    // Its servers' processes would keep the command alive after the error was printed.
    await setup.close();
    throw error;
  }
  const note = (text: string) => void io.stderr.write(`indusagi: ${terminalText(text)}\n`);
  for (const line of setup.memoryNotes) note(line);
  const unsubscribe = agent.subscribe((event) => {
    if (command.json) io.stdout.write(`${terminalJson(JSON.stringify(event))}\n`);
    else if (event.kind !== 'approval_requested' || setup.rules.allows(session.id, event) === undefined) describe(event, note);
  });
  const onInterrupt = () => agent.abort();
  process.on('SIGINT', onInterrupt);
  try {
    const opened = await agent.resume(session.id);
    const report = opened.loadReport;
    if (report !== undefined) for (const problem of loadReportProblems(report)) note(`session ${session.id}: ${problem}`);
    // A fallen-back leaf means the prompt would start a branch from an older node, and the next load
    // would no longer mention the damage: a script gets a failure to look at instead of a quiet fork.
    if (report?.leafFallback != null && !command.force) {
      const from = report.leafFallback.restored === null ? 'the start' : `node ${report.leafFallback.restored.slice(0, 8)}`;
      note(
        `not appending to session ${session.id}: its latest turn could not be read, so this prompt would start a branch from ${from}; ` +
          `"indusagi sessions tree ${session.id}" shows the session, --force goes on from there`,
      );
      return EXIT.failed;
    }
    let snapshot: RunSnapshot;
    try {
      snapshot = await agent.submit(prompt);
      // Calls the workspace's rules allow run; a call that needs a person stops the run (exit 3).
      snapshot = await approveAllowed(agent, setup.rules, snapshot, (call, because) =>
        note(`${call.name} ${JSON.stringify(call.input)} allowed (${because})`),
      );
    } catch (error) {
      if (RunFault.isInstance(error) && error.kind === 'aborted') {
        note('interrupted; the unfinished reply was not saved');
        return EXIT.interrupted;
      }
      note(`${RunFault.isInstance(error) ? `run failed (${error.kind})` : 'error'}: ${oneLine(error)}`);
      return EXIT.failed;
    }
    if (!command.json && snapshot.text !== '')
      io.stdout.write(terminalText(snapshot.text.endsWith('\n') ? snapshot.text : `${snapshot.text}\n`));
    if (snapshot.status === 'waiting') {
      note(`session ${session.id} waits for approval; run "indusagi chat --session ${session.id}" and /approve or /reject`);
      return EXIT.waiting;
    }
    return EXIT.ok;
  } finally {
    process.off('SIGINT', onInterrupt);
    unsubscribe();
    try {
      await agent.close();
    } finally {
      await setup.close();
    }
  }
}

function describe(event: RunEvent, note: (text: string) => void): void {
  if (event.kind === 'model_retry') note(retryNotice(event));
  else if (event.kind === 'approval_requested') note(`${event.name} ${JSON.stringify(event.input)} needs approval (${event.approvalId})`);
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  stream.setEncoding('utf8');
  for await (const chunk of stream) text += chunk as string;
  return text;
}
