import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import { serverWithAccounts } from '../helpers/accounts.js';
import { authHeader, type Client } from '../helpers/http.js';
import { docx, mergefield, p } from '../helpers/docx.js';
import { until } from '../helpers/wait.js';

const template = docx(p(mergefield('name'))).toString('base64');

interface Job {
  id: string;
  callback: { state: string; attempts: number; lastError: string | null } | null;
}

/**
 * A raw TCP callback receiver that does `behave` with each connection; it counts connections
 * open now, the most open at once, and those the sender closed.
 */
async function rawReceiver(behave: (socket: net.Socket) => void) {
  const state = { open: 0, most: 0, closedBySender: 0, accepted: 0 };
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    state.accepted++;
    state.open++;
    state.most = Math.max(state.most, state.open);
    let ours = false;
    socket.on('error', () => undefined);
    socket.on('end', () => {
      if (!ours) state.closedBySender++;
    });
    socket.on('close', () => {
      state.open--;
      sockets.delete(socket);
    });
    socket.once('data', () => behave(socket));
    (socket as net.Socket & { closeOurs?: () => void }).closeOurs = () => {
      ours = true;
      socket.destroy();
    };
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/hook`,
    state,
    async close() {
      for (const socket of sockets) (socket as net.Socket & { closeOurs?: () => void }).closeOurs?.();
      await new Promise((r) => server.close(r));
    },
  };
}

/** Writes `text` one byte every 100 ms until the socket closes. */
function trickle(socket: net.Socket, text: string): void {
  let at = 0;
  const timer = setInterval(() => {
    if (socket.destroyed) return clearInterval(timer);
    socket.write(text[at % text.length]!);
    at++;
  }, 100);
  socket.on('close', () => clearInterval(timer));
}

const jobOf = async (c: Client, id: string) => (await c.get(`/v1/jobs/${id}`)).json() as Job;

async function mergeWithCallback(c: Client, url: string): Promise<string> {
  const reply = await c.post(`/v1/document/merge?returnFormat=DOCX&async=true&callbackUrl=${encodeURIComponent(url)}`, {
    json: { template, mergeData: [{ name: 'A' }] },
  });
  assert.equal(reply.status, 202, reply.text);
  return (reply.json() as Job).id;
}

describe('connections: slow senders, dropped clients, slow callback receivers', () => {
  let env: Awaited<ReturnType<typeof serverWithAccounts>>;
  before(async () => {
    env = await serverWithAccounts(
      { ann: { licence: 'SN-CON1' } },
      {
        DOCSMITH_REQUEST_TIMEOUT_S: '2',
        DOCSMITH_JOB_POLL_MS: '100',
        DOCSMITH_CALLBACK_ALLOW: '127.0.0.1',
        DOCSMITH_CALLBACK_TIMEOUT_MS: '1000',
        DOCSMITH_CALLBACK_ATTEMPTS: '1',
      },
    );
  });
  after(() => env.close());

  const head = (length: number) =>
    [
      'POST /v1/document/convert?returnFormat=TXT HTTP/1.1',
      'Host: x',
      `Authorization: ${authHeader({ basic: ['ann', 'pw-ann-secret'] }).authorization}`,
      'Content-Type: application/json',
      `Content-Length: ${length}`,
      '',
      '',
    ].join('\r\n');

  it('cuts off a request body sent a byte at a time with 408 at DOCSMITH_REQUEST_TIMEOUT_S', async () => {
    const url = new URL(env.server.url);
    const socket = net.connect(Number(url.port), url.hostname);
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    socket.on('error', () => undefined);
    socket.write(head(1000));
    trickle(socket, '"');
    await until('the server closing the connection', () => (socket.readableEnded || socket.destroyed ? true : undefined));
    socket.destroy();
    assert.match(received, /^HTTP\/1\.1 408/);
  });

  it('logs a client that drops its connection mid-body as such, not as a storage failure', async () => {
    const url = new URL(env.server.url);
    const socket = net.connect(Number(url.port), url.hostname);
    socket.on('error', () => undefined);
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write(head(10_000_000));
    await new Promise<void>((resolve) => socket.write(`"${'A'.repeat(1_000_000)}`, () => resolve()));
    socket.destroy();
    const log = await until('the dropped client in the log', () => {
      const text = fs.readFileSync(env.server.logPath, 'utf8');
      return text.includes('the client closed the connection') ? text : undefined;
    });
    assert.doesNotMatch(log, /storage is not available|unavailable/);
  });

  it('delivers to a receiver that answers 200 and trickles its body without waiting for the body', async () => {
    const hook = await rawReceiver((socket) => {
      socket.write('HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\n\r\n');
      trickle(socket, 'x');
    });
    try {
      const id = await mergeWithCallback(env.clients.ann!, hook.url);
      const job = await until('callback delivered', async () => {
        const j = await jobOf(env.clients.ann!, id);
        return j.callback?.state === 'delivered' ? j : undefined;
      });
      assert.equal(job.callback?.attempts, 1);
      await until('the sender closing the connection', () => (hook.state.closedBySender === 1 ? true : undefined));
    } finally {
      await hook.close();
    }
  });

  it("gives up on a receiver that trickles its answer's head, at the callback time limit", async () => {
    const hook = await rawReceiver((socket) => trickle(socket, 'HTTP/1.1 200 OK\r\nX-Slow: '));
    try {
      const id = await mergeWithCallback(env.clients.ann!, hook.url);
      const job = await until('callback failed', async () => {
        const j = await jobOf(env.clients.ann!, id);
        return j.callback?.state === 'failed' ? j : undefined;
      });
      assert.match(job.callback?.lastError ?? '', /no answer within 1 s/);
      // The sender closes it as it gives up; the receiver sees the close a moment later.
      await until('the connection closed', () => (hook.state.open === 0 ? true : undefined));
    } finally {
      await hook.close();
    }
  });
});

describe("callbacks: one account's hanging receivers do not hold up another account", () => {
  it("delivers bob's callback while ann's 16 receivers hang, and holds at most 2 of ann's connections", async () => {
    // A callback limit of 10 minutes: ann's receivers hang for the whole test.
    const env = await serverWithAccounts(
      { ann: { licence: 'SN-CON2' }, bob: { licence: 'SN-CON3' } },
      {
        DOCSMITH_JOB_POLL_MS: '100',
        DOCSMITH_CALLBACK_ALLOW: '127.0.0.1',
        DOCSMITH_CALLBACK_TIMEOUT_MS: '600000',
      },
    );
    const hanging = await rawReceiver(() => undefined);
    const good = await rawReceiver((socket) => socket.end('HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n'));
    try {
      for (let i = 0; i < 16; i++) await mergeWithCallback(env.clients.ann!, hanging.url);
      await until("ann's deliveries under way", () => (hanging.state.open >= 2 ? true : undefined));
      const id = await mergeWithCallback(env.clients.bob!, good.url);
      await until("bob's callback delivered", async () =>
        (await jobOf(env.clients.bob!, id)).callback?.state === 'delivered' ? true : undefined,
      );
      assert.equal(hanging.state.most, 2, 'one account holds at most 2 deliveries at once');
      assert.equal(hanging.state.accepted, 2, "ann's other callbacks wait for those");
    } finally {
      await hanging.close();
      await good.close();
      await env.close();
    }
  });
});
