import { useAssistant } from '../../../src/react/index.js';
import type { AssistantItem } from '../../../src/react/index.js';
import { chatStream, decision } from './api.js';
import { Part } from './parts.js';

export function Chat({ initialItems }: { initialItems: AssistantItem[] }) {
  const { items, input, setInput, busy, error, send, stop, follow } = useAssistant({ stream: chatStream, initialItems });
  // A failed turn is already shown through `error`; the rejection needs no second report.
  const quietly = (turn: Promise<void>) => void turn.catch(() => undefined);
  const decide = (approvalId: string, approved: boolean) => quietly(follow(decision(approvalId, approved)));

  return (
    <main>
      <h1>indusagi web chat</h1>
      <ol className="thread">
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
            </li>
          ),
        )}
      </ol>
      {error !== undefined && <p className="fault" role="alert">{(error as Error).message}</p>}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          quietly(send());
        }}
      >
        <input aria-label="Message" value={input} onChange={(e) => setInput(e.target.value)} placeholder="Try: list files · write hello to notes.txt" />
        {busy ? (
          <button type="button" onClick={stop}>
            Stop
          </button>
        ) : (
          <button type="submit">Send</button>
        )}
      </form>
    </main>
  );
}
