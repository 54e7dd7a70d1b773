// A tiny authoritative DNS server on loopback (UDP) for tests: answers A, AAAA, SRV and TXT
// questions from a fixed zone with hand-built packets (RFC 1035), NXDOMAIN for unknown names and
// an empty answer for a known name without records of the asked type. The app's resolver points
// at it through DNS_SERVERS.
import dgram from 'node:dgram';

export interface ZoneRecords {
  A?: string[];
  AAAA?: string[];
  SRV?: { priority?: number; weight?: number; port: number; target: string }[];
  TXT?: string[];
}

export interface DnsServer {
  /** `127.0.0.1:<port>`, the value for DNS_SERVERS. */
  readonly address: string;
  close(): Promise<void>;
}

const TYPES = { A: 1, AAAA: 28, SRV: 33, TXT: 16 } as const;

function encodeName(name: string): Buffer {
  const labels = name.replace(/\.$/, '').split('.').filter(Boolean);
  return Buffer.concat([
    ...labels.map((l) => Buffer.concat([Buffer.from([l.length]), Buffer.from(l)])),
    Buffer.from([0]),
  ]);
}

function readQuestion(msg: Buffer): { name: string; type: number; end: number } {
  const labels: string[] = [];
  let offset = 12;
  while (msg[offset]! !== 0) {
    const length = msg[offset]!;
    labels.push(msg.subarray(offset + 1, offset + 1 + length).toString());
    offset += length + 1;
  }
  offset += 1;
  return { name: labels.join('.').toLowerCase(), type: msg.readUInt16BE(offset), end: offset + 4 };
}

function ipv6Bytes(address: string): Buffer {
  let text = address.toLowerCase();
  // An embedded dotted IPv4 tail (::ffff:1.2.3.4) becomes the last two groups.
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const split = (s: string) => (s ? s.split(':') : []);
  const groups =
    tail === undefined
      ? split(head)
      : [...split(head), ...Array(8 - split(head).length - split(tail).length).fill('0'), ...split(tail)];
  const out = Buffer.alloc(16);
  groups.forEach((g, i) => out.writeUInt16BE(parseInt(g, 16), i * 2));
  return out;
}

function rdata(type: number, records: ZoneRecords): Buffer[] {
  if (type === TYPES.A) return (records.A ?? []).map((a) => Buffer.from(a.split('.').map(Number)));
  if (type === TYPES.AAAA) return (records.AAAA ?? []).map(ipv6Bytes);
  if (type === TYPES.TXT) {
    return (records.TXT ?? []).map((t) =>
      Buffer.concat([Buffer.from([Buffer.byteLength(t)]), Buffer.from(t)]),
    );
  }
  if (type === TYPES.SRV) {
    return (records.SRV ?? []).map((s) => {
      const head = Buffer.alloc(6);
      head.writeUInt16BE(s.priority ?? 0, 0);
      head.writeUInt16BE(s.weight ?? 0, 2);
      head.writeUInt16BE(s.port, 4);
      return Buffer.concat([head, encodeName(s.target)]);
    });
  }
  return [];
}

export async function startDnsServer(zone: Record<string, ZoneRecords>): Promise<DnsServer> {
  const names = new Map(Object.entries(zone).map(([name, records]) => [name.toLowerCase(), records]));
  const socket = dgram.createSocket('udp4');
  socket.on('message', (msg, remote) => {
    const question = readQuestion(msg);
    const records = names.get(question.name);
    const answers = records ? rdata(question.type, records) : [];
    const header = Buffer.alloc(12);
    msg.copy(header, 0, 0, 2); // id
    header.writeUInt16BE(0x8400 | (msg.readUInt16BE(2) & 0x0100) | (records ? 0 : 3), 2); // QR AA RD, rcode
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(answers.length, 6);
    const body = answers.map((data) => {
      const fixed = Buffer.alloc(12);
      fixed.writeUInt16BE(0xc00c, 0); // the question's name
      fixed.writeUInt16BE(question.type, 2);
      fixed.writeUInt16BE(1, 4); // IN
      fixed.writeUInt32BE(5, 6); // TTL
      fixed.writeUInt16BE(data.length, 10);
      return Buffer.concat([fixed, data]);
    });
    socket.send(
      Buffer.concat([header, msg.subarray(12, question.end), ...body]),
      remote.port,
      remote.address,
    );
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${socket.address().port}`,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
