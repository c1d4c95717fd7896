import { IndusagiError } from '../errors/index.js';

/** A `useChat` request body that says neither a prompt nor approval decisions. */
export class ChatRequestError extends IndusagiError {
  static override readonly errorName: string = 'ChatRequestError';
  constructor(message: string) {
    super('invalid_chat_request', message);
  }
}

/**
 * The most decisions one request may carry. A model reply asks for a handful of approvals at a time;
 * the cap keeps a hostile body from queueing thousands of `approve` runs behind one request.
 */
export const MAX_CHAT_DECISIONS = 64;

/** A decision the user made with `addToolApprovalResponse`. `approvalId` is the call's id, or a sub-agent's call under it (`call/inner`). */
export type ChatDecision = { approvalId: string; toolCallId: string; approved: boolean; reason?: string };

/** What sent a prompt: a new or edited message (`submit-message`), or `regenerate()` (`regenerate-message`). */
export type ChatTrigger = 'submit-message' | 'regenerate-message';

/**
 * What one `useChat` request asks for. The page sends the whole thread every time, but the agent's
 * session already holds it: only the last message matters. A user message is a new prompt; an
 * assistant message carrying approval responses (after `addToolApprovalResponse`) is a set of
 * decisions. `trigger` and `messageId` are as the page sent them: `regenerate-message` with the reply
 * to answer again, or `submit-message` with the id of a user message the page replaced (an edit).
 * `continue` is never read from a body: a server that moved the session back (`agent.branchFrom`)
 * streams it to have the model answer again from there.
 */
export type ChatRequest =
  | { kind: 'prompt'; chatId?: string; text: string; trigger?: ChatTrigger; messageId?: string }
  | { kind: 'decisions'; chatId?: string; decisions: ChatDecision[] }
  | { kind: 'continue'; chatId?: string };

type Obj = Record<string, unknown>;
const isObject = (value: unknown): value is Obj => typeof value === 'object' && value !== null && !Array.isArray(value);
const TRIGGERS: readonly unknown[] = ['submit-message', 'regenerate-message'] satisfies ChatTrigger[];

/**
 * Reads the JSON body `useChat`'s default transport posts (`{ id, messages, trigger, messageId }`).
 * Throws `ChatRequestError` for anything else: no messages, a last message that is neither a user
 * message with text nor an assistant message with answered approvals, a trigger `useChat` never
 * sends, a decision whose approval id is not its tool call's, a call decided twice, or more than
 * `MAX_CHAT_DECISIONS` decisions.
 */
export function readChatRequest(body: unknown): ChatRequest {
  if (!isObject(body) || !Array.isArray(body.messages) || body.messages.length === 0) {
    throw new ChatRequestError('The body must be a useChat request: an object with a non-empty "messages" array.');
  }
  const chatId = typeof body.id === 'string' ? body.id : undefined;
  const { trigger, messageId } = body;
  if (trigger !== undefined && !TRIGGERS.includes(trigger))
    throw new ChatRequestError(`"trigger" must be one of ${TRIGGERS.join(', ')}; got ${JSON.stringify(trigger)}.`);
  if (messageId !== undefined && messageId !== null && typeof messageId !== 'string')
    throw new ChatRequestError('"messageId" must be a string when given.');
  const last: unknown = body.messages[body.messages.length - 1];
  if (!isObject(last) || !Array.isArray(last.parts)) throw new ChatRequestError('The last message must be an object with a "parts" array.');
  const parts = last.parts.filter(isObject);
  if (last.role === 'user') {
    const text = parts.flatMap((part) => (part.type === 'text' && typeof part.text === 'string' ? [part.text] : [])).join('');
    if (text.trim() === '') throw new ChatRequestError('The last user message has no text.');
    return {
      kind: 'prompt',
      ...(chatId !== undefined && { chatId }),
      text,
      ...(trigger !== undefined && { trigger: trigger as ChatTrigger }),
      ...(typeof messageId === 'string' && { messageId }),
    };
  }
  if (trigger === 'regenerate-message') throw new ChatRequestError('A regenerate request must end with the user message to answer again.');
  if (last.role === 'assistant') {
    const decisions = readDecisions(parts);
    if (decisions.length === 0) throw new ChatRequestError("The last message is the assistant's and answers no approval request.");
    return { kind: 'decisions', ...(chatId !== undefined && { chatId }), decisions };
  }
  throw new ChatRequestError(`The last message must come from the user or answer approvals; its role is ${JSON.stringify(last.role)}.`);
}

/** The approval responses among an assistant message's parts, checked one by one as they are read. */
function readDecisions(parts: Obj[]): ChatDecision[] {
  const decisions: ChatDecision[] = [];
  const decided = new Set<string>();
  for (const part of parts) {
    const isTool = part.type === 'dynamic-tool' || (typeof part.type === 'string' && part.type.startsWith('tool-'));
    if (!isTool || part.state !== 'approval-responded' || !isObject(part.approval) || typeof part.toolCallId !== 'string') continue;
    const call = part.toolCallId;
    const { id, approved, reason } = part.approval;
    if (typeof id !== 'string' || typeof approved !== 'boolean')
      throw new ChatRequestError(`The approval of tool call ${call} needs a string "id" and a boolean "approved".`);
    // indusagi's approval id is the call's id, or for a sub-agent's call the id of the call it sits in, then its own
    // (`call/inner`): a decision naming another call would act on a call the page never showed.
    if (id !== call && !id.startsWith(`${call}/`))
      throw new ChatRequestError(`The approval of tool call ${JSON.stringify(call)} names another call, ${JSON.stringify(id)}.`);
    if (decided.has(call)) throw new ChatRequestError(`Tool call ${JSON.stringify(call)} is decided twice.`);
    if (decisions.length === MAX_CHAT_DECISIONS)
      throw new ChatRequestError(`A request may carry at most ${MAX_CHAT_DECISIONS} decisions (MAX_CHAT_DECISIONS).`);
    decided.add(call);
    decisions.push({ approvalId: id, toolCallId: call, approved, ...(typeof reason === 'string' && reason !== '' && { reason }) });
  }
  return decisions;
}
