import { useLayoutEffect, useMemo, useRef, useState } from 'react';
import { useChat } from '@ai-sdk/react';
import { lastAssistantMessageIsCompleteWithApprovalResponses } from 'ai';
import { chatTransport, reloadThread, showVersion, type ChatMessage, type Thread } from './api.js';
import { Composer } from './Composer.js';
import { AssistantMessage, UserMessage, type MessageActions } from './Message.js';

/** How close to the bottom (px) still counts as "at the bottom": the thread follows new text from there. */
const FOLLOW_SLACK = 48;

/** What the empty state offers to ask; the offline demo model acts on each. */
const SUGGESTIONS = [
  { title: 'List the files', detail: 'in the workspace', prompt: 'list files' },
  { title: 'Write a file', detail: 'after you approve it', prompt: 'write hello to notes.txt' },
  { title: 'Remember something', detail: 'for your later conversations', prompt: 'remember that my cat is called Tom' },
  { title: 'Tell me a long story', detail: 'streamed, so you can stop it', prompt: 'tell me a long story' },
];

/**
 * One conversation: `useChat` over the server's UI message stream. Once a reply ends, however it
 * ends, the thread is read back from the server, which knows the session node behind each message:
 * that is what copy, edit, regenerate and the version arrows act on.
 */
export function Chat({ thread, onTurnEnd }: { thread: Thread; onTurnEnd: () => void }) {
  const [problems, setProblems] = useState(thread.problems);
  const [actionError, setActionError] = useState<string | null>(null);
  const transport = useMemo(() => chatTransport(), []);
  // useChat keeps the callbacks it was created with: they reach the current ones through this.
  const latest = useRef({ resync: () => {} });
  const { messages, setMessages, sendMessage, regenerate, addToolApprovalResponse, status, error, stop } = useChat<ChatMessage>({
    id: thread.conversation,
    messages: thread.messages,
    transport,
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
    onFinish: () => latest.current.resync(),
  });
  const busy = status === 'submitted' || status === 'streaming';
  // Counts what the page asked of the chat (a prompt, an edit, a regenerate, a decision): a thread read
  // back for an earlier turn must not overwrite a later one.
  const asked = useRef(0);
  const live = useRef(busy);
  live.current = busy;

  const apply = (fresh: Thread) => {
    setMessages(fresh.messages);
    setProblems(fresh.problems);
  };
  latest.current.resync = () => {
    const turn = asked.current;
    reloadThread(thread.conversation).then(
      (fresh) => {
        if (asked.current === turn && !live.current) apply(fresh);
        onTurnEnd();
      },
      (failure: unknown) => setActionError(`Reading the conversation back failed: ${(failure as Error).message}`),
    );
  };
  // A failed turn is shown through `error`; the rejection needs no second report.
  const quietly = (turn: () => void | PromiseLike<void>) => {
    asked.current += 1;
    setActionError(null);
    void Promise.resolve(turn()).catch(() => undefined);
  };
  const act = (what: () => Promise<void>) => {
    asked.current += 1;
    setActionError(null);
    what().catch((failure: unknown) => setActionError((failure as Error).message));
  };

  const lastReply = messages.findLastIndex((message) => message.role === 'assistant');
  const waiting = messages.some((message) =>
    message.parts.some((part) => part.type === 'dynamic-tool' && part.state === 'approval-requested'),
  );
  const actionsFor = (message: ChatMessage, index: number): MessageActions => {
    const settled = !busy && message.metadata?.node !== undefined;
    return {
      decide: (id, approved) =>
        quietly(() => addToolApprovalResponse({ id, approved, ...(!approved && { reason: 'Rejected on the page.' }) })),
      edit: settled && message.metadata?.editable ? (text) => quietly(() => sendMessage({ text, messageId: message.id })) : undefined,
      regenerate:
        !busy && index === lastReply && (settled || message.metadata?.stopped)
          ? () => quietly(() => regenerate({ messageId: message.id }))
          : undefined,
      showVersion: settled ? (id) => act(() => showVersion(thread.conversation, id).then(apply)) : undefined,
    };
  };

  // Follow the reply as it grows, unless the user scrolled up to read: then leave the view alone
  // until they come back down (or send). Whether they were at the bottom is judged against the
  // height before this update, so no scroll event has to arrive first.
  const scroller = useRef<HTMLDivElement>(null);
  const lastHeight = useRef(0);
  const sending = useRef(true);
  useLayoutEffect(() => {
    const view = scroller.current;
    if (!view) return;
    const wasAtBottom = view.scrollTop + view.clientHeight >= lastHeight.current - FOLLOW_SLACK;
    if (sending.current || wasAtBottom) view.scrollTop = view.scrollHeight;
    sending.current = false;
    lastHeight.current = view.scrollHeight;
  }, [messages]);

  const send = (text: string) => {
    sending.current = true;
    quietly(() => sendMessage({ text }));
  };
  const replying = status === 'submitted' ? messages.length : status === 'streaming' ? messages.length - 1 : -1;

  return (
    <>
      <div className="scroller" ref={scroller}>
        <div className="column">
          {problems.length > 0 && (
            <div className="notice" role="status" data-load-problems>
              <strong>Part of this conversation could not be read back.</strong>
              <ul>
                {problems.map((problem) => (
                  <li key={problem}>{problem}</li>
                ))}
              </ul>
            </div>
          )}
          {messages.length === 0 ? (
            <section className="empty" aria-labelledby="empty-title">
              <h2 id="empty-title">What can I help with?</h2>
              <div className="suggestions">
                {SUGGESTIONS.map(({ title, detail, prompt }) => (
                  <button key={prompt} type="button" className="suggestion" onClick={() => send(prompt)}>
                    <strong>{title}</strong>
                    <span>{detail}</span>
                  </button>
                ))}
              </div>
            </section>
          ) : (
            <ol className="thread" aria-label="Messages">
              {messages.map((message, i) =>
                message.role === 'user' ? (
                  <UserMessage key={message.id} message={message} actions={actionsFor(message, i)} />
                ) : (
                  <AssistantMessage
                    key={message.id}
                    message={message}
                    actions={actionsFor(message, i)}
                    busy={busy}
                    replying={i === replying}
                  />
                ),
              )}
              {status === 'submitted' && messages.at(-1)?.role === 'user' && (
                <li className="message assistant" data-role="pending" aria-busy="true">
                  <p className="thinking">Thinking…</p>
                </li>
              )}
            </ol>
          )}
          {(error !== undefined || actionError !== null) && (
            <p className="fault" role="alert">
              {actionError ?? error!.message}
            </p>
          )}
        </div>
      </div>
      <Composer
        busy={busy}
        blocked={waiting && !busy ? 'Approve or reject the call above to go on.' : null}
        onSend={send}
        onStop={() => void stop()}
      />
    </>
  );
}
