// A MongoDB wire-protocol server that only says hello: it answers the handshake (OP_QUERY or
// OP_MSG) as the primary of a replica set whose member list the test chooses, and every other
// command with `ok: 1`. It lets a test make a deployment report members on any address, or, made
// silent, accept connections and never answer a query.
import net from 'node:net';
import { BSON } from 'mongodb';

export interface FakeReplicaSet {
  readonly port: number;
  /** `127.0.0.1:<port>`, the address the server reports as itself. */
  readonly self: string;
  /** The other members reported from the next hello on. */
  members: string[];
  /** Hello commands answered so far. */
  hellos: number;
  /**
   * Silent: the handshake and monitoring (`hello`) are still answered, every other command never
   * is, as by a deployment that accepts connections and then stops answering queries.
   */
  silent: boolean;
  /** Commands other than hello received so far (answered or not). */
  commands: number;
  close(): Promise<void>;
}

const OP_REPLY = 1;
const OP_QUERY = 2004;
const OP_MSG = 2013;

function header(length: number, requestId: number, responseTo: number, opCode: number): Buffer {
  const out = Buffer.alloc(16);
  out.writeInt32LE(length, 0);
  out.writeInt32LE(requestId, 4);
  out.writeInt32LE(responseTo, 8);
  out.writeInt32LE(opCode, 12);
  return out;
}

function reply(opCode: number, responseTo: number, doc: Record<string, unknown>): Buffer {
  const body = Buffer.from(BSON.serialize(doc));
  if (opCode === OP_QUERY) {
    const fields = Buffer.alloc(20);
    fields.writeInt32LE(1, 16); // numberReturned; flags, cursor id and startingFrom stay 0
    return Buffer.concat([header(16 + 20 + body.length, 0, responseTo, OP_REPLY), fields, body]);
  }
  const prefix = Buffer.alloc(5); // flagBits 0, section kind 0
  return Buffer.concat([header(16 + 5 + body.length, 0, responseTo, OP_MSG), prefix, body]);
}

/** The command document of a request. */
function commandOf(opCode: number, body: Buffer): Record<string, unknown> {
  if (opCode === OP_QUERY) {
    const nameEnd = body.indexOf(0, 4);
    return BSON.deserialize(body.subarray(nameEnd + 1 + 8));
  }
  return BSON.deserialize(body.subarray(5)); // flagBits, then the kind-0 section first
}

export async function startFakeReplicaSet(): Promise<FakeReplicaSet> {
  const sockets = new Set<net.Socket>();
  const state = { members: [] as string[], hellos: 0, silent: false, commands: 0 };
  let self = '';
  const answer = (command: Record<string, unknown>): Record<string, unknown> | undefined => {
    const name = Object.keys(command)[0]?.toLowerCase();
    if (name !== 'hello' && name !== 'ismaster') {
      state.commands += 1;
      return state.silent ? undefined : { ok: 1 };
    }
    state.hellos += 1;
    return {
      helloOk: true,
      ismaster: true,
      isWritablePrimary: true,
      setName: 'rs0',
      setVersion: 1,
      hosts: [self, ...state.members],
      primary: self,
      me: self,
      minWireVersion: 0,
      maxWireVersion: 17,
      maxBsonObjectSize: 16 * 1024 * 1024,
      maxMessageSizeBytes: 48_000_000,
      maxWriteBatchSize: 100_000,
      localTime: new Date(),
      logicalSessionTimeoutMinutes: 30,
      connectionId: state.hellos,
      readOnly: false,
      ok: 1,
    };
  };
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    let buffered = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      while (buffered.length >= 16 && buffered.length >= buffered.readInt32LE(0)) {
        const length = buffered.readInt32LE(0);
        const requestId = buffered.readInt32LE(4);
        const opCode = buffered.readInt32LE(12);
        const body = buffered.subarray(16, length);
        buffered = buffered.subarray(length);
        const answered = answer(commandOf(opCode, body));
        if (answered) socket.write(reply(opCode, requestId, answered));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  self = `127.0.0.1:${port}`;
  return {
    port,
    self,
    get members() {
      return state.members;
    },
    set members(value: string[]) {
      state.members = value;
    },
    get hellos() {
      return state.hellos;
    },
    get silent() {
      return state.silent;
    },
    set silent(value: boolean) {
      state.silent = value;
    },
    get commands() {
      return state.commands;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
