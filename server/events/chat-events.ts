import { EventEmitter } from 'node:events';

// The one place that announces chat changes inside the server (stored messages, changed
// statuses), so live views can update. Producers call notify*; listeners subscribe.

export type TChatEvent =
  | { kind: 'message'; id: number; clientId: number | null; peerPhone: string | null }
  | { kind: 'status'; id: number; status: string; clientId: number | null; peerPhone: string | null };

export class ChatEvents {
  private readonly emitter = new EventEmitter();

  constructor() {
    // Every open live view is a listener; the default limit of 10 would warn on a busy day.
    this.emitter.setMaxListeners(0);
  }

  notify(events: TChatEvent[]): void {
    for (const event of events) this.emitter.emit('chat', event);
  }

  subscribe(listener: (event: TChatEvent) => void): () => void {
    this.emitter.on('chat', listener);
    return () => this.emitter.off('chat', listener);
  }
}
