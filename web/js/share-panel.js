// The share dialog: the link for the current state (or, when it is too long, the state file instead) and the
// <iframe> snippet for the views and theme chosen. The single file, opened from disk, says that its links name a
// file on this computer and work only here, and offers the state file to send with it.

/** @import {PageState} from './types.js' */
import { byId, download, copyWithFeedback, fileName } from './dom.js';
import { encodeState, stateFile, MAX_LINK_CHARS } from './share.js';
import { embedUrl, iframeSnippet } from './embed.js';
import { count } from './format.js';
import { singleFile } from './single-file.js';
import { pageLanguage, t } from './i18n.js';

/**
 * @param {{getState: () => PageState, getName: () => string}} hooks
 */
export function attachSharePanel({ getState, getName }) {
  const dialog = byId('share-dialog', HTMLDialogElement);
  const linkField = byId('share-link', HTMLInputElement);
  const snippetField = byId('embed-snippet', HTMLTextAreaElement);
  const views = byId('embed-views', HTMLElement);
  const embedTheme = byId('embed-theme', HTMLSelectElement);
  // Not location.origin: a page opened from disk (the single file) has the origin "null".
  const pageAddress = () => location.href.replace(/[?#].*$/, '');
  // The link opens in this page's language, whatever the reader's browser prefers.
  const linkAddress = () => `${pageAddress()}?lang=${pageLanguage()}`;

  /** @returns {Promise<{fragment: string, tooLong: boolean}>} */
  const fragmentOf = async () => {
    const fragment = await encodeState(getState());
    return { fragment, tooLong: fragment.length > MAX_LINK_CHARS };
  };

  /** @param {string} fragment '' when there is no link */
  const showSnippet = (fragment) => {
    const checked = [...views.querySelectorAll('input:checked')].map((box) => /** @type {HTMLInputElement} */ (box).value);
    const chosen = checked.length > 0 ? checked : ['timeline'];
    const theme = embedTheme.value === 'light' || embedTheme.value === 'dark' ? embedTheme.value : null;
    snippetField.value = fragment
      ? iframeSnippet(embedUrl(pageAddress(), chosen, fragment, { theme, autoHeight: true, lang: pageLanguage() }), chosen, `PPB: ${getName() || t('pipeline plan')}`)
      : t('The state is too large for a link, so it cannot be embedded by link.');
  };

  if (singleFile) {
    byId('share-local', HTMLElement).hidden = false;
    byId('share-local-text', HTMLElement).textContent = t('This is the single-file page, opened from this computer: the link and the embed below point to ' +
      'the file at {file} and work only on this computer. To pass the plan on, send ppb.html together with a state file, which the page opens like a model file.',
    { file: decodeURIComponent(pageAddress()) });
    byId('share-local-download', HTMLButtonElement).addEventListener('click', () =>
      download(stateFile(getState()), `${fileName(getName())}.ppb-state.json`));
  }

  byId('share-button', HTMLButtonElement).addEventListener('click', async () => {
    const { fragment, tooLong } = await fragmentOf();
    byId('share-too-large', HTMLElement).hidden = !tooLong;
    byId('share-field', HTMLElement).hidden = tooLong;
    byId('share-too-large-text', HTMLElement).textContent = tooLong
      ? t('This state is too large for a link: {n} characters compressed, the limit is {limit} (the model is included). Download it as a state file instead; the page opens it again like a model file.',
        { n: count(fragment.length), limit: count(MAX_LINK_CHARS) })
      : '';
    if (!tooLong) {
      linkField.value = linkAddress() + fragment;
      byId('share-size', HTMLElement).textContent = t('{n} characters · the whole state, compressed', { n: count(fragment.length) });
      history.replaceState(null, '', fragment);
    }
    showSnippet(tooLong ? '' : fragment);
    if (!dialog.open) dialog.showModal();
  });
  const refresh = async () => {
    const { fragment, tooLong } = await fragmentOf();
    showSnippet(tooLong ? '' : fragment);
  };
  views.addEventListener('change', refresh);
  embedTheme.addEventListener('change', refresh);
  byId('share-copy', HTMLButtonElement).addEventListener('click', (event) =>
    copyWithFeedback(/** @type {HTMLButtonElement} */ (event.currentTarget), linkField.value, linkField));
  byId('embed-copy', HTMLButtonElement).addEventListener('click', (event) =>
    copyWithFeedback(/** @type {HTMLButtonElement} */ (event.currentTarget), snippetField.value, snippetField));
  byId('share-download', HTMLButtonElement).addEventListener('click', () =>
    download(stateFile(getState()), `${fileName(getName())}.ppb-state.json`));
}
