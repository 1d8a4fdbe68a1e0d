import net from 'node:net';

/** A TCP proxy in front of a server (a database, a bucket) that can fall silent: a stall, not a refusal. */
export interface SilenceableProxy {
  port: number;
  /** From now on connections are taken and nothing is said; open ones are cut. */
  silence(): void;
  close(): void;
}

/** Passes connections on to `host:port` until told to fall silent. */
export async function silenceableProxy(host: string, port: number): Promise<SilenceableProxy> {
  let silent = false;
  const sockets = new Set<net.Socket>();
  const keep = (socket: net.Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
  };
  const server = net.createServer((socket) => {
    keep(socket);
    if (silent) return;
    const upstream = net.connect(port, host);
    keep(upstream);
    upstream.on('error', () => socket.destroy());
    socket.pipe(upstream).pipe(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const cutAll = () => {
    for (const socket of sockets) socket.destroy();
  };
  return {
    port: (server.address() as net.AddressInfo).port,
    silence() {
      silent = true;
      cutAll();
    },
    close() {
      cutAll();
      server.close();
    },
  };
}
