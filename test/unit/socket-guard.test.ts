// The socket guard's start-up check (src/lib/socket-guard.ts): on this runtime a connection opened
// in a run that refused its address never reaches the listener, and the check passes; a guard
// that refuses nothing (as after a Node.js change to the internals it relies on) fails the check
// with a sentence naming the runtime, which stops the start (createDeps awaits it).
import net from 'node:net';
import { expect } from 'chai';
import { checkSocketGuard, refuseForThisRun, SocketGuardError } from '../../src/lib/socket-guard.js';

describe('socket guard', () => {
  it('passes its start-up check on this runtime', async () => {
    await checkSocketGuard();
  });

  it('refuses a connection opened in the run that refused its address, and only that one', async () => {
    let reached = 0;
    const server = net.createServer((s) => {
      reached++;
      s.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as net.AddressInfo;
    const attempt = () =>
      new Promise<string>((resolve) => {
        const socket = net.connect(port, '127.0.0.1');
        socket.once('connect', () => {
          socket.destroy();
          resolve('connected');
        });
        socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
      });
    try {
      await checkSocketGuard();
      refuseForThisRun(['127.0.0.1']);
      expect(await attempt()).to.equal('ERR_IP_BLOCKED');
      expect(reached).to.equal(0);
      expect(await attempt()).to.equal('connected');
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('fails loudly when the guard refuses nothing', async () => {
    const err = await checkSocketGuard(() => undefined).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(SocketGuardError);
    expect((err as Error).message)
      .to.include(`the socket guard does not work on Node.js ${process.version}`)
      .and.include('a refused connection went through');
  });
});
