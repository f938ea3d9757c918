import type { Server, Socket } from 'node:net';
import { connect, createServer } from 'node:net';

/**
 * A load balancer in front of relay nodes, as an operator would put one: TCP on 127.0.0.1, each new
 * connection handed to the first backend that accepts it (a dead node refuses, so the next one
 * gets it). No stickiness, no knowledge of the protocol.
 */
export interface TcpBalancer {
  url: string;
  port: number;
  /** Ports to try, in order; set once the nodes are up (they need the balancer's URL first). */
  backends: number[];
  stop(): Promise<void>;
}

export async function startTcpBalancer(): Promise<TcpBalancer> {
  const sockets = new Set<Socket>();
  const balancer: TcpBalancer = { url: '', port: 0, backends: [], stop: () => Promise.resolve() };
  const server: Server = createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => client.destroy());
    client.pause();
    const tryBackend = (index: number) => {
      const port = balancer.backends[index];
      if (port === undefined) return client.destroy();
      const upstream = connect(port, '127.0.0.1');
      let connected = false;
      upstream.on('error', () => {
        upstream.destroy();
        if (!connected) tryBackend(index + 1);
      });
      upstream.once('connect', () => {
        connected = true;
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
  balancer.port = (server.address() as { port: number }).port;
  balancer.url = `http://127.0.0.1:${balancer.port}`;
  balancer.stop = () => {
    for (const socket of sockets) socket.destroy();
    return new Promise((resolve) => server.close(() => resolve()));
  };
  return balancer;
}
