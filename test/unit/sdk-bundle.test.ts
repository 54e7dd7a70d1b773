// The SDK's browser bundle stays small (the bound: 15 kB minified and gzipped, the whole
// SDK) and needs nothing of Node.
import { expect } from 'chai';
import { gzipSync } from 'node:zlib';
import { bundleSdk } from '../../sdk/bundle.js';

export const SDK_BUNDLE_LIMIT = 15 * 1024;

describe('SDK browser bundle', () => {
  it(`is at most ${SDK_BUNDLE_LIMIT} bytes minified and gzipped, without Node built-ins`, async function () {
    this.timeout(30_000);
    const code = await bundleSdk();
    const gzipped = gzipSync(code, { level: 9 }).length;
    console.log(`      SDK bundle: ${code.length} bytes minified, ${gzipped} bytes gzipped`);
    expect(gzipped).to.be.at.most(SDK_BUNDLE_LIMIT);
    expect(code).to.not.match(/from\s*["']node:|require\(/);
    expect(code).to.include('createClient');
  });
});
