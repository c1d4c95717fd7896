import type { Agent } from '../../runtime/agent/index.js';
import { UnknownInputRequestError } from '../../runtime/agent/index.js';
import type { RunEvent } from '../../runtime/contract/events.js';
import { oneLine } from '../output.js';

type Question = Extract<RunEvent, { kind: 'input_requested' }>;

/** The question `event` puts to the person, if it puts one: the run's own, or a sub-agent's at any depth. */
export function questionOf(event: RunEvent): Question | undefined {
  if (event.kind === 'input_requested') return event;
  if (event.kind === 'nested' && event.event.kind === 'input_requested') return event.event;
  return undefined;
}

/** How much of a question's message the notice quotes: a server writes it, and it may be megabytes. */
const QUOTED_CHARS = 200;

/**
 * Where nobody can answer a question (`-p`, a piped chat: `mode` names it), it is cancelled at once and
 * `note` says so in one line, naming who asked. Left waiting, the call would stall until the server's
 * own timeout and then fail as a server that "did not answer in time". `cancel` rather than `decline`:
 * in MCP, decline says a person read the question and said no, cancel that nobody made a choice.
 */
export function refuseQuestion(agent: Agent, question: Question, mode: string, note: (text: string) => void): void {
  const who = question.from !== undefined ? `MCP server "${question.from}"` : `tool "${question.name}"`;
  const message = question.message.replace(/\s+/g, ' ').trim();
  const quoted = message.length > QUOTED_CHARS ? `${message.slice(0, QUOTED_CHARS)}…` : message;
  note(`${who} asks ${JSON.stringify(quoted)}, but nobody can answer in ${mode}; it was cancelled`);
  // After every subscriber saw the question, so no stream shows its answer first.
  queueMicrotask(() => {
    try {
      agent.answer(question.requestId, { action: 'cancel' });
    } catch (error) {
      // The run ended (aborted) before the answer went: nothing waits for it any more.
      if (!UnknownInputRequestError.isInstance(error)) note(`the question of ${who} could not be cancelled: ${oneLine(error)}`);
    }
  });
}
