// The function's figures over the last hour and the last day, as Supabase's Edge Functions page
// shows them: runs, failures (errors, timeouts, out of memory, crashes) and p50/p95 duration.
import { useInvocationStats, type InvocationStats } from '../../data/functions';

type Window = InvocationStats['lastHour'];

const ms = (v: number | null) => (v === null ? '—' : `${v} ms`);

function Row({ label, w }: { label: string; w: Window }) {
  return (
    <tr>
      <th scope="row">{label}</th>
      <td>{w.count}</td>
      <td className={w.errors ? 'fn-failed' : undefined}>{w.errors}</td>
      <td>{w.byStatus.refused ?? 0}</td>
      <td>{ms(w.p50Ms)}</td>
      <td>{ms(w.p95Ms)}</td>
    </tr>
  );
}

export function InvocationStatsTable({ projectId, functionId }: { projectId: string; functionId: string }) {
  const stats = useInvocationStats(projectId, functionId);
  if (!stats.data) return null;
  return (
    // Focusable: at phone width it scrolls sideways, and a keyboard must reach that.
    <div
      className="table-wrap"
      data-testid="invocation-stats"
      tabIndex={0}
      role="region"
      aria-label="Run figures"
    >
      <table>
        <caption className="sr-only">Runs over the last hour and day</caption>
        <thead>
          <tr>
            <th scope="col">Over</th>
            <th scope="col">Runs</th>
            <th scope="col">Failed</th>
            <th scope="col">Refused</th>
            <th scope="col">p50</th>
            <th scope="col">p95</th>
          </tr>
        </thead>
        <tbody>
          <Row label="Last hour" w={stats.data.lastHour} />
          <Row label="Last day" w={stats.data.lastDay} />
        </tbody>
      </table>
    </div>
  );
}
