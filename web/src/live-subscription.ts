/**
 * One subscription over /ws/client/v1 (an environment's deploys, an organization's servers):
 * open the socket, subscribe, hand each frame of that subscription to `onFrame`, and report the
 * connection. Nothing is polled; a dropped socket reconnects with backoff and subscribes again,
 * and the server answers with a fresh snapshot (`subscribed`), which replaces the caller's state.
 */
export type LiveConnection = 'connecting' | 'live' | 'reconnecting' | 'refused';

/**
 * What is subscribed to: `{ environmentId }` or `{ organizationId }`, or a topic with its id
 * (`{ topic: 'logs', serviceId, tail }`). Frames carry the same keys (options such as `tail` aside).
 */
export type Subscription = { environmentId: string } | { organizationId: string } | ({ topic: string } & Record<string, string | number>);

interface Frame {
  type: string;
  message?: string;
}

const socketUrl = () => `${location.protocol === 'https:' ? 'wss:' : 'ws:'}//${location.host}/ws/client/v1`;

/** A frame naming another subscription (another environment, another organization) is not ours. */
const belongsTo = (subscription: Subscription, frame: Frame) =>
  Object.entries(subscription).every(([key, value]) => {
    const named = (frame as unknown as Record<string, unknown>)[key];
    return named === undefined || named === value;
  });

/** Answers the function that closes the subscription for good. */
export function subscribeLive<F extends Frame>(
  subscription: Subscription,
  onFrame: (frame: F) => void,
  onConnection: (connection: LiveConnection, problem?: string) => void,
): () => void {
  let socket: WebSocket | undefined;
  let retry: ReturnType<typeof setTimeout> | undefined;
  let attempts = 0;
  let refused = false;
  let stopped = false;

  const receive = (frame: F) => {
    if (!belongsTo(subscription, frame)) return;
    if (frame.type === 'error') {
      refused = true;
      return onConnection('refused', frame.message);
    }
    attempts = 0;
    if (frame.type === 'subscribed') {
      refused = false;
      onConnection('live');
    }
    onFrame(frame);
  };

  const connect = () => {
    socket = new WebSocket(socketUrl());
    socket.onopen = () => socket?.send(JSON.stringify({ type: 'subscribe', ...subscription }));
    socket.onmessage = (event) => {
      let frame: F;
      try {
        frame = JSON.parse(String(event.data)) as F;
      } catch {
        return; // a frame the console does not understand is ignored
      }
      receive(frame);
    };
    socket.onclose = () => {
      if (stopped) return;
      if (!refused) onConnection('reconnecting');
      retry = setTimeout(connect, Math.min(30_000, 500 * 2 ** attempts++));
    };
  };
  connect();
  return () => {
    stopped = true;
    clearTimeout(retry);
    socket?.close();
  };
}
