import { Socket } from 'node:net';

/** Whether a TCP service answers at `url`: null when it does, else the reason (for a clear message). */
export function reachable(url: string, defaultPort: number): Promise<string | null> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (problem: string | null) => {
      socket.destroy();
      resolve(problem);
    };
    socket.setTimeout(3000, () => done('timed out'));
    socket.once('error', (error) => done(error.message));
    socket.connect(Number(port || defaultPort), hostname, () => done(null));
  });
}
