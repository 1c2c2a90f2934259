/**
 * The reference lossless parser: a plain recursive-descent parser that builds every value itself.
 * {@link parseLossless} (lossless.ts) gives exactly its result, faster; this one stays as the
 * executable definition the property tests compare against, for subtrees the fast path hands back
 * (objects with repeated keys among lossless values), and for its error messages.
 */
import { defineKey, isIndexLikeKey, JsonNumber, setKeyOrder } from './json';

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/**
 * Parses JSON text keeping every number as a {@link JsonNumber}. Keys such as
 * `__proto__` become plain own properties. Throws SyntaxError on invalid text.
 */
export function parseLosslessReference(text: string): unknown {
  let i = 0;
  const fail = (what: string): never => {
    throw new SyntaxError(`${what} at position ${i}`);
  };
  const ws = () => {
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c === 32 || c === 9 || c === 10 || c === 13) i++;
      else break;
    }
  };
  const str = (): string => {
    const start = ++i;
    let hasEscape = false;
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c === 34) {
        const raw = text.slice(start, i++);
        return hasEscape ? (JSON.parse('"' + raw + '"') as string) : raw;
      }
      if (c === 92) {
        hasEscape = true;
        i += 2;
      } else if (c < 32) fail('control character in string');
      else i++;
    }
    return fail('unterminated string');
  };
  const value = (): unknown => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const obj: Record<string, unknown> = {};
      ws();
      if (text[i] === '}') {
        i++;
        return obj;
      }
      let order: string[] | null = null;
      let indexLike = false;
      for (;;) {
        ws();
        if (text[i] !== '"') fail('expected a string key');
        const key = str();
        ws();
        if (text[i++] !== ':') fail("expected ':'");
        // A repeated key keeps its first position and takes the last value (JS and Ruby alike).
        if (!Object.prototype.hasOwnProperty.call(obj, key)) {
          (order ??= []).push(key);
          if (!indexLike && isIndexLikeKey(key)) indexLike = true;
        }
        defineKey(obj, key, value());
        ws();
        const d = text[i++];
        if (d === '}') return indexLike ? setKeyOrder(obj, order!) : obj;
        if (d !== ',') fail("expected ',' or '}'");
      }
    }
    if (c === '[') {
      i++;
      const arr: unknown[] = [];
      ws();
      if (text[i] === ']') {
        i++;
        return arr;
      }
      for (;;) {
        arr.push(value());
        ws();
        const d = text[i++];
        if (d === ']') return arr;
        if (d !== ',') fail("expected ',' or ']'");
      }
    }
    if (c === '"') return str();
    NUMBER.lastIndex = i;
    const m = NUMBER.exec(text);
    if (m && m[0]) {
      i += m[0].length;
      return new JsonNumber(m[0]);
    }
    for (const [word, v] of [['true', true], ['false', false], ['null', null]] as const) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return v;
      }
    }
    return fail('unexpected token');
  };
  const result = value();
  ws();
  if (i !== text.length) fail('unexpected text after the document');
  return result;
}
