/** One server-sent event of a streaming model API: its `event:` name and `data:` JSON. */
export type WireEvent = { event: string; data: Record<string, unknown> };

/** An SSE frame exactly as it goes on the wire. */
export function encodeFrame(event: WireEvent): string {
  return `event: ${event.event}\ndata: ${JSON.stringify(event.data)}\n\n`;
}
