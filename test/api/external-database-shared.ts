// The spec's messages for external database connections, shared by the external-database suites.
export const MESSAGES = {
  restricted: 'DB URI is pointing to a restricted host, internal network, or unsupported URI format.',
  connect: 'Could not connect to the provided database URI.',
  publicIncomplete:
    'Public API verification could not be completed (network/timeout). Please try again later.',
};
