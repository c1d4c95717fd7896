import type { ComponentType } from 'react';
import Markdown from 'react-markdown';
import type { AgentPart, AgentToolPart } from 'indusagi';

type Decide = (approvalId: string, approved: boolean) => void;
type ToolProps = { part: AgentToolPart; busy: boolean; decide: Decide };

export function Part({ part, busy, decide }: { part: AgentPart; busy: boolean; decide: Decide }) {
  // Model text is markdown. react-markdown builds React elements and drops raw HTML, so a reply
  // quoting `<img onerror=...>` from a file shows nothing of it, and no innerHTML is ever set.
  if (part.type === 'text')
    return (
      <div className="text">
        <Markdown>{part.text}</Markdown>
      </div>
    );
  if (part.type !== 'tool') return null;
  const Card = TOOL_CARDS[part.name] ?? GenericCard;
  const state = part.approvalId !== undefined ? 'waiting' : part.isError ? 'failed' : 'done';
  return (
    <div className={`tool ${state}`} data-tool={part.name} data-call={part.callId} data-state={state}>
      <span className="state">{STATE_LABELS[state]}</span>
      <Card part={part} busy={busy} decide={decide} />
    </div>
  );
}

const STATE_LABELS = { waiting: 'needs your approval', failed: 'failed', done: 'done' } as const;

const input = (part: AgentToolPart) => (part.input ?? {}) as Record<string, string>;
const resultText = (part: AgentToolPart) => (typeof part.result === 'string' ? part.result : JSON.stringify(part.result, null, 2));

function WriteCard({ part, busy, decide }: ToolProps) {
  const { path, content } = input(part);
  if (part.approvalId !== undefined) {
    const id = part.approvalId;
    return (
      <>
        <strong>Write {path}?</strong>
        <pre>{content}</pre>
        <button disabled={busy} onClick={() => decide(id, true)}>
          Approve
        </button>
        <button disabled={busy} onClick={() => decide(id, false)}>
          Reject
        </button>
      </>
    );
  }
  return (
    <span data-outcome={part.isError ? 'rejected' : 'written'}>{part.isError ? `Not written: ${resultText(part)}` : resultText(part)}</span>
  );
}

function ListCard({ part }: ToolProps) {
  return (
    <>
      <strong>Files in {input(part).path}</strong>
      <pre>{resultText(part)}</pre>
    </>
  );
}

function ReadCard({ part }: ToolProps) {
  return (
    <>
      <strong>{input(part).path}</strong>
      <pre>{resultText(part)}</pre>
    </>
  );
}

function GenericCard({ part }: ToolProps) {
  return (
    <>
      <strong>{part.name}</strong>
      <pre>{resultText(part)}</pre>
    </>
  );
}

/** Generative UI: one small component per tool name; anything else gets the generic card. */
const TOOL_CARDS: Record<string, ComponentType<ToolProps>> = {
  'files.write': WriteCard,
  'files.list': ListCard,
  'files.read': ReadCard,
};
