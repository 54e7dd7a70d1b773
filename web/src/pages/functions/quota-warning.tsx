// The warning of a project's monthly function invocations at 80 % and 100 % (the usage report's
// `warnings`, read live from the count the service charges; the owner is mailed too), shown on the
// Overview and the Functions page (docs/functions.md, "Limits").
import { useQuery } from '@tanstack/react-query';
import { api, call } from '../../api';

export function useUsage(projectId: string) {
  return useQuery({
    queryKey: ['usage', projectId],
    queryFn: async ({ signal }) =>
      (await call(api.GET('/api/projects/{projectId}/usage', { params: { path: { projectId } }, signal })))
        .data,
  });
}

export function FunctionQuotaWarning({ projectId }: { projectId: string }) {
  const usage = useUsage(projectId);
  const warning = usage.data?.warnings.find((w) => w.limitName === 'functionInvocationsPerMonth');
  if (!warning) return null;
  const spent = warning.percent >= 100;
  return (
    <section
      className="card warning"
      aria-labelledby="function-quota-heading"
      data-testid="function-quota-warning"
      role={spent ? 'alert' : 'status'}
    >
      <h2 id="function-quota-heading">
        {spent
          ? "This month's function runs are used up"
          : `${warning.percent} % of this month's function runs used`}
      </h2>
      <p>{warning.message}</p>
    </section>
  );
}
