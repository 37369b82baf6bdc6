/**
 * The webview end of the protocol: requests get an id and a promise settled by the matching
 * response; host notifications go to one handler. The ready notification is sent only once the
 * message listener is in place, so the host's first `show` cannot be lost.
 */
import {
  PROTOCOL_VERSION,
  type ErrorView,
  type HostNotifications,
  type HostToWebview,
  type NotificationMessage,
  type RequestMethod,
  type Requests,
  type WebviewToHost,
} from './protocol';

export interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}

declare global {
  function acquireVsCodeApi(): VsCodeApi;
}

/** A request the host answered with an error: the engine's code, message and details. */
export class HostError extends Error {
  readonly code: string;
  readonly details: Record<string, unknown>;

  constructor(view: ErrorView) {
    super(view.message);
    this.code = view.code;
    this.details = view.details ?? {};
  }
}

type Pending = { resolve(value: unknown): void; reject(error: unknown): void };

export class HostConnection {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();

  constructor(
    private readonly api: VsCodeApi,
    private readonly onNotification: (message: NotificationMessage<HostNotifications>) => void,
  ) {
    window.addEventListener('message', (event: MessageEvent) => this.receive(event.data));
  }

  start(): void {
    this.post({ type: 'notification', method: 'ready', params: { protocolVersion: PROTOCOL_VERSION } });
  }

  request<M extends RequestMethod>(method: M, params: Requests[M]['params']): Promise<Requests[M]['result']> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve: resolve, reject });
      this.post({ type: 'request', id, method, params } as WebviewToHost);
    });
  }

  private post(message: WebviewToHost): void {
    this.api.postMessage(message);
  }

  private receive(data: unknown): void {
    if (typeof data !== 'object' || data === null) return;
    const message = data as HostToWebview;
    if (message.type === 'response') {
      const waiting = this.pending.get(message.id);
      if (!waiting) return;
      this.pending.delete(message.id);
      if (message.ok) waiting.resolve(message.result);
      else waiting.reject(new HostError(message.error));
    } else if (message.type === 'notification') {
      this.onNotification(message);
    }
  }
}
