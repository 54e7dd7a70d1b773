// A collection definition for tests of the pure data logic (no database behind it).
import type { CollectionDef } from '../../src/services/types.js';

export const collectionDef = (
  mode: CollectionDef['mode'],
  fields: CollectionDef['fields'] = [],
): CollectionDef => ({
  id: 'c',
  projectId: 'p',
  name: 'things',
  mode,
  fields,
  rls: { enabled: false, mode: 'public-read', ownerField: 'userId' },
  createdAt: new Date(0),
  updatedAt: new Date(0),
});
