// Test settings: the env file written by `scripts/stack.sh start test`, unless the variables are
// already set (CI or a developer pointing the suite at their own servers).
import { existsSync } from 'node:fs';
import { repoPath } from '../../src/lib/paths.js';

const envFile = repoPath('.env.test');
if (!process.env.MONGODB_URI && existsSync(envFile)) process.loadEnvFile(envFile);
if (!process.env.MONGODB_URI) {
  throw new Error('MONGODB_URI is not set: run `bash scripts/stack.sh start test` or `npm test`.');
}

export const testEnv = process.env as Record<string, string | undefined>;
