// The per-project state of the database quota in this process: what is reserved in the platform
// counter and not taken by a write yet (`held`), what the writes made under a lease still owe the
// counter (`owed`: what they really changed minus what they reserved), the lease's end, the
// writes under way and the recent bytes rate that sizes the next chunk. Pure bookkeeping, no I/O.

import { recentCount, type RecentCount } from '../../lib/recent-count.js';

export interface LeaseSettings {
  /** A chunk is about this much time of the project's recent write rate... */
  chunkMs: number;
  /** ...at most this share of what is left under the limit (1/16: near the limit, no chunks)... */
  roomShare: number;
  /** ...and at most this many bytes. */
  maxChunk: number;
  /** One write at a time takes a chunk from this many writes of its size per second. */
  loneRate: number;
  /** A lease gives its unused bytes back this long after it opened... */
  leaseMs: number;
  /** ...or once the project has had no write under way in this process for this long. */
  idleMs: number;
  /** A project's recent write rate is kept this long after its last write here. */
  keepMs: number;
}

export const LEASE_DEFAULTS: LeaseSettings = {
  chunkMs: 1_000,
  loneRate: 10,
  roomShare: 16,
  maxChunk: 1 << 20,
  leaseMs: 1_000,
  idleMs: 100,
  keepMs: 1_000,
};

const RATE_WINDOW_MS = 1_000;

export interface ProjectLease {
  /** Writes of the project under way in this process. */
  inflight: number;
  /** Bytes reserved in the platform counter that no write has taken yet. */
  held: number;
  /** Corrections of leased writes not written to the counter yet (positive: more is used). */
  owed: number;
  /** When the open lease ends (ms since the epoch); 0 when no lease is open. */
  openUntil: number;
  /** When a write of the project last started or ended. */
  lastActive: number;
  /** The limit minus the counter, as the last reservation saw it (undefined: not known yet). */
  room: number | undefined;
  /** The one platform call of the lease under way (a chunk, a give-back); later ones wait for it. */
  busy: Promise<void> | undefined;
  timer: NodeJS.Timeout | undefined;
  /** Bytes asked for by writes lately (sizes the next chunk). */
  asked: RecentCount;
}

export function newLease(now: number): ProjectLease {
  return {
    inflight: 0,
    held: 0,
    owed: 0,
    openUntil: 0,
    lastActive: now,
    room: undefined,
    busy: undefined,
    timer: undefined,
    asked: recentCount(RATE_WINDOW_MS, now),
  };
}

/**
 * The chunk to reserve for a write of `need` bytes: ~`chunkMs` of the recent rate and at least
 * one write for each one under way, capped by a share of the room left and by `maxChunk`. Below
 * `need` (room unknown or little left) means no chunk: the write reserves exactly its own bytes.
 */
export function chunkSize(lease: ProjectLease, need: number, now: number, settings: LeaseSettings): number {
  if (lease.room === undefined) return 0;
  const perSecond = lease.asked.perSecond(now);
  // One write at a time and few lately: its exact reservation.
  if (lease.inflight <= 1 && perSecond < settings.loneRate * need) return 0;
  const wanted = Math.max((perSecond * settings.chunkMs) / 1_000, need * lease.inflight);
  return Math.floor(Math.min(wanted, lease.room / settings.roomShare, settings.maxChunk));
}

export const isOpen = (lease: ProjectLease, now: number) => lease.openUntil > now;
