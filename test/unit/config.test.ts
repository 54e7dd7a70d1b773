import { expect } from 'chai';
import { loadConfig, ConfigError } from '../../src/config.js';

const base = {
  MONGODB_URI: 'mongodb://127.0.0.1:27017',
  ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'),
  INTERNAL_API_SECRET: 'x'.repeat(43),
};

function problems(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
}

describe('config', () => {
  it('loads a minimal environment with documented defaults, frozen', () => {
    const config = loadConfig(base);
    expect(config.publicPort).to.equal(3000);
    expect(config.dashboardPort).to.equal(3001);
    expect(config.redisUrl).to.equal(undefined);
    expect(config.s3).to.equal(undefined);
    expect(Object.isFrozen(config)).to.equal(true);
  });

  it('trusts one proxy hop by default and refuses a hop count below 1', () => {
    expect(loadConfig(base)).to.include({ trustProxy: false, trustedProxyHops: 1 });
    expect(loadConfig({ ...base, TRUST_PROXY: 'true', TRUSTED_PROXY_HOPS: '2' })).to.include({
      trustProxy: true,
      trustedProxyHops: 2,
    });
    expect(problems({ ...base, TRUSTED_PROXY_HOPS: '0' })).to.deep.equal([
      'TRUSTED_PROXY_HOPS must be an integer from 1 to 32, got "0"',
    ]);
  });

  it("bounds a restore's read of its archive: 15 minutes unless RESTORE_COPY_TIMEOUT_MS says otherwise", () => {
    expect(loadConfig(base).restoreCopyTimeoutMs).to.equal(900_000);
    expect(loadConfig({ ...base, RESTORE_COPY_TIMEOUT_MS: '60000' }).restoreCopyTimeoutMs).to.equal(60_000);
    expect(problems({ ...base, RESTORE_COPY_TIMEOUT_MS: '10' })).to.deep.equal([
      'RESTORE_COPY_TIMEOUT_MS must be an integer from 1000 to 86400000, got "10"',
    ]);
  });

  it('has no default for any secret', () => {
    expect(problems({ MONGODB_URI: base.MONGODB_URI })).to.include.members([
      'ENCRYPTION_KEY is required',
      'INTERNAL_API_SECRET is required',
    ]);
  });

  it('names every invalid setting at once', () => {
    const found = problems({
      ...base,
      MONGODB_URI: 'postgres://x',
      PUBLIC_PORT: 'eighty',
      ENCRYPTION_KEY: 'c2hvcnQ=',
      REDIS_URL: 'http://x',
      ALLOW_PRIVATE_HOSTS: 'maybe',
    });
    expect(found).to.have.length(5);
    expect(found.join('\n'))
      .to.include('MONGODB_URI')
      .and.include('PUBLIC_PORT')
      .and.include('ENCRYPTION_KEY');
  });

  it('requires the S3 credentials once a bucket is set', () => {
    expect(problems({ ...base, S3_BUCKET: 'b' })).to.deep.equal([
      'S3_ACCESS_KEY_ID is required',
      'S3_SECRET_ACCESS_KEY is required',
    ]);
  });

  it('has AI provider defaults, no platform key by default, and checks the key prefix and URL', () => {
    expect(loadConfig(base).ai).to.deep.equal({
      baseUrl: 'https://api.groq.com/openai/v1',
      model: 'llama-3.3-70b-versatile',
      providerName: 'Groq',
      keyPrefix: 'gsk_',
      platformKey: undefined,
      timeoutMs: 30_000,
      platformRequestsPerMinute: 5,
      requestsPerMinute: 30,
    });
    expect(loadConfig({ ...base, AI_BASE_URL: 'http://127.0.0.1:9/v1/' }).ai.baseUrl).to.equal(
      'http://127.0.0.1:9/v1',
    );
    expect(problems({ ...base, AI_KEY_PREFIX: 'sk-', AI_BASE_URL: 'ftp://x' })).to.deep.equal([
      'AI_BASE_URL must be a http: or https: URL',
      'AI_KEY_PREFIX must be 3 letters or digits and an underscore, like gsk_',
    ]);
  });
});
