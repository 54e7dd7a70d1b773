// The Backups page's "Schedule and retention" card: the plan's period and count, what is kept now,
// and the one setting of the schedule, whether its backups hold the end users: opt-in, with the
// same warning as "Back up now" (an archive with them holds their password hashes).
import { useState } from 'react';
import { formatBytes } from '../../api';
import { ErrorBox, Notice } from '../../components/ui';
import { useBackupSchedule, useSetBackupSchedule } from '../../data/backup-schedule';
import type { BackupJob } from '../../data/backups';
import { when } from './job-progress';

/** The warning of an archive with the end users in it, and what leaving them out means. */
export const USERS_WARNING =
  'The archive then holds the end users’ password hashes (and their identities): whoever has the file has them. Keep it as safe as the database.';
export const USERS_LEFT_OUT = 'The archive leaves the end users out: a restore brings back no accounts.';

const PERIOD = { day: 'once a day', hour: 'once an hour' } as const;

export function ScheduleCard({
  projectId,
  backups,
  totalBytes,
}: {
  projectId: string;
  backups: BackupJob[];
  totalBytes: number;
}) {
  const schedule = useBackupSchedule(projectId);
  const save = useSetBackupSchedule(projectId);
  // The box follows the saved setting until the admin changes it.
  const [choice, setChoice] = useState<boolean | undefined>(undefined);
  const includeUsers = choice ?? schedule.data?.includeUsers ?? false;
  const scheduled = backups.filter((b) => b.trigger === 'schedule');
  const onRequest = backups.length - scheduled.length;
  const dirty = schedule.data !== undefined && includeUsers !== schedule.data.includeUsers;

  return (
    <section className="card" aria-labelledby="schedule-heading">
      <h2 id="schedule-heading">Schedule and retention</h2>
      <p data-testid="backup-schedule">
        {schedule.data
          ? `The worker backs the project up ${PERIOD[schedule.data.every]} and keeps the newest ${schedule.data.kept} scheduled backups (the plan’s), deleting older ones; backups made on request are counted apart.`
          : 'The worker also backs the project up on the plan’s schedule and keeps the plan’s number of scheduled backups, deleting older ones; backups made on request are counted apart.'}{' '}
        More in the backups manual (<code>docs/backups.md</code>, “Plans and schedule”) and in{' '}
        <a href="/docs">the API reference</a>.
      </p>
      <ErrorBox error={schedule.error ?? save.error} />
      {schedule.data && (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            save.mutate(includeUsers, { onSuccess: () => setChoice(undefined) });
          }}
        >
          <label className="check">
            <input
              type="checkbox"
              checked={includeUsers}
              onChange={(e) => {
                save.reset();
                setChoice(e.target.checked);
              }}
              aria-describedby="schedule-users-hint"
            />
            Include end users in scheduled backups
          </label>
          <p id="schedule-users-hint" className={includeUsers ? 'warning' : 'muted'}>
            {includeUsers ? USERS_WARNING : `${USERS_LEFT_OUT} Off unless you opt in.`}
          </p>
          <button type="submit" disabled={!dirty || save.isPending}>
            {save.isPending ? 'Saving…' : 'Save schedule'}
          </button>
          {save.isSuccess && !dirty && (
            <Notice>
              {save.data.includeUsers
                ? 'Saved: scheduled backups now hold the end users.'
                : 'Saved: scheduled backups leave the end users out.'}
            </Notice>
          )}
        </form>
      )}
      <p className="muted">
        Now: {scheduled.length} scheduled, {onRequest} made on request
        {scheduled[0] ? `; the latest scheduled one is of ${when(scheduled[0].createdAt)}` : ''}. The archives
        take {formatBytes(totalBytes)} of storage (not counted in the project’s storage quota).
      </p>
    </section>
  );
}
