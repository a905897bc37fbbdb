// The engine's sentences (a search's reasons, a balance's notes, caveats, the reasons of what does not fit) as the
// page shows them: numbers written as the tables write them (js/format.js, tidyNumbers), and on the Chinese page in
// Chinese where js/lang/zh-engine.js knows the sentence's pattern. A sentence made of clauses ("...; ...") is
// translated clause by clause; one the table does not know stays English, marked lang="en".

import { tidyNumbers } from './format.js';
import { pageLanguage } from './i18n.js';
import { ZH_ENGINE } from './lang/zh-engine.js';

/**
 * One clause in Chinese, or null when no pattern matches it whole.
 * @param {string} clause
 * @returns {string | null}
 */
function translateClause(clause) {
  for (const [pattern, template] of ZH_ENGINE) {
    const match = pattern.exec(clause);
    if (!match) continue;
    return template.replace(/\$(\d)/g, (_, n) => {
      const part = match[Number(n)] ?? '';
      // A captured part with words in it (a plan, a measure, a ranking's name) is translated too where a pattern knows
      // it; names and numbers stay as they are.
      return /[a-z]{3,}/.test(part) ? translateClause(part) ?? part : part;
    });
  }
  return null;
}

/**
 * A sentence's clauses: split at "; " outside parentheses.
 * @param {string} sentence
 * @returns {string[]}
 */
function splitClauses(sentence) {
  const clauses = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < sentence.length; ++i) {
    const ch = sentence[i];
    if (ch === '(') ++depth;
    else if (ch === ')') depth = Math.max(0, depth - 1);
    else if (ch === ';' && depth === 0 && sentence[i + 1] === ' ') {
      clauses.push(sentence.slice(start, i));
      start = i + 2;
    }
  }
  clauses.push(sentence.slice(start));
  return clauses;
}

/**
 * An engine sentence in the page's language, with its language for the element's lang attribute ('en' when it stays
 * English on a Chinese page, null when it is in the page's language).
 * @param {string} sentence
 * @returns {{text: string, lang: 'en' | null}}
 */
export function engineSentence(sentence) {
  const tidy = tidyNumbers(sentence);
  if (pageLanguage() !== 'zh') return { text: tidy, lang: null };
  const clauses = splitClauses(tidy.replace(/\.$/, ''));
  const translated = clauses.map(translateClause);
  if (translated.every((clause) => clause !== null)) return { text: `${translated.join('；')}。`, lang: null };
  return { text: tidy, lang: 'en' };
}
