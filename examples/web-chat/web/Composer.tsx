import { useLayoutEffect, useRef, useState } from 'react';
import { Icon } from './icons.js';

const MAX_HEIGHT = 200;

/**
 * The message box: it grows with what is typed (up to a limit, then scrolls), Enter sends and
 * Shift+Enter starts a new line (Enter while an input method composes a character does neither).
 * While a reply streams, Send becomes Stop.
 */
export function Composer({
  busy,
  blocked,
  onSend,
  onStop,
}: {
  busy: boolean;
  /** Why nothing can be sent now (a call waits for a decision); null when it can. */
  blocked: string | null;
  onSend: (text: string) => void;
  onStop: () => void;
}) {
  const [text, setText] = useState('');
  const box = useRef<HTMLTextAreaElement>(null);
  useLayoutEffect(() => {
    const area = box.current;
    if (area === null) return;
    area.style.height = 'auto';
    area.style.height = `${Math.min(area.scrollHeight, MAX_HEIGHT)}px`;
  }, [text]);
  const canSend = !busy && blocked === null && text.trim() !== '';
  const send = () => {
    if (!canSend) return;
    onSend(text);
    setText('');
  };
  return (
    <form
      className="composer"
      onSubmit={(e) => {
        e.preventDefault();
        send();
      }}
    >
      <div className="composer-box">
        <textarea
          ref={box}
          aria-label="Message"
          aria-describedby="composer-hint"
          rows={1}
          value={text}
          placeholder="Message the assistant"
          onChange={(e) => setText(e.target.value)}
          onKeyDown={(e) => {
            if (e.key !== 'Enter' || e.shiftKey || e.nativeEvent.isComposing) return;
            e.preventDefault();
            send();
          }}
        />
        {busy ? (
          <button type="button" className="send" aria-label="Stop" title="Stop" onClick={onStop}>
            <Icon name="stop" />
          </button>
        ) : (
          <button type="submit" className="send" aria-label="Send" title="Send" disabled={!canSend}>
            <Icon name="send" />
          </button>
        )}
      </div>
      <p id="composer-hint" className="hint">
        {blocked ?? 'Enter to send, Shift+Enter for a new line'}
      </p>
    </form>
  );
}
