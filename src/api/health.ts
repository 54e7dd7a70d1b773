// GET /api/health on both HTTP roles.
import type { operations } from '../../generated/public.js';
import type { Handler } from '../http/types.js';
import type { Services } from '../services/index.js';

export function healthHandlers(services: Services) {
  const getHealth: Handler<operations['getHealth']> = async () => {
    const report = await services.health.check();
    const down = Object.entries(report.checks)
      .filter(([, check]) => check.status === 'down')
      .map(([name]) => name);
    if (down.length === 0) return { status: 200, body: { success: true, data: report, message: '' } };
    return {
      status: 503,
      body: { success: false, data: report, message: `Unavailable: ${down.join(', ')}` },
    };
  };
  return { getHealth };
}
