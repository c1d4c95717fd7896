import type { ComponentType } from 'react';
import type { DynamicToolUIPart } from 'ai';

export type Decide = (approvalId: string, approved: boolean) => void;
type CardProps = { part: DynamicToolUIPart; busy: boolean; decide: Decide };

/** How a card reads each state a call goes through, from the moment it starts running. */
const STATES = {
  'input-streaming': { state: 'running', label: 'Running…' },
  'input-available': { state: 'running', label: 'Running…' },
  'approval-requested': { state: 'waiting', label: 'Needs your approval' },
  'approval-responded': { state: 'running', label: 'Running…' },
  'output-available': { state: 'done', label: 'Done' },
  'output-error': { state: 'failed', label: 'Failed' },
  'output-denied': { state: 'rejected', label: 'Rejected' },
} as const;

/**
 * A tool call as a card, shown from the moment the call starts (running) to its end (done, failed,
 * rejected), or waiting for Approve / Reject. Generative UI: one small component per tool name gives
 * the card its body; anything else gets the generic one.
 */
export function ToolCard({ part, busy, decide }: CardProps) {
  const denied = part.state === 'approval-responded' && part.approval.approved === false;
  const { state, label } = denied ? { state: 'rejected', label: 'Rejected' } : STATES[part.state];
  const Body = CARDS[part.toolName] ?? GenericCard;
  return (
    <div className={`tool ${state}`} data-tool={part.toolName} data-call={part.toolCallId} data-state={state}>
      <div className="tool-head">
        <span className="tool-name">{part.toolName}</span>
        <span className="tool-state">
          {state === 'running' && <span className="spinner" aria-hidden="true" />}
          {label}
        </span>
      </div>
      <Body part={part} busy={busy} decide={decide} />
      {/* Sub-agents (issue 29) will stream their own calls under the call that started them: their cards nest here, inside this one. */}
    </div>
  );
}

const input = (part: DynamicToolUIPart) => (part.input ?? {}) as Record<string, string>;

/** What the call returned, as text: the tool's value live, the text the model was sent after a reload. */
function resultText(part: DynamicToolUIPart): string | null {
  if (part.state === 'output-error') return part.errorText;
  if (part.state !== 'output-available') return null;
  return typeof part.output === 'string' ? part.output : JSON.stringify(part.output, null, 2);
}

/** The output, folded: a long listing would push the conversation out of view. */
function Output({ part, open = false }: { part: DynamicToolUIPart; open?: boolean }) {
  const text = resultText(part);
  if (text === null) return null;
  return (
    <details className="tool-output" open={open || part.state === 'output-error'}>
      <summary>{part.state === 'output-error' ? 'Error' : 'Output'}</summary>
      <pre tabIndex={0}>{text}</pre>
    </details>
  );
}

function WriteCard({ part, busy, decide }: CardProps) {
  const { path, content } = input(part);
  if (part.state === 'approval-requested') {
    const id = part.approval.id;
    return (
      <>
        <p className="tool-title">
          Write <code>{path}</code>?
        </p>
        <pre tabIndex={0}>{content}</pre>
        <div className="tool-actions">
          <button type="button" className="primary" disabled={busy} onClick={() => decide(id, true)}>
            Approve
          </button>
          <button type="button" disabled={busy} onClick={() => decide(id, false)}>
            Reject
          </button>
        </div>
      </>
    );
  }
  const outcome =
    part.state === 'output-available' ? 'written' : part.state === 'output-error' || part.state === 'output-denied' ? 'rejected' : null;
  return (
    <>
      <p className="tool-title">
        Write <code>{path}</code>
      </p>
      {outcome !== null && (
        <p className="tool-outcome" data-outcome={outcome}>
          {outcome === 'written'
            ? resultText(part)
            : `Not written: ${part.state === 'output-denied' ? 'you rejected it.' : resultText(part)}`}
        </p>
      )}
    </>
  );
}

function ListCard({ part }: CardProps) {
  return (
    <>
      <p className="tool-title">
        Files in <code>{input(part).path}</code>
      </p>
      <Output part={part} open />
    </>
  );
}

function ReadCard({ part }: CardProps) {
  return (
    <>
      <p className="tool-title">
        Read <code>{input(part).path}</code>
      </p>
      <Output part={part} />
    </>
  );
}

function GenericCard({ part }: CardProps) {
  const fields = Object.entries((part.input ?? {}) as Record<string, unknown>);
  return (
    <>
      {fields.length > 0 && (
        <dl className="tool-input">
          {fields.map(([name, value]) => (
            <div key={name}>
              <dt>{name}</dt>
              <dd>{typeof value === 'string' ? value : JSON.stringify(value)}</dd>
            </div>
          ))}
        </dl>
      )}
      <Output part={part} open />
    </>
  );
}

const CARDS: Record<string, ComponentType<CardProps>> = {
  'files.write': WriteCard,
  'files.list': ListCard,
  'files.read': ReadCard,
};
