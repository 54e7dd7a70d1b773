// Plain SVG charts: a meter of a figure against its limit, and daily bars. Each has a text
// equivalent (title and a visually hidden summary) for screen readers.
import { useId } from 'react';

export function Meter({
  label,
  used,
  limit,
  format,
}: {
  label: string;
  used: number;
  limit: number | null;
  format: (n: number) => string;
}) {
  const share = limit && limit > 0 ? Math.min(used / limit, 1) : 0;
  const percent = limit && limit > 0 ? Math.round((used / limit) * 100) : null;
  const tone = percent === null ? 'ok' : percent >= 90 ? 'danger' : percent >= 70 ? 'warn' : 'ok';
  const summary =
    limit === null ? `${format(used)} used (no limit)` : `${format(used)} of ${format(limit)} (${percent}%)`;
  return (
    <figure className="meter">
      <figcaption>
        <span>{label}</span>
        <span className="muted">{summary}</span>
      </figcaption>
      <svg viewBox="0 0 100 6" preserveAspectRatio="none" role="img" aria-label={`${label}: ${summary}`}>
        <rect x="0" y="0" width="100" height="6" rx="3" className="meter-track" />
        <rect
          x="0"
          y="0"
          width={Math.max(share * 100, used > 0 ? 1 : 0)}
          height="6"
          rx="3"
          className={`meter-fill ${tone}`}
        />
      </svg>
    </figure>
  );
}

export function DailyBars({
  label,
  days,
  values,
  format,
}: {
  label: string;
  days: string[];
  values: (number | null)[];
  format: (n: number) => string;
}) {
  const id = useId();
  const peak = Math.max(0, ...values.map((v) => v ?? 0));
  const max = Math.max(1, peak);
  const width = 300;
  const height = 80;
  const step = width / Math.max(values.length, 1);
  const total = values.reduce<number>((sum, v) => sum + (v ?? 0), 0);
  const last = values[values.length - 1];
  return (
    <figure className="chart">
      <figcaption id={id}>
        {label}{' '}
        <span className="muted">
          (last {values.length} days, max {format(max)})
        </span>
      </figcaption>
      <svg viewBox={`0 0 ${width} ${height}`} role="img" aria-labelledby={id} preserveAspectRatio="none">
        <title>{`${label}: total ${format(total)} over ${values.length} days; today ${format(last ?? 0)}`}</title>
        <line x1="0" y1={height - 0.5} x2={width} y2={height - 0.5} className="axis" />
        {values.map((v, i) =>
          v ? (
            <rect
              key={days[i]}
              x={i * step + 0.5}
              y={height - (v / max) * (height - 4)}
              width={Math.max(step - 1, 1)}
              height={(v / max) * (height - 4)}
              className="bar"
            >
              <title>{`${days[i]}: ${format(v)}`}</title>
            </rect>
          ) : null,
        )}
      </svg>
      <div className="chart-axis muted" aria-hidden="true">
        <span>{days[0]}</span>
        <span>{days[days.length - 1]}</span>
      </div>
    </figure>
  );
}
