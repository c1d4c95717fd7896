// A bare useChat page, as a team using the AI SDK writes one: the real `@ai-sdk/react` hook and its
// default transport, posting to the indusagi server under test. Every state it reaches is in the DOM.
import { useChat } from '@ai-sdk/react';
import { lastAssistantMessageIsCompleteWithApprovalResponses } from 'ai';
import { useState } from 'react';
import { createRoot } from 'react-dom/client';

function Chat() {
  const [input, setInput] = useState('');
  const { messages, sendMessage, addToolApprovalResponse, status, error, stop } = useChat({
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
  });
  return (
    <main data-status={status}>
      {messages.map((message) => (
        <section key={message.id} data-role={message.role}>
          {message.parts.map((part, i) => {
            if (part.type === 'text')
              return (
                <p key={i} data-part="text">
                  {part.text}
                </p>
              );
            if (part.type === 'data-guardrail') {
              const trip = part.data as { guardrail: string; message: string };
              return (
                <p key={i} data-part="guardrail">
                  Stopped by {trip.guardrail}: {trip.message}
                </p>
              );
            }
            if (part.type !== 'dynamic-tool') return null;
            return (
              <div key={i} data-part="tool" data-tool={part.toolName} data-state={part.state}>
                <code>{JSON.stringify(part.input)}</code>
                {part.state === 'output-available' && <output>{JSON.stringify(part.output)}</output>}
                {part.state === 'output-error' && <output data-error-text>{part.errorText}</output>}
                {part.state === 'approval-requested' && (
                  <>
                    <button onClick={() => addToolApprovalResponse({ id: part.approval.id, approved: true })}>Approve</button>
                    <button onClick={() => addToolApprovalResponse({ id: part.approval.id, approved: false, reason: 'not today' })}>
                      Deny
                    </button>
                  </>
                )}
              </div>
            );
          })}
        </section>
      ))}
      {error && <p role="alert">{error.message}</p>}
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void sendMessage({ text: input });
          setInput('');
        }}
      >
        <input aria-label="Message" value={input} onChange={(event) => setInput(event.target.value)} />
        <button type="submit">Send</button>
        <button type="button" onClick={() => void stop()}>
          Stop
        </button>
      </form>
    </main>
  );
}

createRoot(document.getElementById('root')!).render(<Chat />);
