// Custom mail templates of a project (platform database, collection `mail_templates`), unique by
// name within the project.
import type { Db } from 'mongodb';
import { isDuplicateKey } from './errors.js';
import { ObjectId, toObjectId } from './ids.js';
import { registerPlatformIndexes } from './platform.js';
import { replaceInProject } from './restored.js';

const COLLECTION = 'mail_templates';
registerPlatformIndexes(COLLECTION, [
  { key: { projectId: 1, name: 1 }, name: 'u_project_name', unique: true },
]);

export interface MailTemplateFields {
  subject: string;
  text: string | null;
  html: string | null;
}

export interface StoredMailTemplate extends MailTemplateFields {
  id: string;
  projectId: string;
  name: string;
  createdAt: Date;
  updatedAt: Date;
}

interface TemplateDoc extends MailTemplateFields {
  _id: ObjectId;
  projectId: ObjectId;
  name: string;
  createdAt: Date;
  updatedAt: Date;
}

const toTemplate = (doc: TemplateDoc): StoredMailTemplate => ({
  id: doc._id.toHexString(),
  projectId: doc.projectId.toHexString(),
  name: doc.name,
  subject: doc.subject,
  text: doc.text,
  html: doc.html,
  createdAt: doc.createdAt,
  updatedAt: doc.updatedAt,
});

export function mailTemplatesRepo(db: Db) {
  const templates = db.collection<TemplateDoc>(COLLECTION);
  const scope = (projectId: string) => ({ projectId: toObjectId(projectId) ?? new ObjectId(0) });

  return {
    async list(projectId: string): Promise<StoredMailTemplate[]> {
      const docs = await templates.find(scope(projectId)).sort({ name: 1 }).limit(1000).toArray();
      return docs.map(toTemplate);
    },
    async findByName(projectId: string, name: string): Promise<StoredMailTemplate | undefined> {
      const doc = await templates.findOne({ ...scope(projectId), name: { $eq: name } });
      return doc ? toTemplate(doc) : undefined;
    },
    async findById(projectId: string, id: string): Promise<StoredMailTemplate | undefined> {
      const _id = toObjectId(id);
      const doc = _id && (await templates.findOne({ ...scope(projectId), _id }));
      return doc ? toTemplate(doc) : undefined;
    },
    /** undefined when the name is taken. */
    async create(
      projectId: string,
      name: string,
      fields: MailTemplateFields,
    ): Promise<StoredMailTemplate | undefined> {
      const now = new Date();
      const doc: TemplateDoc = {
        _id: new ObjectId(),
        projectId: toObjectId(projectId)!,
        name,
        ...fields,
        createdAt: now,
        updatedAt: now,
      };
      try {
        await templates.insertOne(doc);
      } catch (err) {
        if (isDuplicateKey(err)) return undefined;
        throw err;
      }
      return toTemplate(doc);
    },
    async update(
      projectId: string,
      name: string,
      fields: MailTemplateFields,
    ): Promise<StoredMailTemplate | undefined> {
      const doc = await templates.findOneAndUpdate(
        { ...scope(projectId), name: { $eq: name } },
        { $set: { ...fields, updatedAt: new Date() } },
        { returnDocument: 'after' },
      );
      return doc ? toTemplate(doc) : undefined;
    },
    async delete(projectId: string, name: string): Promise<boolean> {
      const res = await templates.deleteOne({ ...scope(projectId), name: { $eq: name } });
      return res.deletedCount === 1;
    },
    /** A custom template a restore brings back under `id` into `projectId`. */
    async restore(
      projectId: string,
      id: string,
      name: string,
      fields: MailTemplateFields,
      dates: { createdAt: Date; updatedAt: Date },
    ): Promise<void> {
      await replaceInProject(templates, projectId, id, { name, ...fields, ...dates });
    },
    async deleteAll(projectId: string): Promise<void> {
      await templates.deleteMany(scope(projectId));
    },
  };
}

export type MailTemplatesRepo = ReturnType<typeof mailTemplatesRepo>;
