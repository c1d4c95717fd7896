import type { Agent } from '../../runtime/agent/index.js';
import { InvalidInputAnswerError, UnknownInputRequestError } from '../../runtime/agent/index.js';
import type { RunEvent } from '../../runtime/contract/events.js';
import { oneLine } from '../output.js';
import { terminalText } from '../safe-text.js';
import type { Paint } from '../style.js';
import type { QuestionField, TerminalControls } from './view.js';

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

/**
 * On a terminal, a question is put to the person as a form (`TerminalControls.ask`) and the answer
 * goes back to the tool that asked. An answer the question's schema refuses is shown and asked again,
 * so nothing typed is taken as something else.
 */
export async function askOnTerminal(
  agent: Agent,
  question: Question,
  terminal: TerminalControls,
  paint: Paint,
  fail: (error: unknown) => void,
): Promise<void> {
  const who = question.from !== undefined ? `MCP server "${question.from}"` : `tool "${question.name}"`;
  const lines = [`${paint('bold', '?')} ${terminalText(who)} asks: ${terminalText(question.message)}`];
  const fields = fieldsOf(question.schema);
  for (;;) {
    const answer = await terminal.ask(lines, fields);
    try {
      agent.answer(question.requestId, answer);
      return;
    } catch (error) {
      // The run ended (aborted) meanwhile: nothing waits for the answer any more.
      if (UnknownInputRequestError.isInstance(error)) return;
      if (!InvalidInputAnswerError.isInstance(error)) return fail(error);
      lines.splice(1, lines.length - 1, paint('red', `  ${oneLine(error)}`));
    }
  }
}

/** The fields of a flat form (MCP's elicitation schemas are: strings, numbers, booleans); null for any other. */
export function fieldsOf(schema: object): QuestionField[] | null {
  const properties = (schema as { properties?: unknown }).properties ?? {};
  if (typeof properties !== 'object' || properties === null) return null;
  const required = new Set(Array.isArray((schema as { required?: unknown }).required) ? (schema as { required: unknown[] }).required : []);
  const fields: QuestionField[] = [];
  for (const [key, raw] of Object.entries(properties as Record<string, unknown>)) {
    const property = (typeof raw === 'object' && raw !== null ? raw : {}) as { type?: unknown; title?: unknown; enum?: unknown };
    const kind = property.type;
    if (kind !== 'string' && kind !== 'number' && kind !== 'integer' && kind !== 'boolean') return null;
    const title = typeof property.title === 'string' ? property.title : key;
    const choices = Array.isArray(property.enum) ? ` (${property.enum.map(String).join(' / ')})` : '';
    fields.push({ key, label: terminalText(`${title}${choices}`), kind, required: required.has(key) });
  }
  return fields;
}
