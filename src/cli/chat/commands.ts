import { CliUsageError } from '../errors.js';
import { parseModelFlag, type ModelFlag } from '../model-flag.js';
import { listSessions, renderTree, treeRows } from '../sessions/index.js';
import { waitingCall } from './approval-decisions.js';
import type { ChatState } from './chat-state.js';
import { runShown } from './runs.js';
import { fork, offerSessions, pickSession, switchTo } from './session-switching.js';
import { SLASH_HELP, type SlashCommand } from './slash.js';

/** What a slash command does (`/exit` is the controller's: it ends the chat). A failure throws, for the controller to report. */
export async function runCommand(chat: ChatState, command: Exclude<SlashCommand, { name: 'exit' }>): Promise<void> {
  const { view, store, paint } = chat.deps;
  switch (command.name) {
    case 'help':
      view.write(`${SLASH_HELP.join('\n')}\n`);
      return;
    case 'sessions':
      view.write(await listSessions(store, paint));
      return;
    case 'mcp':
      view.write(chat.deps.mcpStatus?.() ?? 'no MCP servers: start the chat with --mcp FILE, or put a .mcp.json in this folder\n');
      return;
    case 'memory':
      view.write(chat.deps.memoryStatus?.() ?? 'no memory in this chat\n');
      return;
    case 'tree':
      await tree(chat);
      return;
    case 'resume':
      if (command.arg !== null) await switchTo(chat, command.arg);
      else if (view.terminal !== undefined) await pickSession(chat);
      else await offerSessions(chat);
      return;
    case 'fork':
      await fork(chat, command.arg);
      return;
    case 'model':
      await model(chat, command.arg);
      return;
    case 'continue':
      await runShown(chat, () => chat.agent.continue());
      return;
    case 'compact':
      await runShown(chat, async () => {
        const outcome = await chat.agent.condense();
        if (outcome.compacted === null)
          chat.info('nothing condensed: the history is shorter than what is always kept, or a summary would not make it smaller');
      });
      return;
    case 'approve':
    case 'reject': {
      const pending = waitingCall(chat, command.arg);
      await runShown(chat, () =>
        command.name === 'approve' ? chat.agent.approve(pending.approvalId) : chat.agent.reject(pending.approvalId),
      );
      return;
    }
  }
}

/** `/tree`: the session's nodes, printed when piped; on a terminal a picker whose choice the chat forks from. */
async function tree(chat: ChatState): Promise<void> {
  const { view, store, paint } = chat.deps;
  const terminal = view.terminal;
  const graph = await store.loadSession(chat.sessionId, { whole: true });
  if (graph.size === 0) {
    view.write('this session is empty so far\n');
    return;
  }
  if (terminal === undefined) {
    view.write(`${renderTree(graph, paint).join('\n')}\n`);
    return;
  }
  const rows = treeRows(graph, paint);
  const live = Math.max(
    0,
    rows.findIndex((row) => row.node.id === graph.leaf),
  );
  const chosen = await terminal.pick(
    `session ${chat.sessionId}: Enter continues from the node chosen`,
    rows.map((row) => ({ label: row.line, value: row.node.id })),
    live,
  );
  if (chosen === null) return;
  if (chosen === graph.leaf) chat.info('already there: the next prompt continues from the live leaf');
  else await fork(chat, chosen);
}

/** `/model`: the picker on a terminal, the list piped; `/model P:MODEL` switches to it. */
async function model(chat: ChatState, arg: string | null): Promise<void> {
  const { deps } = chat;
  const choices = deps.models.choices();
  const terminal = deps.view.terminal;
  let flag: ModelFlag | null;
  if (arg !== null) {
    const parsed = parseModelFlag(arg);
    flag = parsed.provider === 'demo' ? null : parsed;
  } else if (terminal !== undefined) {
    const model = deps.model();
    const at = choices.findIndex((c) => (c.value.provider === 'demo' ? model.offline : c.value.model === model.id));
    const chosen = await terminal.pick('switch to which model?', choices, Math.max(0, at));
    if (chosen === null) return;
    flag = chosen.provider === 'demo' ? null : chosen;
  } else {
    const { paint } = deps;
    deps.view.write(
      `${choices.map((c) => `  ${c.label}${c.disabled !== undefined ? paint('dim', `  (${c.disabled})`) : ''}`).join('\n')}\n`,
    );
    chat.info('switch with /model PROVIDER:MODEL, or /model demo');
    return;
  }
  const key = flag === null ? undefined : deps.models.missingKey(flag);
  if (key !== undefined) throw new CliUsageError(`${flag!.given} needs ${key}`);
  await chat.replaceAgent(() => deps.models.switchTo(flag));
  chat.updateStatus();
  chat.info(`now talking to ${deps.model().describe}`);
}
