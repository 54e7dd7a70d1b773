// Paths relative to the repository root, the same from src/ (tsx) and dist/ (compiled): both sit
// one level below the root.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export const repoPath = (...segments: string[]) => path.join(root, ...segments);
