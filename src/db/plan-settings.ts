// The plans the operator edited on the Plans page (collection `installation_settings`, one
// document `_id: "plans"`): every limit and the backups of every plan, and the plan of new
// accounts. Installation wide, so scoped by no project. Every process reads it every few seconds
// (src/services/plan-settings.ts).
import type { Db } from 'mongodb';
import type { StoredPlans } from '../lib/plan-edits.js';

interface SettingsDoc extends StoredPlans {
  _id: string;
  updatedBy: string;
}

const PLANS = 'plans';

export function planSettingsRepo(db: Db) {
  const settings = db.collection<SettingsDoc>('installation_settings');
  return {
    async read(): Promise<StoredPlans | undefined> {
      const doc = await settings.findOne({ _id: PLANS });
      if (!doc) return undefined;
      const { plans, backups, defaultPlan, updatedAt } = doc;
      // A record saved before the backups were edited on the page has none: the plans keep theirs.
      return { plans, ...(backups ? { backups } : {}), defaultPlan, updatedAt };
    },
    /** Replaces the record; the last save wins. */
    async write(record: StoredPlans, developerId: string): Promise<void> {
      await settings.replaceOne({ _id: PLANS }, { ...record, updatedBy: developerId }, { upsert: true });
    },
  };
}

export type PlanSettingsRepo = ReturnType<typeof planSettingsRepo>;
