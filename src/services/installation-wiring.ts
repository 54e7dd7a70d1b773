// The developers' side of an installation, wired for createServices (index.ts): developer sign-up
// and access tokens, project members and their invitations, and the operator's area (developers,
// invitations, plans as edited on the Plans page, the installation's overview).
import type { Deps } from '../deps.js';
import type { Mailer } from '../mail/sender.js';
import type { AccessTokensRepo } from '../db/access-tokens.js';
import type { InvitationsRepo } from '../db/invitations.js';
import { developerSignupsRepo } from '../db/developer-signups.js';
import { developerInvitationsRepo } from '../db/developer-invitations.js';
import { planSettingsRepo } from '../db/plan-settings.js';
import { jobRunsRepo } from '../db/job-runs.js';
import { instancesRepo } from '../db/instances.js';
import type { AccountsService } from './accounts.js';
import { accessTokensService } from './access-tokens.js';
import { signupService } from './signup.js';
import { membersService } from './members.js';
import { invitationsService } from './invitations.js';
import { developerInvitationsService } from './developer-invitations.js';
import { operatorService } from './operator.js';
import { installationService } from './installation.js';
import { planSettingsService } from './plan-settings.js';
import type { healthService } from './health.js';
import type { ProjectsService } from './projects.js';
import type { platformRepos } from './repos.js';

type HealthService = ReturnType<typeof healthService>;
type PlatformRepos = ReturnType<typeof platformRepos>;

export interface InstallationWiring {
  deps: Deps;
  repos: PlatformRepos;
  accounts: AccountsService;
  projects: ProjectsService;
  health: HealthService;
  mail: Mailer;
  tokenRecords: AccessTokensRepo;
  invitationRecords: InvitationsRepo;
}

export function installationServices(w: InstallationWiring) {
  const { deps, repos, accounts, projects, mail } = w;
  const { config, log } = deps;
  const platform = deps.db.platform;
  const pendingSignups = developerSignupsRepo(platform);
  const developerInvitationRecords = developerInvitationsRepo(platform);
  return {
    /** The plans edited on the Plans page: stored, and re-read by every process on a timer. */
    planSettings: planSettingsService({
      repo: planSettingsRepo(platform),
      table: config.plans,
      log,
      refreshMs: config.plansRefreshMs,
    }),
    accessTokens: accessTokensService(
      w.tokenRecords,
      repos.developers,
      repos.projects,
      deps.cache,
      config.accessTokenRequestsPerMinute,
      { confirmPassword: accounts.confirmPassword, mailer: mail, dashboardUrl: config.dashboardUrl, log },
    ),
    signup: signupService({
      developers: repos.developers,
      pending: pendingSignups,
      invitations: developerInvitationRecords,
      cache: deps.cache,
      openSession: accounts.openSession,
      signupsPerHour: config.developerSignupsPerHour,
      mailer: mail,
      dashboardUrl: config.dashboardUrl,
      delivery: config.smtpUrl ? 'smtp' : 'outbox',
      log,
    }),
    members: membersService(repos.projects, repos.developers),
    invitations: invitationsService({
      invitations: w.invitationRecords,
      projects: repos.projects,
      cache: deps.cache,
      mailer: mail,
      dashboardUrl: config.dashboardUrl,
      log,
    }),
    developerInvitations: developerInvitationsService({
      invitations: developerInvitationRecords,
      developers: repos.developers,
      pendingSignups,
      cache: deps.cache,
      plans: config.plans,
      openSession: accounts.openSession,
      mailer: mail,
      dashboardUrl: config.dashboardUrl,
      log,
    }),
    operator: operatorService({
      developers: repos.developers,
      projects: repos.projects,
      projectsService: projects,
      collectionsCount: repos.collections.count,
      plans: config.plans,
    }),
    installation: installationService({
      config,
      version: deps.version,
      health: () => w.health.check(),
      jobRuns: jobRunsRepo(platform),
      instances: instancesRepo(platform),
    }),
  };
}
