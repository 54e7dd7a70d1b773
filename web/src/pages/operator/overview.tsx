// The installation at a glance: version and profile, each part in use with the setting that
// changes it, health, the processes seen (role, instance, version, started, last seen; those not
// seen for over 2 minutes marked gone), and the worker's jobs with their last run and last failure.
import { ErrorBox, Progress } from '../../components/ui';
import { useOverview } from '../../data/operator';

const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : '—');

/** "now" within a minute, else minutes, hours or days ago. */
export function ago(iso: string, now = Date.now()): string {
  const minutes = Math.floor((now - Date.parse(iso)) / 60_000);
  if (minutes < 1) return 'now';
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.floor(minutes / 60);
  return hours < 48 ? `${hours} h ago` : `${Math.floor(hours / 24)} days ago`;
}

export function OverviewPage() {
  const overview = useOverview();
  if (overview.error) return <ErrorBox error={overview.error} />;
  if (!overview.data) return <Progress label="Loading the installation…" />;
  const { version, profile, parts, health, jobs, instances } = overview.data;
  return (
    <>
      <h1>Installation</h1>
      <dl className="facts">
        <dt>Version</dt>
        <dd>{version}</dd>
        <dt>Profile</dt>
        <dd>
          {profile === 'development'
            ? 'development (NODE_ENV=development, as npm start runs): new accounts on the highest plan, localhost webhook targets'
            : `${profile} (NODE_ENV=${profile})`}
        </dd>
        <dt>Health</dt>
        <dd data-testid="health">
          {health.status === 'ok' ? 'OK' : 'Unavailable'}: database {health.database}, cache {health.cache};
          up {Math.round(health.uptimeSeconds / 60)} min
        </dd>
      </dl>
      <h2>In use</h2>
      <div className="table-wrap" tabIndex={0} role="region" aria-label="Parts in use">
        <table>
          <thead>
            <tr>
              <th scope="col">Part</th>
              <th scope="col">Now</th>
              <th scope="col">Changed by</th>
            </tr>
          </thead>
          <tbody>
            {parts.map((p) => (
              <tr key={p.name}>
                <th scope="row">{p.name}</th>
                <td>{p.now}</td>
                <td>
                  <code>{p.setting}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <p className="muted">Settings are read at start: change them in the environment and restart.</p>
      <h2>Processes seen</h2>
      {instances.length === 0 ? (
        <p className="muted">No process has recorded itself in the last hour.</p>
      ) : (
        <div className="table-wrap" tabIndex={0} role="region" aria-label="Processes seen">
          <table>
            <thead>
              <tr>
                <th scope="col">Role</th>
                <th scope="col">Instance</th>
                <th scope="col">Version</th>
                <th scope="col">Started</th>
                <th scope="col">Last seen</th>
              </tr>
            </thead>
            <tbody>
              {instances.map((i) => (
                <tr key={`${i.role}@${i.instance}`} className={i.gone ? 'muted' : undefined}>
                  <th scope="row">{i.role}</th>
                  <td>
                    <code>{i.instance}</code>
                  </td>
                  <td>{i.version}</td>
                  <td>{when(i.startedAt)}</td>
                  <td>
                    <time dateTime={i.lastSeenAt} title={when(i.lastSeenAt)}>
                      {ago(i.lastSeenAt)}
                    </time>
                    {i.gone && <strong> (gone)</strong>}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <p className="muted">
        Each process records its roles every 30 seconds; one not seen for over 2 minutes stopped or cannot
        reach the database.
      </p>
      <h2>Worker jobs</h2>
      <div className="table-wrap" tabIndex={0} role="region" aria-label="Worker jobs">
        <table>
          <thead>
            <tr>
              <th scope="col">Job</th>
              <th scope="col">Runs</th>
              <th scope="col">Last run</th>
              <th scope="col">Result</th>
              <th scope="col">Last failure</th>
            </tr>
          </thead>
          <tbody>
            {jobs.map((j) => (
              <tr key={j.name}>
                <th scope="row">{j.name}</th>
                <td>{j.schedule}</td>
                <td>{when(j.lastRun?.startedAt)}</td>
                <td>{j.lastRun ? j.lastRun.result : 'not run yet'}</td>
                <td>{j.lastFailure ? `${when(j.lastFailure.at)}: ${j.lastFailure.error}` : 'none'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}
