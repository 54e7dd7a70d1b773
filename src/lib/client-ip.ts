// The key of a client address in every per-IP limit (rate limits, login and code budgets,
// realtime streams, sign-ups): an IPv4 address as is, an IPv6 address by its /64 network. One
// IPv6 subscriber is usually given a whole /64 (often more), so keying on the full address would
// hand one client 2^64 budgets.
import { isIPv4, isIPv6 } from 'node:net';

/** The hextets of an IPv6 address (eight numbers), or undefined when it is not one. */
function hextets(address: string): number[] | undefined {
  let text = address;
  const zone = text.indexOf('%');
  if (zone >= 0) text = text.slice(0, zone);
  if (!isIPv6(text)) return undefined;
  // An embedded IPv4 tail (::ffff:1.2.3.4, 64:ff9b::1.2.3.4) becomes two hextets.
  const lastColon = text.lastIndexOf(':');
  const tail = text.slice(lastColon + 1);
  if (isIPv4(tail)) {
    const [a, b, c, d] = tail.split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, lastColon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, rest] = text.split('::') as [string, string | undefined];
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((h) => parseInt(h, 16)));
  const left = parse(head);
  if (rest === undefined) return left;
  const right = parse(rest);
  return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
}

/** Keys of recently seen IPv6 addresses: parsing one costs several microseconds, a lookup ~0.05. */
const known = new Map<string, string>();
const MAX_KNOWN = 10_000;

/**
 * `203.0.113.7` -> `203.0.113.7`; `2001:db8:1:2:aaaa::1` -> `2001:db8:1:2::/64`; an IPv4-mapped
 * IPv6 address (`::ffff:203.0.113.7`, what a dual-stack socket reports) -> its IPv4 address.
 * Anything else (no address known) is returned as is.
 */
export function clientIpKey(ip: string): string {
  // An IPv6 address always has a colon, an IPv4 address never (and is its own key).
  if (!ip.includes(':')) return ip;
  let key = known.get(ip);
  if (key === undefined) {
    if (known.size >= MAX_KNOWN) known.delete(known.keys().next().value!);
    known.set(ip, (key = keyOf(ip)));
  }
  return key;
}

function keyOf(ip: string): string {
  const h = hextets(ip);
  if (!h) return ip;
  if (h.slice(0, 5).every((x) => x === 0) && h[5] === 0xffff) {
    return `${h[6]! >> 8}.${h[6]! & 255}.${h[7]! >> 8}.${h[7]! & 255}`;
  }
  return `${h
    .slice(0, 4)
    .map((x) => x.toString(16))
    .join(':')}::/64`;
}
