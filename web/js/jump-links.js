// In-page jumps (the skip link, the phone's "Inputs / Results" bar): the focus and the view move to the target
// without touching the address, whose fragment holds the page's state (js/address-bar.js).

/**
 * Wires every `a[data-jump]` under root: a click (or Enter) moves the focus to the element its href names.
 * @param {ParentNode} root
 */
export function attachJumpLinks(root) {
  for (const link of root.querySelectorAll('a[data-jump]')) {
    link.addEventListener('click', (event) => {
      const target = document.getElementById((link.getAttribute('href') ?? '').slice(1));
      if (!(target instanceof HTMLElement)) return;
      event.preventDefault();
      target.focus({ preventScroll: true });
      target.scrollIntoView({ block: 'start' });
    });
  }
}
