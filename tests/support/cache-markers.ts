// Reading request bodies the loopback server recorded: where the cache breakpoints are.

/** The path of every block carrying `cache_control`, in the API's prefix order: tools, system, messages. */
export function breakpoints(body: any): string[] {
  const found: string[] = [];
  (body.tools ?? []).forEach((tool: any, i: number) => tool.cache_control && found.push(`tools[${i}]`));
  if (Array.isArray(body.system)) body.system.forEach((block: any, i: number) => block.cache_control && found.push(`system[${i}]`));
  body.messages.forEach((message: any, m: number) => {
    if (Array.isArray(message.content)) {
      message.content.forEach((block: any, b: number) => block.cache_control && found.push(`messages[${m}].content[${b}]`));
    }
  });
  return found;
}

/** A deep copy without any `cache_control`, to compare what two requests said. */
export function withoutMarkers<T>(value: T): T {
  return JSON.parse(JSON.stringify(value ?? null, (key, v) => (key === 'cache_control' ? undefined : v)));
}
