// The project overview: this month's usage against the plan limits, and the last 90 days.
import { formatBytes } from '../api';
import { DailyBars, Meter } from '../components/charts';
import { ErrorBox, Progress } from '../components/ui';
import type { ProjectPageProps } from './project-shell';
import { EngineWarning } from './engine-warning';
import { CredentialsRefused } from './settings/credentials-refused';
import { isLimit } from '../data/plans';
import { FunctionQuotaWarning, useUsage } from './functions/quota-warning';

const count = (n: number) => n.toLocaleString();

export function UsagePage({ project }: ProjectPageProps) {
  const usage = useUsage(project.id);
  if (usage.error) return <ErrorBox error={usage.error} />;
  if (!usage.data) return <Progress label="Loading usage…" />;
  const { figures, daily, month, resetsAt } = usage.data;
  const days = daily.map((d) => d.day);
  return (
    <>
      <h1>{project.name}</h1>
      <p className="muted">
        Usage for {month} (UTC). Monthly figures reset on {new Date(resetsAt).toLocaleDateString()}.
      </p>
      <CredentialsRefused project={project} />
      <EngineWarning projectId={project.id} />
      <FunctionQuotaWarning projectId={project.id} />
      <section className="card" aria-labelledby="limits-heading">
        <h2 id="limits-heading">Against your plan limits</h2>
        <Meter
          label="Database"
          used={figures.databaseBytes.used}
          limit={figures.databaseBytes.limit}
          format={formatBytes}
        />
        <Meter
          label="File storage"
          used={figures.storageBytes.used}
          limit={figures.storageBytes.limit}
          format={formatBytes}
        />
        <Meter
          label="Mail this month"
          used={figures.mailSent.used}
          limit={figures.mailSent.limit}
          format={count}
        />
        <Meter label="Webhooks" used={figures.webhooks.used} limit={figures.webhooks.limit} format={count} />
        <Meter
          label="Backups kept"
          used={figures.backupBytes.used}
          limit={figures.backupBytes.limit}
          format={formatBytes}
        />
        <Meter
          label="Function runs this month"
          used={figures.functionInvocations.used}
          limit={figures.functionInvocations.limit}
          format={count}
        />
        <p className="muted">Function time this month: {count(figures.functionMs.used)} ms.</p>
        <p className="muted">
          API calls this month: {count(figures.apiCalls.used)} ({count(figures.apiCalls.today)} today)
          {isLimit(figures.apiCalls.limit)
            ? `; limit ${count(figures.apiCalls.limit)} requests per minute.`
            : '.'}
        </p>
      </section>
      <section className="card charts" aria-labelledby="daily-heading">
        <h2 id="daily-heading">Last 90 days</h2>
        <DailyBars
          label="API calls per day"
          days={days}
          values={daily.map((d) => d.apiCalls)}
          format={count}
        />
        <DailyBars
          label="Database size"
          days={days}
          values={daily.map((d) => d.databaseBytes)}
          format={formatBytes}
        />
        <DailyBars
          label="Storage size"
          days={days}
          values={daily.map((d) => d.storageBytes)}
          format={formatBytes}
        />
        <DailyBars
          label="Mail sent per day"
          days={days}
          values={daily.map((d) => d.mailSent)}
          format={count}
        />
      </section>
    </>
  );
}
