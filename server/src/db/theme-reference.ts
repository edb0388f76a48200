import { invalidField } from '../core/api-error.js';

/**
 * Runs a write that names a theme (`themeId` of a poll, a session or the workspace). The foreign key
 * on (workspace, theme) refuses a theme of another workspace, or one deleted a moment ago, even when
 * the write races the deletion: that refusal is the caller's 422 on `themeId`, not a 500.
 */
export async function naming<T>(themeId: string | null | undefined, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (themeId && isThemeReferenceViolation(error)) {
      throw invalidField('themeId', `No theme of this workspace has the id ${themeId}`);
    }
    throw error;
  }
}

/** PostgreSQL's foreign_key_violation on one of the `*_theme_fkey` constraints (migration 0015). */
function isThemeReferenceViolation(error: unknown): boolean {
  const { code, constraint, message } = error as { code?: unknown; constraint?: unknown; message?: unknown };
  if (code !== '23503') return false;
  const name = typeof constraint === 'string' ? constraint : typeof message === 'string' ? message : '';
  return name.includes('_theme_fkey');
}
