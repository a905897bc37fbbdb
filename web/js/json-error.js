// Where a text stops being JSON (RFC 8259), found by scanning it once: the first offending character and why. Run only
// after JSON.parse has refused a text, whose messages differ between engines and often give no position at all
// (Chromium: `Unexpected token ','` for `[1, 2,, 3]`), so a person is pointed at the double comma, not at the end.
// A state machine with an explicit stack, so deep nesting cannot overflow the call stack.

const ENDS = 'the text ends before the JSON does (a bracket, brace or quote is not closed)';

/**
 * @param {string} ch
 * @returns {string}
 */
const shown = (ch) => (ch < ' ' || ch === '\u007f' ? `U+${ch.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}` : `"${ch}"`);

/**
 * The first place where text is not JSON, or null when it is JSON.
 * @param {string} text
 * @returns {{position: number, reason: string} | null}
 */
export function jsonErrorAt(text) {
  const n = text.length;
  let i = 0;
  /** @type {('object' | 'array')[]} */
  const stack = [];
  /** @type {'value' | 'key' | 'after'} */
  let expect = 'value';
  const space = () => {
    while (i < n && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) ++i;
  };
  const isDigit = (/** @type {string | undefined} */ ch) => ch !== undefined && ch >= '0' && ch <= '9';
  /** @param {number} at @param {string} reason */
  const fail = (at, reason) => ({ position: at, reason: at >= n ? ENDS : reason });

  /** Reads the string starting at i (a quote); returns an error, or null with i after its closing quote. */
  const string = () => {
    ++i;
    while (i < n) {
      const ch = text[i];
      if (ch === '"') {
        ++i;
        return null;
      }
      if (ch < ' ') return fail(i, `a control character (${shown(ch)}) inside a string; write a line break as \\n and a tab as \\t`);
      if (ch === '\\') {
        const next = text[i + 1];
        if (next === 'u') {
          for (let k = 2; k < 6; ++k) {
            if (!/^[0-9a-fA-F]$/.test(text[i + k] ?? '')) return fail(i + k, 'a \\u escape needs four hexadecimal digits');
          }
          i += 6;
          continue;
        }
        if (next === undefined || !'"\\/bfnrt'.includes(next)) return fail(i + 1, 'an unknown escape after a backslash (JSON knows \\" \\\\ \\/ \\b \\f \\n \\r \\t \\u)');
        i += 2;
        continue;
      }
      ++i;
    }
    return fail(n, ENDS);
  };

  /** Reads the number starting at i; returns an error, or null with i after it. */
  const number = () => {
    if (text[i] === '-') ++i;
    if (text[i] === '0') ++i;
    else if (isDigit(text[i])) while (isDigit(text[i])) ++i;
    else return fail(i, 'a digit must follow the minus sign');
    if (text[i] === '.') {
      ++i;
      if (!isDigit(text[i])) return fail(i, 'a digit must follow the decimal point');
      while (isDigit(text[i])) ++i;
    }
    if (text[i] === 'e' || text[i] === 'E') {
      ++i;
      if (text[i] === '+' || text[i] === '-') ++i;
      if (!isDigit(text[i])) return fail(i, 'a digit must follow the exponent');
      while (isDigit(text[i])) ++i;
    }
    return null;
  };

  for (;;) {
    space();
    if (expect === 'value') {
      if (i >= n) return fail(n, ENDS);
      const ch = text[i];
      let problem = null;
      if (ch === '{' || ch === '[') {
        ++i;
        space();
        if (text[i] === (ch === '{' ? '}' : ']')) {
          ++i;
          expect = 'after';
          continue;
        }
        stack.push(ch === '{' ? 'object' : 'array');
        expect = ch === '{' ? 'key' : 'value';
        continue;
      }
      if (ch === '"') problem = string();
      else if (ch === '-' || isDigit(ch)) problem = number();
      else if (text.startsWith('true', i)) i += 4;
      else if (text.startsWith('false', i)) i += 5;
      else if (text.startsWith('null', i)) i += 4;
      else if (ch === ',') return fail(i, 'a value is missing before this comma (two commas in a row, or a comma after an opening bracket)');
      else if (ch === ']' || ch === '}') return fail(i, 'a value is missing before this bracket (a comma too many)');
      else if (ch === "'") return fail(i, 'JSON strings take double quotes, not single ones');
      else return fail(i, `unexpected character ${shown(ch)} where a value should start`);
      if (problem) return problem;
      expect = 'after';
    } else if (expect === 'key') {
      if (i >= n) return fail(n, ENDS);
      if (text[i] === '}') return fail(i, 'a name is missing before this brace (a comma too many)');
      if (text[i] !== '"') return fail(i, 'expected a name in double quotes');
      const problem = string();
      if (problem) return problem;
      space();
      if (text[i] !== ':') return fail(i, 'expected a colon after the name');
      ++i;
      expect = 'value';
    } else {
      const top = stack.at(-1);
      if (top === undefined) return i < n ? fail(i, 'unexpected text after the end of the JSON') : null;
      if (i >= n) return fail(n, ENDS);
      const ch = text[i];
      if (ch === ',') {
        ++i;
        expect = top === 'object' ? 'key' : 'value';
      } else if (ch === (top === 'object' ? '}' : ']')) {
        ++i;
        stack.pop();
      } else {
        return fail(i, top === 'object' ? 'expected a comma or a closing brace' : 'expected a comma or a closing bracket');
      }
    }
  }
}
