import { useLayoutEffect, useMemo, useRef, useState } from 'react';
import { useChat } from '@ai-sdk/react';
import { lastAssistantMessageIsCompleteWithApprovalResponses } from 'ai';
import { chatTransport, nameConversation, reloadThread, showVersion, stopReply, type ChatMessage, type Thread } from './api.js';
import { Composer } from './Composer.js';
import { AssistantMessage, UserMessage, type MessageActions } from './Message.js';
import { keepAgentParts } from './tools.js';

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
 * One conversation: `useChat` over the agent server's UI message stream, resumed after a reload
 * (`resume`: a reply still being written on the server carries on). Once a reply ends, the thread is
 * read back from the server, which knows the session node behind each message: that is what edit,
 * regenerate and the version arrows act on. A reply the user stopped stays as far as it was shown.
 */
export function Chat({ thread, onTurnEnd }: { thread: Thread; onTurnEnd: () => void }) {
  const [problems, setProblems] = useState(thread.problems);
  const [stopping, setStopping] = useState(false);
  const [actionError, setActionError] = useState<string | null>(null);
  const transport = useMemo(() => chatTransport(), []);
  // useChat keeps the callbacks it was created with: they reach the current ones through this.
  const latest = useRef({ resync: (_afterStop?: boolean) => {}, stopped: () => {} });
  const { messages, setMessages, sendMessage, regenerate, addToolApprovalResponse, status, error, stop } = useChat<ChatMessage>({
    id: thread.conversation,
    messages: thread.messages,
    transport,
    resume: true,
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
    onFinish: ({ isAbort }) => (isAbort ? latest.current.stopped() : latest.current.resync()),
  });
  const busy = status === 'submitted' || status === 'streaming' || stopping;
  // Counts what the page asked of the chat (a prompt, an edit, a regenerate, a decision): a thread read
  // back for an earlier turn must not overwrite a later one.
  const asked = useRef(0);
  const live = useRef(busy);
  live.current = busy;

  const apply = (fresh: Thread) => {
    setMessages((shown) => keepAgentParts(shown, fresh.messages));
    setProblems(fresh.problems);
  };
  // A reply cut off mid-text: marked at once as far as it was shown; once its run has ended on the
  // server (halt), the thread is read back, where the server keeps it, marked stopped, from the run's events.
  latest.current.stopped = () => {
    setMessages((shown) => {
      const last = shown.at(-1);
      if (last?.role !== 'assistant') return shown;
      return [...shown.slice(0, -1), { ...last, metadata: { ...last.metadata, stopped: true } }];
    });
    onTurnEnd();
  };
  latest.current.resync = (afterStop = false) => {
    const turn = asked.current;
    reloadThread(thread.conversation).then(
      (fresh) => {
        // After a stop, `stopping` may not have rendered yet: nothing else was asked since (`turn`).
        if (asked.current === turn && (afterStop || !live.current)) apply(fresh);
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
      edit: settled && message.role === 'user' ? (text) => quietly(() => sendMessage({ text, messageId: message.id })) : undefined,
      // A stopped reply has no node of its own: the server answers the last prompt again.
      regenerate:
        !busy && index === lastReply && (settled || message.metadata?.stopped)
          ? () => quietly(() => regenerate(message.metadata?.stopped ? {} : { messageId: message.id }))
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
    // A conversation's first prompt makes its thread, named after it.
    const first = messages.length === 0;
    quietly(async () => {
      if (first) await nameConversation(thread.conversation, text);
      await sendMessage({ text });
    });
  };
  const halt = () => {
    setStopping(true);
    void stop();
    stopReply(thread.conversation)
      .then(
        () => latest.current.resync(true),
        (failure: unknown) => setActionError(`Stopping the reply failed: ${(failure as Error).message}`),
      )
      .finally(() => setStopping(false));
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
      <Composer busy={busy} blocked={waiting && !busy ? 'Approve or reject the call above to go on.' : null} onSend={send} onStop={halt} />
    </>
  );
}
