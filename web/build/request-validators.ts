// A Vite plugin: `virtual:request-validators` holds, for every dashboard operation with a JSON
// body, the ajv validator of that body compiled at build time from the generated OpenAPI document
// (the schemas the API validates with). Compiled ahead, so the page needs no eval under its CSP.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import AjvModule from 'ajv';
import addFormats from 'ajv-formats';
import standaloneCode from 'ajv/dist/standalone/index.js';
import type { Plugin } from 'vite';

const SPEC = fileURLToPath(new URL('../../generated/dashboard.openapi.json', import.meta.url));
const ID = 'virtual:request-validators';

interface Operation {
  operationId?: string;
  requestBody?: { content?: Record<string, { schema?: unknown }> };
}

export function requestValidatorsCode(): string {
  const spec = JSON.parse(readFileSync(SPEC, 'utf8')) as {
    paths: Record<string, Record<string, Operation>>;
    components: unknown;
  };
  // allErrors: every problem at once; verbose: each error carries its schema, whose description
  // and x-error-message become the words shown under the field.
  const ajv = new AjvModule.default({
    allErrors: true,
    verbose: true,
    strict: false,
    code: { source: true, esm: true },
  });
  addFormats.default(ajv);
  ajv.addSchema({ $id: 'spec', components: spec.components });
  const exports: Record<string, string> = {};
  for (const ops of Object.values(spec.paths)) {
    for (const op of Object.values(ops)) {
      const schema = op.requestBody?.content?.['application/json']?.schema;
      if (!op.operationId || !schema) continue;
      // The bundled document's refs are local (#/components/...): point them at the added copy.
      const local = JSON.parse(JSON.stringify(schema).replace(/"#\/components\//g, '"spec#/components/'));
      ajv.addSchema({ $id: op.operationId, ...local });
      exports[op.operationId] = op.operationId;
    }
  }
  // Standalone code requires its runtime helpers (formats, string length); a browser bundle
  // imports them.
  const modules: string[] = [];
  const code = standaloneCode.default(ajv, exports).replace(/require\("([^"]+)"\)/g, (_, name: string) => {
    if (!modules.includes(name)) modules.push(name);
    return `__runtime${modules.indexOf(name)}`;
  });
  // A CommonJS module's exports object: Node puts it on `default` of the namespace, bundlers
  // spread it over the namespace.
  const imports = modules.map(
    (name, i) =>
      `import * as __ns${i} from ${JSON.stringify(name)};\n` +
      `const __runtime${i} = __ns${i}.default && typeof __ns${i}.default === 'object' ? __ns${i}.default : __ns${i};`,
  );
  return imports.join('\n') + '\n' + code.replace(/^"use strict";/, '');
}

export function requestValidators(): Plugin {
  return {
    name: 'request-validators',
    resolveId: (id) => (id === ID ? '\0' + ID : undefined),
    load: (id) => (id === '\0' + ID ? requestValidatorsCode() : undefined),
  };
}
