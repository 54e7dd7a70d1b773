// What the schemathesis run (fuzz.ts) leaves out or allows beyond the documents, each with its
// reason. Everything else runs with every phase and every check; keep docs/testing.md in step.

export type Role = 'public' | 'dashboard';

/**
 * Checks not run: `max_response_time` (off unless given a limit). Response times on a shared
 * 2-core machine measure the machine; a hang is still caught (request-timeout, 30 s, is an error)
 * and latency is measured by the bench (bench/README.md).
 */
export const CHECKS_LEFT_OUT = {
  max_response_time: 'timing belongs to the bench, not to a shared test machine',
};

/** Operations not run at all. */
export const EXCLUDED: Record<Role, Record<string, string>> = {
  public: {
    // Answers are 302s whose target is outside the API (the OAuth provider, the app's
    // redirectUrl); test/api/user-auth-social.test.ts covers them against oauth2-mock-server.
    startSocialLogin: 'redirects to the OAuth provider; covered by user-auth-social.test.ts',
    completeSocialLogin: 'redirects to the app; covered by user-auth-social.test.ts',
  },
  dashboard: {},
};

/**
 * Rules that depend on stored state or on the world outside the request, which no schema can
 * state: for these operations a schema-valid request may be refused with the statuses named
 * (positive_data_acceptance accepts them; every other check still applies). Each status is
 * documented on the operation and produced by a test in test/api. Free-form bodies (documents,
 * profiles, pipelines) share one more: a `__proto__` key anywhere is refused by the JSON parser.
 */
export const STATE_RULES: Record<Role, Record<string, { statuses: number[]; reason: string }>> = {
  public: {
    callFunction: {
      statuses: [400, 413],
      reason:
        'the body is free-form JSON: a __proto__ key anywhere is refused by the JSON parser, and it is capped at 64 KiB',
    },
    createProjectFunction: {
      statuses: [400],
      reason:
        "a trigger's collection must be one the project registered, the code within the plan's size, a cron no tighter than the plan's interval, and secret names capitals, digits and _ (OpenAPI 3.0 has no propertyNames)",
    },
    updateProjectFunction: {
      statuses: [400],
      reason:
        "a trigger's collection must be one the project registered, the code within the plan's size, a cron no tighter than the plan's interval, and secret names capitals, digits and _ (OpenAPI 3.0 has no propertyNames)",
    },
    importProjectCollection: {
      statuses: [400],
      reason:
        "rows are checked against the collection's own fields (and owners against the project's end users); a CSV needs its header row",
    },
    verifyEndUserEmail: { statuses: [400], reason: 'the code must be the one the server mailed' },
    resetEndUserPassword: { statuses: [400], reason: 'the code must be the one the server mailed' },
    exchangeSocialLoginCode: { statuses: [400], reason: 'the code must be one the OAuth callback issued' },
    refreshEndUserToken: {
      statuses: [400],
      reason:
        'the refresh token may come from the body, a header or a cookie: OpenAPI cannot require one of three places',
    },
    logoutEndUser: {
      statuses: [400],
      reason:
        'the refresh token may come from the body, a header or a cookie: OpenAPI cannot require one of three places',
    },
    signupEndUser: {
      statuses: [400],
      reason: "profile fields are checked against the project's own users collection",
    },
    updateEndUserProfile: {
      statuses: [400],
      reason: "profile fields are checked against the project's own users collection",
    },
    updateUser: { statuses: [400], reason: "fields are checked against the project's own users collection" },
    createDocument: { statuses: [400], reason: "documents are checked against the collection's own fields" },
    createDocuments: { statuses: [400], reason: "documents are checked against the collection's own fields" },
    updateDocument: { statuses: [400], reason: "documents are checked against the collection's own fields" },
    patchDocument: { statuses: [400], reason: "documents are checked against the collection's own fields" },
    listDocuments: {
      statuses: [400],
      reason:
        "filters name the collection's own fields; page and cursor exclude each other (OpenAPI cannot say so of query parameters)",
    },
    getDocument: { statuses: [400], reason: "fields and populate name the collection's own fields" },
    streamDocuments: { statuses: [400], reason: "filters name the collection's own fields" },
    aggregateDocuments: { statuses: [400], reason: "stages name the collection's own fields" },
    createCollectionSchema: {
      statuses: [400],
      reason:
        'a definition is checked as a whole (defaults per type, Ref targets that exist, RLS owner fields)',
    },
    updateCollectionSchema: {
      statuses: [400],
      reason:
        'a definition is checked as a whole (defaults per type, Ref targets that exist, RLS owner fields)',
    },
    sendMail: {
      statuses: [400],
      reason:
        'a templateName or templateId must name a template of the project; a rendered message may come out empty',
    },
    createSchemaIndex: {
      statuses: [400],
      reason: "index keys name the collection's own fields (a TTL index a Date field of it)",
    },
    requestUpload: {
      statuses: [413],
      reason:
        "a declared size over the 10 MB cap or the plan's remaining storage is a 413, as a body over the limit",
    },
  },
  dashboard: {
    updatePlans: {
      statuses: [400],
      reason:
        "the plans edited and the plan of new accounts are the installation's (GET /api/plans); another well-formed name is INVALID_PLANS",
    },
    setDeveloperPlan: {
      statuses: [400],
      reason:
        "the plans are the installation's (GET /api/plans); another well-formed name is UNKNOWN_PLAN, and so is the reserved name operator",
    },
    inviteDeveloper: {
      statuses: [400],
      reason:
        "the plan named must be one of the installation's (GET /api/plans); another well-formed name is UNKNOWN_PLAN",
    },
    listFunctionInvocations: {
      statuses: [400],
      reason: '`since` after `until` is a 400, a relation between two parameters that OpenAPI cannot state',
    },
    disableDeveloper: {
      statuses: [400],
      reason:
        "the run's developerId is the operator, whose own account cannot be disabled (OPERATOR_ACCOUNT)",
    },
    enableDeveloper: {
      statuses: [400],
      reason:
        "the run's developerId is the operator, whose own account cannot be disabled or enabled (OPERATOR_ACCOUNT)",
    },
    deleteDeveloper: {
      statuses: [400, 404],
      reason:
        "the run's developerId is the operator, whose own account cannot be deleted (OPERATOR_ACCOUNT); another is gone once deleted",
    },
    listOutboxMail: {
      statuses: [400],
      reason: 'the test stack sends mail through SMTP_URL, so there is no outbox folder to read (NO_OUTBOX)',
    },
    createFunction: {
      statuses: [400],
      reason:
        "a trigger's collection must be one the project registered, the code within the plan's size, a cron no tighter than the plan's interval, and secret names capitals, digits and _ (OpenAPI 3.0 has no propertyNames)",
    },
    updateFunction: {
      statuses: [400],
      reason:
        "a trigger's collection must be one the project registered, the code within the plan's size, a cron no tighter than the plan's interval, and secret names capitals, digits and _ (OpenAPI 3.0 has no propertyNames)",
    },
    createAccessToken: {
      statuses: [400, 401, 429],
      reason:
        "the projects must be the caller's own, the expiry within a year of the server's clock, and the password the account's own (wrong ones are limited per account: 429)",
    },
    createCollectionIndex: {
      statuses: [400],
      reason: "index keys name the collection's own fields (a TTL index a Date field of it)",
    },
    streamProjectDocuments: { statuses: [400], reason: "filters name the collection's own fields" },
    listRequestLog: { statuses: [400], reason: 'the cursor must be one this endpoint issued' },
    restoreBackup: {
      statuses: [400],
      reason: "a restore over the project is confirmed with the project's current name (`confirm`)",
    },
    importCollection: {
      statuses: [400],
      reason:
        "rows are checked against the collection's own fields (and owners against the project's end users); a CSV needs its header row",
    },
    listProjectDocuments: {
      statuses: [400],
      reason:
        "filters name the collection's own fields; page and cursor exclude each other (OpenAPI cannot say so of query parameters)",
    },
    createProjectDocument: {
      statuses: [400],
      reason: "documents are checked against the collection's own fields",
    },
    updateProjectDocument: {
      statuses: [400],
      reason: "documents are checked against the collection's own fields",
    },
    updateProjectUser: {
      statuses: [400],
      reason: "fields are checked against the project's own users collection",
    },
    listProjectFiles: { statuses: [400], reason: 'the cursor must be one this endpoint issued' },
    createCollection: {
      statuses: [400],
      reason:
        'a definition is checked as a whole (defaults per type, Ref targets that exist, RLS owner fields)',
    },
    updateCollection: {
      statuses: [400],
      reason:
        'a definition is checked as a whole (defaults per type, Ref targets that exist, RLS owner fields)',
    },
    createWebhook: {
      statuses: [400],
      reason: 'the URL must resolve to a public address (no DNS on the test stack)',
    },
    updateWebhook: {
      statuses: [400],
      reason: 'the URL must resolve to a public address (no DNS on the test stack)',
    },
    setMailSmtp: {
      statuses: [400],
      reason: 'the host must resolve to a public address (no DNS on the test stack)',
    },
    setExternalStorage: {
      statuses: [400],
      reason: 'the endpoint must resolve to a public address (no DNS on the test stack)',
    },
    setExternalDatabase: {
      statuses: [400],
      reason: 'the URI must resolve to a public address (no DNS on the test stack)',
    },
    setDeveloperAiKey: {
      statuses: [400],
      reason: "the key's prefix is the operator's AI provider's (AI_KEY_PREFIX)",
    },
    setProjectAiKey: {
      statuses: [400],
      reason: "the key's prefix is the operator's AI provider's (AI_KEY_PREFIX)",
    },
    requestProjectUpload: {
      statuses: [413],
      reason:
        "a declared size over the 10 MB cap or the plan's remaining storage is a 413, as a body over the limit",
    },
  },
};

/**
 * Checks off for one operation, with the reason. A callable runs the tenant's own code, which the
 * run writes at random through the function operations: its failure is the documented 502
 * FUNCTION_FAILED (504 past its deadline), not a server error of the service, and a function the
 * run made is callable only when it made it a callable. test/api/functions-callable.test.ts
 * asserts every answer of the operation.
 */
export const CHECKS_OFF: Record<Role, Record<string, { checks: string[]; reason: string }>> = {
  public: {
    callFunction: {
      checks: ['not_a_server_error', 'ensure_resource_availability'],
      reason:
        "a callable's 502/504 is the tenant code's failure; a function the run made is rarely a callable",
    },
  },
  dashboard: {
    activateFunctionVersion: {
      checks: ['negative_data_rejection'],
      reason:
        'its coverage cases for a malformed projectId reach the server with a real project and function id the run made (the ids come back from inferred links), so the request is valid and answered 200; its 400 for a malformed id is exercised by the mocha suites, as every documented status is',
    },
  },
};
