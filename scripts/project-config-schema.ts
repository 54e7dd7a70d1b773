// The JSON Schema of the CLI's project definition file (cli/schema/project-config.schema.json),
// made from the dashboard document's own schemas of what push sends (collections, RLS, indexes,
// webhooks, mail templates, settings), so that an editor checks the file by the API's rules
// and there is no second copy of them to drift. OpenAPI 3.0 schema objects become JSON Schema
// 2020-12: `nullable` turns into a null type; examples and `x-` extensions are left out.
type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Schemas = { [name: string]: Json };

const DROPPED = new Set(['example', 'nullable', 'discriminator', 'xml', 'externalDocs']);

function convert(node: Json, used: Set<string>): Json {
  if (Array.isArray(node)) return node.map((item) => convert(item, used));
  if (node === null || typeof node !== 'object') return node;
  const out: { [key: string]: Json } = {};
  for (const [key, value] of Object.entries(node)) {
    if (DROPPED.has(key) || key.startsWith('x-')) continue;
    if (key === '$ref' && typeof value === 'string') {
      const name = value.replace('#/components/schemas/', '');
      used.add(name);
      out.$ref = `#/$defs/${name}`;
    } else out[key] = convert(value, used);
  }
  if (node.nullable === true) {
    if (typeof out.type === 'string') out.type = [out.type, 'null'];
    else if (Array.isArray(out.enum)) out.enum = [...out.enum, null];
    else if (!out.type) return { anyOf: [out, { type: 'null' }] };
  }
  return out;
}

/** The request body of createFunction, from the bundled document (its parts are not named schemas). */
export type FunctionInput = { properties: { [key: string]: Json } };

/** The rule of a function's name, which names it in the file. */
export const functionNameRule = (input: FunctionInput, used: Set<string>): Json => {
  const { name } = input.properties;
  return convert(name!, used);
};

/** A function as the definition file holds it: JavaScript named by its file instead of its code. */
function functionInFile(input: FunctionInput, used: Set<string>): Json {
  const { trigger, runtime, failurePolicy, enabled } = input.properties;
  const branches = ((runtime as { oneOf: { [key: string]: Json }[] }).oneOf ?? []).map((branch) => {
    const properties = { ...(branch.properties as { [key: string]: Json }) };
    if (!('code' in properties)) return branch;
    delete properties.code;
    properties.file = {
      type: 'string',
      description: 'The code file, relative to the definition (functions/<name>.js).',
    };
    return { ...branch, required: ['type', 'file'], properties };
  });
  return {
    type: 'object',
    additionalProperties: false,
    required: ['trigger', 'runtime'],
    properties: convert(
      {
        trigger: trigger!,
        runtime: { oneOf: branches },
        failurePolicy: failurePolicy!,
        enabled: enabled!,
        env: {
          type: 'array',
          description: 'Names of its secrets; values are never in the file.',
          items: { type: 'string' },
        },
      },
      used,
    ),
  };
}

export function projectConfigSchema(schemas: Schemas, banner: string, functionInput: FunctionInput): Json {
  const used = new Set<string>();
  const ref = (name: string) => {
    used.add(name);
    return { $ref: `#/$defs/${name}` };
  };
  const collection = schemas.CollectionInput as { properties: { [key: string]: Json } };
  const { name: nameRule, ...collectionProperties } = collection.properties;
  const root: Json = {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $comment: banner,
    title: 'mongobaas project definition (mongobaas.config.json)',
    description: 'What `mongobaas pull` writes and `mongobaas push` applies; docs/cli.md.',
    type: 'object',
    additionalProperties: false,
    properties: {
      $schema: { type: 'string' },
      settings: ref('ProjectSettingsInput'),
      collections: {
        type: 'object',
        description: 'Collections by name.',
        propertyNames: convert(nameRule!, used),
        additionalProperties: {
          type: 'object',
          additionalProperties: false,
          properties: convert(collectionProperties, used),
        },
      },
      webhooks: {
        type: 'array',
        description: 'Matched by URL; secrets are never in the file.',
        items: ref('WebhookInput'),
      },
      mailTemplates: {
        type: 'object',
        description: 'Custom mail templates by name.',
        propertyNames: ref('MailTemplateName'),
        additionalProperties: ref('MailTemplateContent'),
      },
      functions: {
        type: 'object',
        description: 'Hooks and functions by name (docs/functions.md).',
        propertyNames: functionNameRule(functionInput, used),
        additionalProperties: functionInFile(functionInput, used),
      },
    },
  };
  const defs: { [name: string]: Json } = {};
  for (let added = true; added;) {
    added = false;
    for (const name of [...used].sort()) {
      if (defs[name] !== undefined) continue;
      if (schemas[name] === undefined) throw new Error(`project config schema: no component ${name}`);
      defs[name] = convert(schemas[name]!, used);
      added = true;
    }
  }
  return { ...(root as { [key: string]: Json }), $defs: Object.fromEntries(Object.entries(defs).sort()) };
}
