import { describe, expect, it } from 'vitest';
import { ChatRequestError, MAX_CHAT_DECISIONS, readChatRequest } from '../../src/ui-message/index.js';

// What `readChatRequest` makes of the JSON body `useChat` posts, and what it refuses: a server hands
// the result straight to `uiMessageStreamResponse`, so anything it lets through runs on the agent.

const user = (text: string) => ({ id: 'u', role: 'user', parts: [{ type: 'text', text }] });

/** An assistant message whose tool parts answer approvals: `[toolCallId, approvalId, approved]` each. */
const answering = (calls: Array<[string, string, boolean]>) => ({
  id: 'a',
  role: 'assistant',
  parts: calls.map(([toolCallId, id, approved]) => ({
    type: 'dynamic-tool',
    toolName: 'files.write',
    toolCallId,
    state: 'approval-responded',
    input: {},
    approval: { id, approved },
  })),
});

function refusal(body: unknown): ChatRequestError {
  let error: unknown;
  try {
    readChatRequest(body);
  } catch (e) {
    error = e;
  }
  expect(ChatRequestError.isInstance(error)).toBe(true);
  expect(error).toMatchObject({ kind: 'invalid_chat_request', name: 'ChatRequestError' });
  return error as ChatRequestError;
}

describe('readChatRequest', () => {
  it('reads the last user message of a useChat body as the prompt, with the trigger that sent it', () => {
    expect(
      readChatRequest({
        id: 'chat',
        messages: [user('old'), { id: 'a', role: 'assistant', parts: [] }, user('new')],
        trigger: 'submit-message',
      }),
    ).toEqual({ kind: 'prompt', chatId: 'chat', text: 'new', trigger: 'submit-message' });
  });

  it('says when the prompt regenerates a reply or replaces an edited message, naming the message', () => {
    expect(readChatRequest({ id: 'c', messages: [user('again')], trigger: 'regenerate-message', messageId: 'reply-1' })).toEqual({
      kind: 'prompt',
      chatId: 'c',
      text: 'again',
      trigger: 'regenerate-message',
      messageId: 'reply-1',
    });
    expect(readChatRequest({ messages: [user('edited')], trigger: 'submit-message', messageId: 'prompt-1' })).toEqual({
      kind: 'prompt',
      text: 'edited',
      trigger: 'submit-message',
      messageId: 'prompt-1',
    });
  });

  it('reads answered approvals from the last assistant message as decisions', () => {
    const assistant = {
      id: 'a',
      role: 'assistant',
      parts: [
        { type: 'text', text: 'Writing.' },
        {
          type: 'dynamic-tool',
          toolName: 'files.write',
          toolCallId: 'w1',
          state: 'approval-responded',
          input: {},
          approval: { id: 'w1', approved: true },
        },
        {
          type: 'tool-files_write',
          toolCallId: 'w2',
          state: 'approval-responded',
          input: {},
          approval: { id: 'w2', approved: false, reason: 'no' },
        },
        { type: 'dynamic-tool', toolName: 'clock.now', toolCallId: 'c1', state: 'output-available', input: {}, output: 1 },
      ],
    };
    expect(readChatRequest({ messages: [user('write'), assistant] })).toEqual({
      kind: 'decisions',
      decisions: [
        { approvalId: 'w1', toolCallId: 'w1', approved: true },
        { approvalId: 'w2', toolCallId: 'w2', approved: false, reason: 'no' },
      ],
    });
  });

  it.each([
    ['not an object', 'hello'],
    ['no messages', { messages: [] }],
    ['a message without parts', { messages: [{ role: 'user', content: 'hi' }] }],
    ['an empty prompt', { messages: [user('  ')] }],
    ['an assistant message answering nothing', { messages: [{ role: 'assistant', parts: [{ type: 'text', text: 'x' }] }] }],
    ['a system message', { messages: [{ role: 'system', parts: [{ type: 'text', text: 'x' }] }] }],
    [
      'an approval without a decision',
      {
        messages: [
          { role: 'assistant', parts: [{ type: 'dynamic-tool', toolCallId: 'w', state: 'approval-responded', approval: { id: 'w' } }] },
        ],
      },
    ],
    ['a trigger useChat never sends', { messages: [user('hi')], trigger: 'delete-everything' }],
    ['a message id that is not a string', { messages: [user('hi')], messageId: 7 }],
    [
      'a regenerate request that does not end with the prompt to answer again',
      { messages: [answering([['w', 'w', true]])], trigger: 'regenerate-message' },
    ],
  ])('refuses %s with a ChatRequestError', (_, body) => {
    refusal(body);
  });

  // The approval id is what `approve` / `reject` act on, the tool call id what the page shows and the
  // stream marks denied: a decision naming one call in each would run a call the user never saw.
  it('refuses a decision whose approval id is not its tool call id, naming both', () => {
    const error = refusal({ messages: [answering([['shown_call', 'other_call', true]])] });
    expect(error.message).toContain('shown_call');
    expect(error.message).toContain('other_call');
  });

  it('takes a sub-agent call decided on the card of the call it sits in, and refuses one under another call', () => {
    // A sub-agent's approval id joins the call ids it sits under (docs/subagents.md): its first is the card's call.
    expect(readChatRequest({ messages: [answering([['shown_call', 'shown_call/inner_call', true]])] })).toMatchObject({
      kind: 'decisions',
      decisions: [{ approvalId: 'shown_call/inner_call', toolCallId: 'shown_call', approved: true }],
    });
    const error = refusal({ messages: [answering([['shown_call', 'other_call/inner_call', true]])] });
    expect(error.message).toContain('other_call/inner_call');
    // A prefix of the id that is not a whole call id is another call.
    refusal({ messages: [answering([['shown', 'shown_call/inner_call', true]])] });
  });

  it('refuses a call decided twice in one request', () => {
    const error = refusal({
      messages: [
        answering([
          ['w1', 'w1', true],
          ['w1', 'w1', false],
        ]),
      ],
    });
    expect(error.message).toContain('w1');
  });

  it(`takes up to MAX_CHAT_DECISIONS (${MAX_CHAT_DECISIONS}) decisions and refuses a request with more`, () => {
    const calls = (n: number) => Array.from({ length: n }, (_, i): [string, string, boolean] => [`w${i}`, `w${i}`, true]);
    const most = readChatRequest({ messages: [answering(calls(MAX_CHAT_DECISIONS))] });
    expect(most.kind === 'decisions' && most.decisions.length).toBe(MAX_CHAT_DECISIONS);
    const error = refusal({ messages: [answering(calls(MAX_CHAT_DECISIONS + 1))] });
    expect(error.message).toContain(String(MAX_CHAT_DECISIONS));
    refusal({ messages: [answering(calls(100_000))] });
  });
});
