// A useChat page as a team writes one against the agent server: the chat id and token come from the
// address, the thread's messages from GET /chat/{id}/messages, and `resume: true` reconnects to a reply
// still running after a reload (GET /chat/{id}/stream). Every state it reaches is in the DOM.
import { useChat, type UIMessage } from '@ai-sdk/react';
import { DefaultChatTransport } from 'ai';
import { useState } from 'react';
import { createRoot } from 'react-dom/client';

const params = new URLSearchParams(location.hash.slice(1));
const chatId = params.get('chat')!;
const headers = { authorization: `Bearer ${params.get('token')}` };

function Chat({ initial }: { initial: UIMessage[] }) {
  const [input, setInput] = useState('');
  const { messages, sendMessage, status } = useChat({
    id: chatId,
    messages: initial,
    resume: true,
    transport: new DefaultChatTransport({
      api: '/chat',
      headers,
      // The server keeps the thread: the last message is all it reads.
      prepareSendMessagesRequest: ({ id, messages: all }) => ({ body: { id, messages: all.slice(-1) } }),
    }),
  });
  return (
    <main data-status={status}>
      {messages.map((message) => (
        <section key={message.id} data-role={message.role}>
          {message.parts.map((part, i) =>
            part.type === 'text' ? (
              <p key={i} data-part="text">
                {part.text}
              </p>
            ) : null,
          )}
        </section>
      ))}
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void sendMessage({ text: input });
          setInput('');
        }}
      >
        <input aria-label="Message" value={input} onChange={(event) => setInput(event.target.value)} />
        <button type="submit">Send</button>
      </form>
    </main>
  );
}

void fetch(`/chat/${encodeURIComponent(chatId)}/messages`, { headers })
  .then((response) => response.json() as Promise<{ messages: UIMessage[] }>)
  .then(({ messages }) => createRoot(document.getElementById('root')!).render(<Chat initial={messages} />));
