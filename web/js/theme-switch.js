// The colour theme: the state's choice ('auto', 'light', 'dark') applied to the document and to the theme button.
// The button cycles through the three; "auto" follows the system, resolved into data-scheme the same way the
// charts resolve their palette (js/theme.js), so the page's styles and the charts always agree.

/** @import {Store} from './store.js' */
import { paletteFor } from './theme.js';
import { t } from './i18n.js';

export class ThemeSwitch {
  /**
   * @param {HTMLButtonElement} button
   * @param {Store} store
   * @param {() => void} onChange redraws what depends on the palette
   * @param {'light' | 'dark' | null} [fixed] a theme that overrides the state's (an embed's theme parameter)
   */
  constructor(button, store, onChange, fixed = null) {
    this.button = button;
    this.store = store;
    this.fixed = fixed;
    button.addEventListener('click', () => {
      const ui = store.state.ui;
      ui.theme = ui.theme === 'auto' ? 'light' : ui.theme === 'light' ? 'dark' : 'auto';
      this.apply();
      onChange();
    });
    matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => {
      if (this.theme() !== 'auto') return;
      this.apply();
      onChange();
    });
  }

  /** The palette of the theme in force, for the charts. */
  palette() {
    return paletteFor(this.theme());
  }

  /** The theme in force: the fixed one, else the state's choice. */
  theme() {
    return this.fixed ?? this.store.state.ui.theme;
  }

  /** Applies the state's theme to the document and the button. */
  apply() {
    const theme = this.theme();
    document.documentElement.dataset.theme = theme;
    document.documentElement.dataset.scheme = this.palette().name;
    this.button.textContent = t(`Theme: ${theme}`);
    // The accessible name starts with the visible text (WCAG 2.5.3, label in name).
    this.button.title = t(theme === 'auto' ? 'Colour theme: follows the system; click for light' : `Colour theme: ${theme}; click for ${theme === 'light' ? 'dark' : 'auto'}`);
  }
}
