import { IndusagiError } from '../errors/index.js';

/** A `useChat` request body that says neither a prompt nor approval decisions. */
export class ChatRequestError extends IndusagiError {
  static override readonly errorName: string = 'ChatRequestError';
  constructor(message: string) {
    super('invalid_chat_request', message);
  }
}

/** A decision the user made with `addToolApprovalResponse`. `approvalId` is the call's id. */
export type ChatDecision = { approvalId: string; toolCallId: string; approved: boolean; reason?: string };

/**
 * What one `useChat` request asks for. The page sends the whole thread every time, but the agent's
 * session already holds it: only the last message matters. A user message is a new prompt; an
 * assistant message carrying approval responses (after `addToolApprovalResponse`) is a set of decisions.
 */
export type ChatRequest =
  { kind: 'prompt'; chatId?: string; text: string } | { kind: 'decisions'; chatId?: string; decisions: ChatDecision[] };

type Obj = Record<string, unknown>;
const isObject = (value: unknown): value is Obj => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Reads the JSON body `useChat`'s default transport posts (`{ id, messages, trigger, messageId }`).
 * Throws `ChatRequestError` for anything else: no messages, a last message that is neither a user
 * message with text nor an assistant message with answered approvals.
 */
export function readChatRequest(body: unknown): ChatRequest {
  if (!isObject(body) || !Array.isArray(body.messages) || body.messages.length === 0) {
    throw new ChatRequestError('The body must be a useChat request: an object with a non-empty "messages" array.');
  }
  const chatId = typeof body.id === 'string' ? body.id : undefined;
  const last: unknown = body.messages[body.messages.length - 1];
  if (!isObject(last) || !Array.isArray(last.parts)) throw new ChatRequestError('The last message must be an object with a "parts" array.');
  const parts = last.parts.filter(isObject);
  if (last.role === 'user') {
    const text = parts.flatMap((part) => (part.type === 'text' && typeof part.text === 'string' ? [part.text] : [])).join('');
    if (text.trim() === '') throw new ChatRequestError('The last user message has no text.');
    return { kind: 'prompt', ...(chatId !== undefined && { chatId }), text };
  }
  if (last.role === 'assistant') {
    const decisions: ChatDecision[] = [];
    for (const part of parts) {
      const isTool = part.type === 'dynamic-tool' || (typeof part.type === 'string' && part.type.startsWith('tool-'));
      if (!isTool || part.state !== 'approval-responded' || !isObject(part.approval) || typeof part.toolCallId !== 'string') continue;
      const { id, approved, reason } = part.approval;
      if (typeof id !== 'string' || typeof approved !== 'boolean')
        throw new ChatRequestError(`The approval of tool call ${part.toolCallId} needs a string "id" and a boolean "approved".`);
      decisions.push({
        approvalId: id,
        toolCallId: part.toolCallId,
        approved,
        ...(typeof reason === 'string' && reason !== '' && { reason }),
      });
    }
    if (decisions.length === 0) throw new ChatRequestError("The last message is the assistant's and answers no approval request.");
    return { kind: 'decisions', ...(chatId !== undefined && { chatId }), decisions };
  }
  throw new ChatRequestError(`The last message must come from the user or answer approvals; its role is ${JSON.stringify(last.role)}.`);
}
