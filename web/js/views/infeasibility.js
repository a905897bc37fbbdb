// Why a plan cannot fit and what would (the engine's `result.infeasibility` of balance and search, docs/search.md
// "Infeasibility explained"): the engine's sentence with the numbers, the bound against the limit, each thing that
// would fit (the smallest pp_degree, a recompute option, the memory), and a button that runs the search it suggests.

/** @import {Infeasibility} from '../types.js' */
import { el } from '../dom.js';
import { mib } from '../format.js';
import { t } from '../i18n.js';
import { engineSentence } from '../engine-text.js';

/**
 * @param {Infeasibility} inf
 * @param {{onSearch: (() => void) | null, searchLabel: string}} options onSearch: runs the suggested search (null:
 *   nothing to search, only more memory would fit)
 * @returns {HTMLElement}
 */
export function renderInfeasibility(inf, { onSearch, searchLabel }) {
  const items = [];
  if (inf.min_pp_degree !== null) {
    items.push(el('li', { data: { suggests: 'pp_degree' }, text: t(inf.min_pp_degree_checked
      ? 'pp_degree {pp} is the smallest larger pp_degree at which a plan fits (same schedule and recompute options).'
      : 'pp_degree {pp} is the smallest larger pp_degree the bound does not rule out (not decided exactly).', { pp: inf.min_pp_degree }) }));
  }
  if (inf.recompute_option !== null) {
    items.push(el('li', { data: { suggests: 'recompute' }, text: t(inf.recompute_option_checked
      ? 'Allowing the recompute option {option} makes this shape fit.'
      : 'Allowing the recompute option {option} may make this shape fit (the bound does not rule it out).', { option: inf.recompute_option }) }));
  }
  items.push(el('li', { data: { suggests: 'memory' }, text: t(inf.proven
    ? 'A memory limit of {need} fits: the least any plan of this shape needs.'
    : 'A memory limit of {need} fits the plan shown.', { need: mib(Math.ceil(inf.memory_needed_mib)) }) }));
  const message = engineSentence(inf.message);
  return el('div', { class: 'infeasibility', attrs: { id: 'infeasibility', role: 'status' } }, [
    el('p', { class: 'infeasibility-title', text: inf.proven
      ? t('No plan of this shape fits: every plan needs at least {bound} on its largest stage, over the {limit} limit.', {
        bound: mib(Math.ceil(inf.lower_bound_mib)), limit: mib(inf.limit_mib) })
      : t('This plan does not fit the {limit} limit.', { limit: mib(inf.limit_mib) }) }),
    // The engine's own sentence, with its numbers (static memory alone, the bound, or the least-over plan's need).
    el('p', { class: 'infeasibility-message', text: message.text, attrs: { lang: message.lang } }),
    el('p', { class: 'infeasibility-what', text: t('What would fit:') }),
    el('ul', {}, items),
    onSearch ? el('button', { class: 'button small primary', text: searchLabel, attrs: { type: 'button', id: 'infeasibility-search' },
      on: { click: onSearch } }) : null,
  ]);
}
