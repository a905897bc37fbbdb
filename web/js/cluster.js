// The cluster arithmetic the search panel shows before the engine runs (the engine does the same for every
// candidate, docs/search.md): dp = devices / (pp x tp x cp), micro batches = global batch / (micro batch size x dp).

/** @import {SearchSettings} from './types.js' */
import { count } from './format.js';
import { t } from './i18n.js';

/**
 * @param {string} text
 * @param {number} fallback the value of an empty field
 * @returns {number | null} a positive integer, or null when the text is not one
 */
function positive(text, fallback) {
  const trimmed = text.trim();
  if (trimmed === '') return fallback;
  const value = Number(trimmed);
  return Number.isInteger(value) && value > 0 ? value : null;
}

/**
 * What the cluster gives the plan's pp_degree, in words; null when there is no cluster (devices empty).
 * @param {SearchSettings} q
 * @param {string} ppText the plan's pp_degree as typed
 * @returns {{dpText: string, sentence: string} | null}
 */
export function clusterShape(q, ppText) {
  if (q.world_size.trim() === '') return null;
  const world = positive(q.world_size, 0);
  const tp = positive(q.tp_degree, 1);
  const cp = positive(q.cp_degree, 1);
  const gbs = positive(q.global_batch_size, 0);
  const mbs = positive(q.micro_batch_size, 1);
  const pp = positive(ppText, 1);
  if (!world || !tp || !cp || !pp) return { dpText: '–', sentence: t('devices, tp_degree and cp_degree must be whole numbers above 0.') };
  const replica = pp * tp * cp;
  if (world % replica !== 0) {
    return { dpText: '–', sentence: t('At pp {pp}: {world} devices do not divide into pipelines of pp {pp} × tp {tp} × cp {cp} = {replica}.',
      { pp, world: count(world), tp, cp, replica: count(replica) }) };
  }
  const dp = world / replica;
  const base = t('dp = devices / (pp × tp × cp); at pp {pp}: dp {dp}', { pp, dp: count(dp) });
  const dpText = t('{dp} at pp {pp}', { dp: count(dp), pp });
  if (!gbs || !mbs) return { dpText, sentence: `${base}${t('.')}` };
  const m = gbs / (mbs * dp);
  const micro = Number.isInteger(m) ? t('{m} micro batches of {mbs}', { m: count(m), mbs: count(mbs) })
    : t('the global batch {gbs} does not divide into dp {dp} × micro batch size {mbs}', { gbs: count(gbs), dp: count(dp), mbs: count(mbs) });
  return { dpText, sentence: `${base}${t(', ')}${micro}${t('.')}` };
}
