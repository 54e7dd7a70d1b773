// Counted leases: how many of something (open realtime connections of a project) exist across
// every process, with a cap. Each holder is a member of a set with an expiry that its process
// renews; a process that dies without releasing stops counting once its leases expire. In Redis
// a sorted set scored by expiry time (the server's clock), admitted by one atomic script.

export interface Leases {
  /** Adds `member` when fewer than `limit` live members exist; false when the cap is reached. */
  acquire(set: string, member: string, limit: number, ttlMs: number): Promise<boolean>;
  /** Extends the members' leases (re-adds any that expired meanwhile). */
  renew(set: string, members: string[], ttlMs: number): Promise<void>;
  release(set: string, member: string): Promise<void>;
}

// KEYS set; ARGV ttlMs, limit, member.
export const ACQUIRE_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[1]), ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 1`;

// KEYS set; ARGV ttlMs, members...
export const RENEW_SCRIPT = `
local t = redis.call('TIME')
local until_ms = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) + tonumber(ARGV[1])
for i = 2, #ARGV do redis.call('ZADD', KEYS[1], until_ms, ARGV[i]) end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 1`;

export interface LeaseRunner {
  run(script: string, keys: string[], args: string[]): Promise<unknown>;
  zrem(key: string, member: string): Promise<unknown>;
}

export function redisLeases(runner: LeaseRunner): Leases {
  return {
    async acquire(set, member, limit, ttlMs) {
      return Number(await runner.run(ACQUIRE_SCRIPT, [set], [String(ttlMs), String(limit), member])) === 1;
    },
    async renew(set, members, ttlMs) {
      if (members.length) await runner.run(RENEW_SCRIPT, [set], [String(ttlMs), ...members]);
    },
    async release(set, member) {
      await runner.zrem(set, member);
    },
  };
}

export function memoryLeases(): Leases & { close(): void } {
  const sets = new Map<string, Map<string, number>>();
  const live = (set: string) => {
    const now = Date.now();
    let members = sets.get(set);
    if (!members) sets.set(set, (members = new Map()));
    for (const [member, until] of members) if (until <= now) members.delete(member);
    return members;
  };
  return {
    async acquire(set, member, limit, ttlMs) {
      const members = live(set);
      if (members.size >= limit) return false;
      members.set(member, Date.now() + ttlMs);
      return true;
    },
    async renew(set, members, ttlMs) {
      const held = live(set);
      for (const member of members) held.set(member, Date.now() + ttlMs);
    },
    async release(set, member) {
      const members = sets.get(set);
      members?.delete(member);
      if (members?.size === 0) sets.delete(set);
    },
    close() {
      sets.clear();
    },
  };
}
