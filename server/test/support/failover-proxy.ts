import net from 'node:net';

/**
 * A load balancer in front of several server processes, as small as one can be: each new TCP
 * connection goes to the first backend that accepts it, in the order given. A backend that was
 * killed refuses, so its clients' reconnections land on the next one — what a real load balancer
 * does once its health check has taken the dead process out.
 */
export interface FailoverProxy {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** Connections sent to each backend port so far. */
  connections: Map<number, number>;
  close(): Promise<void>;
}

export async function startFailoverProxy(backendPorts: readonly number[]): Promise<FailoverProxy> {
  const sockets = new Set<net.Socket>();
  const connections = new Map<number, number>();
  const server = net.createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => client.destroy());
    client.pause();
    const tryBackend = (index: number) => {
      const port = backendPorts[index];
      if (port === undefined) {
        client.destroy();
        return;
      }
      const upstream = net.connect({ host: '127.0.0.1', port });
      let connected = false;
      upstream.on('error', () => {
        upstream.destroy();
        // Refused: the next backend. Failed once connected: the client sees its connection drop.
        if (!connected) tryBackend(index + 1);
        else client.destroy();
      });
      upstream.once('connect', () => {
        connected = true;
        connections.set(port, (connections.get(port) ?? 0) + 1);
        sockets.add(upstream);
        upstream.on('close', () => {
          sockets.delete(upstream);
          client.destroy();
        });
        client.on('close', () => upstream.destroy());
        client.pipe(upstream);
        upstream.pipe(client);
        client.resume();
      });
    };
    tryBackend(0);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    connections,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
