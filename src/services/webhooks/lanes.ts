// The time each project holds this worker's lanes, charged to its turn: a project whose deliveries
// are slow (their recent average, or one still in flight, at least WEBHOOK_SLOW_DELIVERY_MS) is
// skipped by the claim once slow projects together hold half of the lanes, so receivers that
// answer 2xx, but slowly, cannot take the whole worker from the other projects' deliveries.
// Per process, on purpose: it guards the lanes of this process; the caps per project and per
// host (webhook-deliveries.ts) hold over every worker.

export interface LaneSettings {
  lanesPerWorker: number;
  slowDeliveryMs: number;
}

/** A project's charge is forgotten this long after its last delivery here. */
const FORGET_MS = 10 * 60_000;
const MAX_TRACKED = 10_000;
/** Weight of the newest delivery in the running average (older ones fade by half each time). */
const WEIGHT = 0.5;
/** Projects named in one claim's skip list at most (the query carries them). */
const MAX_SKIPPED = 1000;

export function laneAccounts(settings: LaneSettings, now: () => number = Date.now) {
  const charged = new Map<string, { avgMs: number; at: number }>();
  /** Start times of this process's deliveries in flight, by project. */
  const inFlight = new Map<string, number[]>();
  const slowShare = Math.max(1, Math.floor(settings.lanesPerWorker / 2));

  function isSlow(projectId: string, t: number): boolean {
    const charge = charged.get(projectId);
    if (charge && t - charge.at < FORGET_MS && charge.avgMs >= settings.slowDeliveryMs) return true;
    return (inFlight.get(projectId) ?? []).some((started) => t - started >= settings.slowDeliveryMs);
  }

  return {
    /** Projects the next claim passes over: the slow ones, once they hold their share of lanes. */
    skipped(): string[] {
      const t = now();
      let slowLanes = 0;
      for (const [projectId, started] of inFlight) if (isSlow(projectId, t)) slowLanes += started.length;
      if (slowLanes < slowShare) return [];
      const slow: string[] = [];
      for (const projectId of new Set([...inFlight.keys(), ...charged.keys()])) {
        if (slow.length >= MAX_SKIPPED) break;
        if (isSlow(projectId, t)) slow.push(projectId);
        else if (t - (charged.get(projectId)?.at ?? t) >= FORGET_MS) charged.delete(projectId);
      }
      return slow;
    },

    /** Marks a lane taken by the project; the returned function frees it and charges the time. */
    take(projectId: string): () => void {
      const started = now();
      let mine = inFlight.get(projectId);
      if (!mine) inFlight.set(projectId, (mine = []));
      mine.push(started);
      return () => {
        const t = now();
        const list = inFlight.get(projectId) ?? [];
        list.splice(list.indexOf(started), 1);
        if (!list.length) inFlight.delete(projectId);
        const held = t - started;
        const before = charged.get(projectId);
        if (!before && charged.size >= MAX_TRACKED) charged.clear();
        charged.set(projectId, {
          avgMs: before ? before.avgMs * (1 - WEIGHT) + held * WEIGHT : held,
          at: t,
        });
      };
    },
  };
}
