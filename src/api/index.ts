// The handler map of each HTTP role, keyed by operationId. `satisfies` makes the compiler check
// that every operation of the role's spec has a handler; the router checks it again at start.
import type { operations as PublicOperations } from '../../generated/public.js';
import type { operations as DashboardOperations } from '../../generated/dashboard.js';
import type { HandlerMap } from '../http/types.js';
import type { Services } from '../services/index.js';
import { healthHandlers } from './health.js';
import { accountHandlers } from './accounts.js';
import { adminHandlers } from './admin.js';
import { adminPlanHandlers } from './admin-plans.js';
import { accessTokenHandlers } from './access-tokens.js';
import { projectHandlers } from './projects.js';
import { invitationHandlers } from './invitations.js';
import { collectionHandlers } from './collections.js';
import { schemaHandlers } from './schemas.js';
import {
  collectionSizeHandlers,
  dashboardIndexHandlers,
  publicIndexHandlers,
  slowQueryHandlers,
} from './indexes.js';
import { userAuthHandlers } from './user-auth.js';
import { storageHandlers } from './storage.js';
import { dataHandlers } from './data.js';
import { storageSettingsHandlers } from './storage-settings.js';
import { dashboardEndUserHandlers, publicEndUserHandlers } from './end-users.js';
import { mailDashboardHandlers, mailSendHandlers } from './mail.js';
import { webhookHandlers } from './webhooks.js';
import { functionHandlers } from './functions.js';
import { publicFunctionHandlers } from './functions-key.js';
import { usageHandlers } from './usage.js';
import { requestLogHandlers } from './request-log.js';
import { realtimeHandlers } from './realtime.js';
import { dashboardProjectApiHandlers, publicProjectApiHandlers } from './project-api.js';
import { projectContentHandlers } from './project-content.js';
import { aiHandlers } from './ai.js';
import { externalDatabaseHandlers, internalHandlers } from './external-database.js';
import { backupHandlers, publicBackupHandlers } from './backups.js';
import { collectionIoHandlers, publicCollectionIoHandlers } from './collection-io.js';

export function publicHandlers(services: Services) {
  return {
    ...healthHandlers(services),
    ...schemaHandlers(services),
    ...publicIndexHandlers(services),
    ...userAuthHandlers(services),
    ...storageHandlers(services),
    ...dataHandlers(services),
    ...publicEndUserHandlers(services),
    ...mailSendHandlers(services),
    ...realtimeHandlers(services),
    ...publicProjectApiHandlers(services),
    ...internalHandlers(services),
    ...publicBackupHandlers(services),
    ...publicCollectionIoHandlers(services),
    ...publicFunctionHandlers(services),
  } satisfies HandlerMap<PublicOperations>;
}

export function dashboardHandlers(services: Services) {
  return {
    ...healthHandlers(services),
    ...accountHandlers(services),
    ...adminHandlers(services),
    ...adminPlanHandlers(services),
    ...accessTokenHandlers(services),
    ...projectHandlers(services),
    ...invitationHandlers(services),
    ...collectionHandlers(services),
    ...dashboardIndexHandlers(services),
    ...slowQueryHandlers(services),
    ...collectionSizeHandlers(services),
    ...storageSettingsHandlers(services),
    ...dashboardEndUserHandlers(services),
    ...mailDashboardHandlers(services),
    ...webhookHandlers(services),
    ...functionHandlers(services),
    ...usageHandlers(services),
    ...requestLogHandlers(services),
    ...dashboardProjectApiHandlers(services),
    ...projectContentHandlers(services),
    ...aiHandlers(services),
    ...externalDatabaseHandlers(services),
    ...backupHandlers(services),
    ...collectionIoHandlers(services),
  } satisfies HandlerMap<DashboardOperations>;
}
