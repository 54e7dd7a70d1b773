// The installation at a glance: version and profile, each part in use with the setting that
// changes it, health, and the worker's jobs with their last run and last failure.
import { ErrorBox, Progress } from '../../components/ui';
import { useOverview } from '../../data/operator';

const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : '—');

export function OverviewPage() {
  const overview = useOverview();
  if (overview.error) return <ErrorBox error={overview.error} />;
  if (!overview.data) return <Progress label="Loading the installation…" />;
  const { version, profile, parts, health, jobs } = overview.data;
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
