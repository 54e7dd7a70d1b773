// The database server's process, for `npm run bench`: its CPU per request is read from /proc like
// the servers' own (load.ts), so the bench needs its pid. BENCH_DB_PID names it; otherwise it is
// the process listening on the port of MONGODB_URI, found through /proc/net/tcp (the socket's
// inode) and the processes' open descriptors. Undefined off Linux or when it cannot be read (a
// database on another machine, another user's process): the report then leaves its columns empty.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** Inodes of the sockets listening on `port` (IPv4 and IPv6). */
function listeningInodes(port: number): Set<string> {
  const inodes = new Set<string>();
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      // local_address is HEXIP:HEXPORT, st 0A is LISTEN, the inode is the tenth field.
      if (fields[1]?.endsWith(`:${hexPort}`) && fields[3] === '0A' && fields[9]) inodes.add(fields[9]);
    }
  }
  return inodes;
}

export function databasePid(uri = process.env.MONGODB_URI ?? ''): number | undefined {
  const named = Number(process.env.BENCH_DB_PID);
  if (Number.isInteger(named) && named > 0) return named;
  const port = Number(/^mongodb:\/\/[^/]*:(\d+)/.exec(uri)?.[1] ?? 27017);
  const inodes = listeningInodes(port);
  if (inodes.size === 0) return undefined;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${entry}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        const target = readlinkSync(`/proc/${entry}/fd/${fd}`);
        if (target.startsWith('socket:[') && inodes.has(target.slice(8, -1))) return Number(entry);
      } catch {
        // The descriptor closed meanwhile.
      }
    }
  }
  return undefined;
}
