// The Query Builder (DECISIONS §8): a prompt and a collection in, a query the data API accepts
// out, checked by the data API's own parsers and never run here. `users` is refused.
import { notFound } from '../../http/errors.js';
import { usersBlocked, USERS_COLLECTION, type DefinitionLookup } from '../data/access.js';
import type { RequestContext } from '../context.js';
import type { AiRequestKit } from './request.js';
import { parseModelJson } from './model-output.js';
import { queryBuilderPrompt } from './prompts.js';
import { checkQueryAnswer } from './query-check.js';

export function queryBuilder(
  kit: AiRequestKit,
  definitions: DefinitionLookup,
  listNames: (projectId: string) => Promise<string[]>,
) {
  return async function buildQuery(
    ctx: RequestContext,
    projectId: string,
    input: { collection: string; prompt: string },
  ) {
    const target = await kit.open(ctx, projectId);
    if (input.collection === USERS_COLLECTION) usersBlocked();
    const def = await definitions(target.project.id, input.collection);
    if (!def) throw notFound(`Collection "${input.collection}" not found`, 'COLLECTION_NOT_FOUND');
    const others = (await listNames(target.project.id)).filter(
      (n) => n !== def.name && n !== USERS_COLLECTION,
    );
    const { result, key } = await kit.run(target, 'queryBuilder', async (complete) => {
      const content = await complete([
        { role: 'system', content: queryBuilderPrompt(def, others) },
        { role: 'user', content: input.prompt },
      ]);
      return checkQueryAnswer(def, parseModelJson(content, 'query'), definitions);
    });
    kit.count(target.project.id, 'aiQueryBuilder');
    return { collection: def.name, keySource: key.source, query: result };
  };
}
