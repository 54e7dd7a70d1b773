// Hosted JavaScript for one process (docs/functions.md, "Hosted runtime"): the runtime, whose
// runner processes start with the process's first hosted call (roles that never run one pay
// nothing), and the seam the trigger service calls, bound to the data service and the webhook
// rules for ctx.fetch.
import type { Config } from '../../config.js';
import type { Logger } from '../../lib/logger.js';
import { hostResolver } from '../../lib/restricted-hosts.js';
import { ownOriginsOf } from '../../lib/own-origins.js';
import { hostedRuntime } from './hosted-runtime.js';
import { hostedWiring, MAX_WRITES_PER_INVOCATION } from './host.js';

type WiringDeps = Parameters<typeof hostedWiring>[0];

export function processHostedRuntime(
  config: Config,
  log: Logger,
  data: WiringDeps['data'],
  projectById: WiringDeps['projectById'],
) {
  const runtime = hostedRuntime(config.sandbox, log.child({ component: 'sandbox' }));
  const wiring = hostedWiring({
    runtime,
    data,
    projectById,
    fetch: {
      allowHttp: config.webhooks.allowHttp,
      allowPrivate: config.allowPrivateHosts,
      timeoutMs: config.webhooks.timeoutMs,
      resolver: hostResolver(config.dnsServers),
      own: ownOriginsOf(config),
    },
    maxWrites: MAX_WRITES_PER_INVOCATION,
    log,
  });
  return { runtime, wiring };
}
