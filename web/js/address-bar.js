// Keeps the address bar on the current state, so that a reload or Back keeps the work: after every change (a plan
// drawn, a search setting, the theme) and a short pause, history.replaceState puts the state's share link in the
// fragment (one history entry, replaced, never one per change). A state whose link would be longer than a share
// link may be (a large model) is kept in this tab's sessionStorage instead, under a short key in the address
// (`#ppbtab.<key>`): reload and Back in this tab keep it, the address works nowhere else, and the page says so.
// When the tab cannot keep it either, the address holds nothing and the page says what a reload would lose.

/** @import {PageState} from './types.js' */
import { encodeState, packJson, unpackJson, MAX_LINK_CHARS, LinkError } from './share.js';
import { normaliseState } from './state.js';

/** How long the state must stay unchanged before the address follows it. */
const SETTLE_MS = 400;
export const TAB_PREFIX = '#ppbtab.';
const STORE_KEY = 'ppb.tab-state';

/**
 * Where the state is kept: 'link' (the address is a share link), 'tab' (a key to this tab's storage), 'none'
 * (nowhere: a reload shows the default example).
 * @typedef {'link' | 'tab' | 'none'} Kept
 * @typedef {{getState: () => PageState, enabled: boolean, onKept: (kept: Kept, chars: number) => void}} AddressHooks
 *   chars: the share link's length (for 'tab' and 'none', the packed model's, already too long)
 */

export class AddressBar {
  /** @param {AddressHooks} hooks enabled: false in embed mode, where the address is the embedder's */
  constructor(hooks) {
    this.hooks = hooks;
    this.timer = 0;
    /** Increases with every change, so an older encoding never overwrites a newer one. */
    this.version = 0;
    /** The last model packed, and its packed text: a large model is packed once, not at every change. */
    /** @type {{model: unknown, packed: Promise<string>} | null} */
    this.packedModel = null;
    /** @type {Kept | null} */
    this.kept = null;
  }

  /** The state changed: the address follows once it settles. */
  changed() {
    if (!this.hooks.enabled) return;
    clearTimeout(this.timer);
    const version = ++this.version;
    this.timer = window.setTimeout(() => { this.write(version).catch(() => {}); }, SETTLE_MS);
  }

  /** @param {unknown} model */
  pack(model) {
    const last = this.packedModel;
    if (last && last.model === model) return last.packed;
    const packed = packJson(model);
    this.packedModel = { model, packed };
    return packed;
  }

  /**
   * Writes the state into the address, or into this tab's storage under a key.
   * @param {number} version
   */
  async write(version) {
    const state = this.hooks.getState();
    if (!state.model || !Array.isArray(state.model.layers)) return;
    const model = await this.pack(state.model);
    // The model is most of a link; when it alone is too long the whole state is kept by the tab.
    if (model.length < MAX_LINK_CHARS) {
      const fragment = await encodeState(state);
      if (version !== this.version) return;
      if (fragment.length <= MAX_LINK_CHARS) {
        this.put(fragment, 'link', fragment.length);
        return;
      }
    }
    if (version !== this.version) return;
    try {
      const key = tabKey();
      sessionStorage.setItem(STORE_KEY, JSON.stringify({ key, model, state: { ...state, model: null } }));
      this.put(TAB_PREFIX + key, 'tab', model.length);
    } catch {
      // Storage full or unavailable: the address holds nothing rather than an older state.
      this.put('', 'none', model.length);
    }
  }

  /**
   * @param {string} fragment '' for none
   * @param {Kept} kept
   * @param {number} chars
   */
  put(fragment, kept, chars) {
    const base = location.href.replace(/#.*$/, '');
    if (location.hash !== fragment) history.replaceState(history.state, '', base + fragment);
    this.kept = kept;
    this.hooks.onKept(kept, chars);
  }
}

/** A short random key for this tab's stored state. */
function tabKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(6));
  return [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * Whether a fragment is a key to a state kept by a tab.
 * @param {string} hash
 */
export const isTabLink = (hash) => hash.startsWith(TAB_PREFIX);

/**
 * The state a tab key refers to, from this tab's storage; a LinkError when this tab does not have it.
 * @param {string} hash
 * @returns {Promise<PageState>}
 */
export async function readTabState(hash) {
  const key = hash.slice(TAB_PREFIX.length);
  /** @type {any} */
  let kept;
  try {
    kept = JSON.parse(sessionStorage.getItem(STORE_KEY) ?? 'null');
  } catch {
    kept = null;
  }
  if (!kept || kept.key !== key || typeof kept.model !== 'string' || typeof kept.state !== 'object' || kept.state === null) {
    throw new LinkError('This address points to a state kept only by the browser tab where it was made (its model is too large for a ' +
      'share link), and this tab does not have it. Ask for the state file instead (Export → State file).');
  }
  const state = normaliseState({ ...kept.state, model: await unpackJson(kept.model) });
  if (!state) throw new LinkError('The state this tab kept holds no model.');
  return state;
}
