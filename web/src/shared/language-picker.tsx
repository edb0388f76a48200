import { language, languageName, languages, t } from './i18n.js';

/**
 * The page's foot: the languages the server offers, each in its own name (`Deutsch`, `日本語`).
 * Choosing one loads the same address with `?lang=` (the other parameters and the fragment kept),
 * and the server answers the page in that language; a joined participant rejoins with the token the
 * page keeps. Nothing when there is only one language.
 */
export function LanguagePicker() {
  if (languages.length < 2) return null;
  return (
    <footer class="page-footer">
      <label class="language">
        <span>{t('common.language.label')}</span>
        <select
          value={language}
          onChange={(event) => {
            const url = new URL(location.href);
            url.searchParams.set('lang', (event.currentTarget as HTMLSelectElement).value);
            location.assign(url.href);
          }}
        >
          {languages.map((tag) => (
            <option key={tag} value={tag} lang={tag}>
              {languageName(tag)}
            </option>
          ))}
        </select>
      </label>
    </footer>
  );
}
