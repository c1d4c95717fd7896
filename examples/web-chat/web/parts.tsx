import type { ComponentType } from 'react';
import type { AgentPart, AgentToolPart } from '../../../src/parts/index.js';

type Decide = (approvalId: string, approved: boolean) => void;
type ToolProps = { part: AgentToolPart; busy: boolean; decide: Decide };

export function Part({ part, busy, decide }: { part: AgentPart; busy: boolean; decide: Decide }) {
  if (part.type === 'text') return <p>{part.text}</p>;
  if (part.type !== 'tool') return null;
  const Card = TOOL_CARDS[part.name] ?? GenericCard;
  return (
    <div className={part.isError ? 'tool error' : 'tool'} data-tool={part.name} data-call={part.callId}>
      <Card part={part} busy={busy} decide={decide} />
    </div>
  );
}

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
    <span data-outcome={part.isError ? 'rejected' : 'written'}>
      {part.isError ? `Not written: ${resultText(part)}` : resultText(part)}
    </span>
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
