// A project's storage settings on the dashboard (project admins): its own S3-compatible bucket
// (Pro) and end-user uploads.
import type { operations } from '../../generated/dashboard.js';
import type { Handler } from '../http/types.js';
import type { Services } from '../services/index.js';

type Ops = operations;

export function storageSettingsHandlers({ projects, storage }: Services) {
  const getStorageSettings: Handler<Ops['getStorageSettings']> = async ({ params }, ctx) => {
    const project = await projects.requireAccess(ctx, params.projectId, 'admin');
    return { status: 200, body: { success: true, data: await storage.settings.get(project), message: '' } };
  };

  const setExternalStorage: Handler<Ops['setExternalStorage']> = async ({ params, body }, ctx) => {
    const project = await projects.requireAccess(ctx, params.projectId, 'admin');
    const data = await storage.settings.setExternal(project, body);
    return { status: 200, body: { success: true, data, message: 'External storage saved and verified' } };
  };

  const updateStorageSettings: Handler<Ops['updateStorageSettings']> = async ({ params, body }, ctx) => {
    const project = await projects.requireAccess(ctx, params.projectId, 'admin');
    const data = await storage.settings.update(project, body);
    return { status: 200, body: { success: true, data, message: 'Storage settings saved' } };
  };

  const removeExternalStorage: Handler<Ops['removeExternalStorage']> = async ({ params }, ctx) => {
    const project = await projects.requireAccess(ctx, params.projectId, 'admin');
    const data = await storage.settings.removeExternal(project);
    return { status: 200, body: { success: true, data, message: 'Back to the internal storage provider' } };
  };

  return { getStorageSettings, setExternalStorage, updateStorageSettings, removeExternalStorage };
}
