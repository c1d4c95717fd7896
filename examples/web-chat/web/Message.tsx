import { useState } from 'react';
import type { ChatMessage } from './api.js';
import { CopyButton } from './copy.js';
import { Icon } from './icons.js';
import { MarkdownText } from './markdown.js';
import { agentParts, ToolCard, type Decide } from './tools.js';

/** What a message can ask of the conversation; each is absent where it cannot be done now. */
export type MessageActions = {
  decide: Decide;
  /** Sends an edited version of this prompt (the conversation branches before it). */
  edit?: (text: string) => void;
  /** Answers this reply's prompt again. */
  regenerate?: () => void;
  /** Shows another version of this message. */
  showVersion?: (id: string) => void;
};

/** Marks a message the server sent (it has the server's metadata, the node behind it), not one still streaming. */
const synced = (message: ChatMessage) =>
  message.metadata === undefined
    ? {}
    : { 'data-synced': '', ...(message.metadata.node !== undefined && { 'data-node': message.metadata.node }) };

const textOf = (message: ChatMessage) =>
  message.parts
    .flatMap((part) => (part.type === 'text' ? [part.text] : []))
    .join('\n\n')
    .trim();

export function UserMessage({ message, actions }: { message: ChatMessage; actions: MessageActions }) {
  const [editing, setEditing] = useState<string | null>(null);
  const text = textOf(message);
  if (editing !== null && actions.edit !== undefined) {
    const send = () => {
      if (editing.trim() === '') return;
      setEditing(null);
      actions.edit!(editing);
    };
    return (
      <li className="message user editing" data-role="user">
        <form
          className="edit"
          onSubmit={(e) => {
            e.preventDefault();
            send();
          }}
        >
          <textarea
            aria-label="Edit message"
            value={editing}
            rows={Math.min(8, editing.split('\n').length + 1)}
            autoFocus
            onChange={(e) => setEditing(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Escape') setEditing(null);
              if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
                e.preventDefault();
                send();
              }
            }}
          />
          <div className="edit-actions">
            <button type="button" onClick={() => setEditing(null)}>
              Cancel
            </button>
            <button type="submit" className="primary" disabled={editing.trim() === ''}>
              Save and send
            </button>
          </div>
        </form>
      </li>
    );
  }
  return (
    <li className="message user" data-role="user" {...synced(message)}>
      <div className="bubble">{text}</div>
      <div className="actions">
        <Versions message={message} show={actions.showVersion} />
        <CopyButton text={text} label="Copy message" compact />
        {actions.edit !== undefined && (
          <button type="button" className="icon-button" aria-label="Edit message" title="Edit message" onClick={() => setEditing(text)}>
            <Icon name="edit" />
          </button>
        )}
      </div>
    </li>
  );
}

export function AssistantMessage({
  message,
  actions,
  busy,
  replying,
}: {
  message: ChatMessage;
  actions: MessageActions;
  busy: boolean;
  /** This reply is still streaming. */
  replying: boolean;
}) {
  const text = textOf(message);
  const nested = agentParts(message);
  return (
    <li className="message assistant" data-role="assistant" aria-busy={replying || undefined} {...synced(message)}>
      {message.parts.map((part, i) => {
        if (part.type === 'text') return <MarkdownText key={i} text={part.text} />;
        // indusagi streams every call as a dynamic tool (the page knows no tool types at build time).
        if (part.type === 'dynamic-tool')
          return <ToolCard key={part.toolCallId} part={part} busy={busy} decide={actions.decide} nested={nested} />;
        // A sub-agent's parts show inside the card of the call that started it (above), not here.
        return null;
      })}
      {replying && message.parts.every((part) => part.type === 'step-start') && <p className="thinking">Thinking…</p>}
      {message.metadata?.stopped === true && (
        <p className="stopped" data-stopped>
          Stopped
        </p>
      )}
      {!replying && (
        <div className="actions">
          <Versions message={message} show={actions.showVersion} />
          {text !== '' && <CopyButton text={text} label="Copy reply" compact />}
          {actions.regenerate !== undefined && (
            <button
              type="button"
              className="icon-button"
              aria-label="Regenerate reply"
              title="Regenerate reply"
              onClick={actions.regenerate}
            >
              <Icon name="regenerate" />
            </button>
          )}
        </div>
      )}
    </li>
  );
}

/** "‹ 2 / 3 ›" between a message's versions: edits of a prompt, regenerated replies. */
function Versions({ message, show }: { message: ChatMessage; show: ((id: string) => void) | undefined }) {
  const versions = message.metadata?.versions;
  if (versions === undefined) return null;
  const { index, ids } = versions;
  return (
    <div className="versions" role="group" aria-label="Versions">
      <button
        type="button"
        className="icon-button"
        aria-label="Previous version"
        disabled={show === undefined || index === 0}
        onClick={() => show?.(ids[index - 1])}
      >
        <Icon name="previous" />
      </button>
      <span>
        {index + 1} / {ids.length}
      </span>
      <button
        type="button"
        className="icon-button"
        aria-label="Next version"
        disabled={show === undefined || index === ids.length - 1}
        onClick={() => show?.(ids[index + 1])}
      >
        <Icon name="next" />
      </button>
    </div>
  );
}
