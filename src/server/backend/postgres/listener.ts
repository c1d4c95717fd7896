import type { ClientLike, PoolLike } from '../../../postgres/driver.js';

/** A pooled node-postgres client, as far as LISTEN needs it. */
type ListeningClient = ClientLike & {
  on(event: 'notification', listener: (message: { channel: string; payload?: string }) => void): unknown;
  on(event: 'error' | 'end', listener: (error?: Error) => void): unknown;
  removeAllListeners(event?: string): unknown;
};

const FIRST_RETRY_MS = 100;
const MAX_RETRY_MS = 5_000;

/**
 * One connection held for LISTEN, so this process hears what other processes NOTIFY (events stored,
 * runs canceled) the moment they commit. A dropped connection is made again with a growing pause;
 * notifications sent meanwhile are lost, so `reconnected` runs after every new LISTEN, for callers
 * to read again whatever they follow.
 */
export class PgListener {
  private client: ListeningClient | undefined;
  private closed = false;
  private retryMs = FIRST_RETRY_MS;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly pool: PoolLike,
    private readonly channels: readonly string[],
    private readonly notified: (channel: string, payload: string) => void,
    private readonly reconnected: () => void,
    private readonly log: (message: string, error: unknown) => void,
  ) {}

  /** Connects and listens; rejects when the first connection fails (the caller's setup is wrong). */
  async start(): Promise<void> {
    await this.connect();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    const client = this.client;
    this.client = undefined;
    if (client === undefined) return;
    client.removeAllListeners('notification');
    client.removeAllListeners('error');
    client.removeAllListeners('end');
    // The connection is dropped, not returned: it would come back still listening.
    client.release(true);
  }

  private async connect(): Promise<void> {
    const client = (await this.pool.connect()) as ListeningClient;
    if (this.closed) {
      client.release(true);
      return;
    }
    let dropped = false;
    let established = false;
    const drop = (error?: Error) => {
      if (dropped) return;
      dropped = true;
      client.removeAllListeners('notification');
      if (this.client === client) this.client = undefined;
      client.release(error ?? true);
      // Before LISTEN went through, the caller of connect hears of the failure and decides.
      if (established && !this.closed) {
        this.log('the LISTEN connection dropped; connecting again', error);
        this.retry();
      }
    };
    client.on('error', drop);
    client.on('end', drop);
    client.on('notification', (message) => this.notified(message.channel, message.payload ?? ''));
    try {
      for (const channel of this.channels) await client.query(`LISTEN "${channel}"`);
    } catch (error) {
      drop(error as Error);
      throw error;
    }
    this.client = client;
    established = true;
    this.retryMs = FIRST_RETRY_MS;
  }

  private retry(): void {
    this.timer = setTimeout(() => {
      this.connect().then(
        () => this.reconnected(),
        (error: unknown) => {
          this.log('connecting for LISTEN failed', error);
          this.retryMs = Math.min(this.retryMs * 2, MAX_RETRY_MS);
          if (!this.closed && this.client === undefined) this.retry();
        },
      );
    }, this.retryMs);
    this.timer.unref();
  }
}
