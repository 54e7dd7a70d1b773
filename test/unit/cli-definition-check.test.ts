// The CLI's check of a definition file against the schema it ships: each problem named once, by
// file:line:column and a readable path, with the branch of a `oneOf` that was meant.
import { expect } from 'chai';
import { checkDefinition } from '../../cli/src/definition-check.js';

const problems = (text: string): string[] => {
  try {
    checkDefinition('def.json', text);
  } catch (err) {
    return (err as Error).message
      .split('\n')
      .slice(1)
      .map((line) => line.trim());
  }
  return [];
};

describe('CLI definition check', () => {
  it('accepts a valid definition', () => {
    const text = JSON.stringify({
      settings: { allowedOrigins: ['https://app.example'] },
      collections: { posts: { mode: 'schema', fields: [{ name: 'title', type: 'String', required: true }] } },
      functions: {
        hello: {
          trigger: { type: 'callable', access: 'user' },
          runtime: { type: 'javascript', file: 'functions/hello.js' },
        },
      },
    });
    expect(problems(text)).to.deep.equal([]);
  });

  it('names bad names, the meant runtime branch, unknown types and trigger rules', () => {
    const text = [
      '{',
      '  "collections": { "1bad": {} },',
      '  "functions": {',
      '    "check post": { "trigger": { "type": "callable", "access": "user" }, "runtime": { "type": "http", "url": "https://x.example" } },',
      '    "a": { "trigger": { "type": "callable" }, "runtime": { "type": "javascript", "fil": "x.js" } },',
      '    "b": { "trigger": { "type": "callable", "access": "user" }, "runtime": { "type": "python" } }',
      '  },',
      '  "webhooks": [{ "url": "https://x.example", "events": ["document.exploded"] }]',
      '}',
    ].join('\n');
    const found = problems(text);
    const pattern = 'not an allowed name: must match pattern "^[A-Za-z][A-Za-z0-9_-]{0,63}$"';
    expect(found).to.include(`def.json:2:20: collections.1bad: ${pattern}`);
    expect(found).to.include(`def.json:4:5: functions.check post: ${pattern}`);
    expect(found).to.include('def.json:5:58: functions.a.runtime: missing "file"');
    expect(found).to.include('def.json:5:82: functions.a.runtime.fil: unknown property');
    expect(
      found.some((line) => line.startsWith('def.json:5:23: functions.a.trigger: `collection` goes with')),
    ).to.equal(true);
    expect(found).to.include('def.json:6:86: functions.b.runtime.type: must be one of "http", "javascript"');
    expect(found.filter((line) => line.includes('webhooks[0].events[0]'))).to.have.length(1);
    // Each problem once, and nothing about the branches that were not meant.
    expect(new Set(found).size).to.equal(found.length);
    expect(found.join('\n')).to.not.match(/functions\.a\.runtime\.url|oneOf|must match exactly one/);
  });
});
