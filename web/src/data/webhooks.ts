// Webhooks of a project: the list, one webhook and its delivery log, and the changes (create,
// edit, enable or disable, rotate the secret, send a test, redeliver, delete).
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, call, type Schemas } from '../api';

export type Webhook = Schemas['Webhook'];
export type WebhookDelivery = Schemas['WebhookDelivery'];
export type WebhookInput = Schemas['WebhookInput'];
export type WebhookUpdate = Schemas['WebhookUpdate'];

const keys = {
  all: (projectId: string) => ['webhooks', projectId] as const,
  one: (projectId: string, webhookId: string) => ['webhooks', projectId, webhookId] as const,
  deliveries: (projectId: string, webhookId: string, page: number) =>
    ['webhooks', projectId, webhookId, 'deliveries', page] as const,
};

const listQuery = (projectId: string) => ({
  queryKey: keys.all(projectId),
  queryFn: async ({ signal }: { signal: AbortSignal }) =>
    (await call(api.GET('/api/projects/{projectId}/webhooks', { params: { path: { projectId } }, signal })))
      .data,
});

export function useWebhooks(projectId: string) {
  return useQuery({ ...listQuery(projectId), select: (data) => data.webhooks });
}

/** Whether the development profile accepts localhost targets (the same request as the list). */
export function useLoopbackTargets(projectId: string) {
  return useQuery({ ...listQuery(projectId), select: (data) => data.loopbackTargets }).data ?? false;
}

export function useWebhook(projectId: string, webhookId: string) {
  return useQuery({
    queryKey: keys.one(projectId, webhookId),
    queryFn: async ({ signal }) =>
      (
        await call(
          api.GET('/api/projects/{projectId}/webhooks/{webhookId}', {
            params: { path: { projectId, webhookId } },
            signal,
          }),
        )
      ).data.webhook,
  });
}

/** One page of the delivery log; polled while a delivery is still pending. */
export function useDeliveries(projectId: string, webhookId: string, page: number) {
  return useQuery({
    queryKey: keys.deliveries(projectId, webhookId, page),
    queryFn: async ({ signal }) =>
      (
        await call(
          api.GET('/api/projects/{projectId}/webhooks/{webhookId}/deliveries', {
            params: { path: { projectId, webhookId }, query: { page, limit: 20 } },
            signal,
          }),
        )
      ).data,
    placeholderData: keepPreviousData,
    refetchInterval: (query) =>
      query.state.data?.deliveries.some((d) => d.status === 'pending') ? 1000 : false,
  });
}

export function useWebhookActions(projectId: string) {
  const client = useQueryClient();
  const changed = () => client.invalidateQueries({ queryKey: keys.all(projectId) });
  const path = (webhookId: string) => ({ path: { projectId, webhookId } });
  return {
    create: useMutation({
      mutationFn: async (body: WebhookInput) =>
        (
          await call(
            api.POST('/api/projects/{projectId}/webhooks', { params: { path: { projectId } }, body }),
          )
        ).data,
      onSuccess: changed,
    }),
    update: useMutation({
      mutationFn: async ({ webhookId, body }: { webhookId: string; body: WebhookUpdate }) =>
        (
          await call(
            api.PATCH('/api/projects/{projectId}/webhooks/{webhookId}', { params: path(webhookId), body }),
          )
        ).data.webhook,
      onSuccess: changed,
    }),
    rotate: useMutation({
      mutationFn: async (webhookId: string) =>
        (
          await call(
            api.POST('/api/projects/{projectId}/webhooks/{webhookId}/rotate-secret', {
              params: path(webhookId),
            }),
          )
        ).data.secret,
    }),
    ping: useMutation({
      mutationFn: async (webhookId: string) =>
        (
          await call(
            api.POST('/api/projects/{projectId}/webhooks/{webhookId}/test', { params: path(webhookId) }),
          )
        ).data.delivery,
      onSuccess: changed,
    }),
    redeliver: useMutation({
      mutationFn: async ({ webhookId, deliveryId }: { webhookId: string; deliveryId: string }) =>
        (
          await call(
            api.POST('/api/projects/{projectId}/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver', {
              params: { path: { projectId, webhookId, deliveryId } },
            }),
          )
        ).data.delivery,
      onSuccess: changed,
    }),
    remove: useMutation({
      mutationFn: (webhookId: string) =>
        call(api.DELETE('/api/projects/{projectId}/webhooks/{webhookId}', { params: path(webhookId) })),
      onSuccess: (_answer, webhookId) => {
        // The list a delete goes back to shows the webhook gone at once, not until its refetch.
        client.setQueryData(
          keys.all(projectId),
          (list: { webhooks: Webhook[] } | undefined) =>
            list && { ...list, webhooks: list.webhooks.filter((h) => h.id !== webhookId) },
        );
        return changed();
      },
    }),
  };
}
