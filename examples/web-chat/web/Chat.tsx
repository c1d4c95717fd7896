import { useLayoutEffect, useRef, useState } from 'react';
import { useAssistant } from 'indusagi/react';
import { chatStream, decision, type Thread } from './api.js';
import { Part } from './parts.js';

/** How close to the bottom (px) still counts as "at the bottom": the thread follows new text from there. */
const FOLLOW_SLACK = 48;

export function Chat({ thread, onTurnEnd }: { thread: Thread; onTurnEnd: () => void }) {
  const { items, input, setInput, busy, error, send, stop, follow } = useAssistant({
    stream: chatStream(thread.conversation),
    initialItems: thread.items,
    onDone: onTurnEnd,
  });
  const [stopped, setStopped] = useState(() => new Set(thread.stopped));
  // A failed turn is already shown through `error`; the rejection needs no second report.
  const quietly = (turn: Promise<void>) => void turn.catch(() => undefined);
  const decide = (approvalId: string, approved: boolean) => quietly(follow(decision(thread.conversation, approvalId, approved)));
  const halt = () => {
    const reply = items.length - 1;
    if (items[reply]?.role === 'assistant') setStopped((before) => new Set(before).add(reply));
    stop();
  };

  // Follow the reply as it grows, unless the user scrolled up to read: then leave the view alone
  // until they come back down (or send). Whether they were at the bottom is judged against the
  // height before this update, so no scroll event has to arrive first.
  const scroller = useRef<HTMLOListElement>(null);
  const lastHeight = useRef(0);
  const sending = useRef(true);
  useLayoutEffect(() => {
    const list = scroller.current;
    if (!list) return;
    const wasAtBottom = list.scrollTop + list.clientHeight >= lastHeight.current - FOLLOW_SLACK;
    if (sending.current || wasAtBottom) list.scrollTop = list.scrollHeight;
    sending.current = false;
    lastHeight.current = list.scrollHeight;
  }, [items]);

  return (
    <main>
      <header>
        <h1>indusagi web chat</h1>
      </header>
      {thread.problems.length > 0 && (
        <div className="notice" role="status" data-load-problems>
          <strong>Part of this conversation could not be read back.</strong>
          <ul>
            {thread.problems.map((problem) => (
              <li key={problem}>{problem}</li>
            ))}
          </ul>
        </div>
      )}
      <ol className="thread" ref={scroller}>
        {items.map((item, i) =>
          item.role === 'user' ? (
            <li key={i} className="user" data-role="user">
              {item.text}
            </li>
          ) : (
            <li key={i} className="reply" data-role="assistant">
              {item.parts.map((part, j) => (
                <Part key={part.type === 'tool' ? part.callId : j} part={part} busy={busy} decide={decide} />
              ))}
              {busy && i === items.length - 1 && !stopped.has(i) && <span className="typing" aria-label="Replying" />}
              {stopped.has(i) && (
                <p className="stopped" data-stopped>
                  Stopped
                </p>
              )}
            </li>
          ),
        )}
      </ol>
      {error !== undefined && (
        <p className="fault" role="alert">
          {(error as Error).message}
        </p>
      )}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          sending.current = true;
          quietly(send());
        }}
      >
        <input
          aria-label="Message"
          value={input}
          onChange={(e) => setInput(e.target.value)}
          placeholder="Try: list files · write hello to notes.txt"
        />
        {busy ? (
          <button type="button" onClick={halt}>
            Stop
          </button>
        ) : (
          <button type="submit">Send</button>
        )}
      </form>
    </main>
  );
}
