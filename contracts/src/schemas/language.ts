import { z } from 'zod';
import { type SupportedLanguage, supportedLanguage, supportedLanguages } from '../languages.js';
import { text } from './text.js';

const SUPPORTED = supportedLanguages.join(', ');

/** A language as the API answers it: one of the supported tags, canonical. */
export const Language = z
  .enum(supportedLanguages)
  .describe(
    `The language of the audience page and presenter screen (BCP 47): one of ${SUPPORTED}. See docs/languages.md.`,
  )
  .meta({ id: 'Language' });

/**
 * A language as a client sends it: any case, any regional variant of a supported language, turned
 * into the supported tag it means (`de-AT` → `de`, `pt` → `pt-BR`, `zh` → `zh-Hans`).
 */
export const LanguageInput = text()
  .max(64)
  .transform((tag, ctx): SupportedLanguage => {
    const language = supportedLanguage(tag);
    if (!language) {
      ctx.addIssue({ code: 'custom', message: `Not a supported language: use one of ${SUPPORTED}` });
      return z.NEVER;
    }
    return language;
  })
  .describe(
    `A BCP 47 language tag, case-insensitive; a regional variant is read as its language (\`de-AT\` → \`de\`, ` +
      `\`pt\` → \`pt-BR\`, \`zh\` → \`zh-Hans\`). Supported: ${SUPPORTED}.`,
  );

export type Language = z.output<typeof Language>;
