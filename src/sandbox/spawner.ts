// The spawner process: forked once by the service (src/sandbox/launcher.ts), it starts runner
// processes when asked, so that the service itself never forks while it serves. A fork copies the
// forking process's page tables, and the service is large; this process is small. Runners start
// with an empty environment, their token on standard input and nothing else, at the lowest CPU
// priority, and connect back to the service on their own (runner.ts). It reports each exit.
import { spawn } from 'node:child_process';
import { setPriority } from 'node:os';
import type { FromSpawner, ToSpawner } from './protocol.js';

/** Niceness of runner processes (0 normal, 19 lowest). */
const RUNNER_NICENESS = 19;
/**
 * A small V8 heap: the runner's own objects are few, and garbage from a hot loop of host calls
 * (console.log) is collected early instead of growing the process.
 */
const RUNNER_NODE_FLAGS = ['--max-old-space-size=64', '--max-semi-space-size=2'];

const send = (msg: FromSpawner) => process.send?.(msg);

process.on('message', (msg: ToSpawner) => {
  if (msg.t !== 'spawn') return;
  // The token goes in on standard input: a process's arguments are readable by every user.
  const child = spawn(process.execPath, [...process.execArgv, ...RUNNER_NODE_FLAGS, msg.entry, ...msg.args], {
    env: {},
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  child.stdin?.on('error', () => undefined);
  child.stdin?.end(`${msg.token}\n`);
  // Tenant code runs below the service in CPU priority: a runner spinning until its deadline
  // slows other tenants' requests as little as the scheduler allows.
  try {
    if (child.pid) setPriority(child.pid, RUNNER_NICENESS);
  } catch {
    // not permitted here (some containers): the runner keeps the service's priority
  }
  if (child.pid) send({ t: 'spawned', token: msg.token, pid: child.pid });
  let reported = false;
  const exited = (code: number | null, signal: NodeJS.Signals | null) => {
    if (reported) return;
    reported = true;
    send({ t: 'exit', token: msg.token, code, signal });
  };
  child.once('exit', exited);
  child.once('error', () => exited(null, null));
});
// The service is gone: so is this process (its runners end when their sockets close).
process.on('disconnect', () => process.exit(0));
