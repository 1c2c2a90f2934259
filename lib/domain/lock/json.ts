/**
 * JSON helpers the lock engine needs beyond JSON.parse: a depth guard that runs
 * before parsing, JSON pointers, and a parser that keeps number lexemes so a
 * float written as `1.0e15` stays a float when hashed.
 */

/** A JSON number as written in the source text. */
export class JsonNumber {
  constructor(readonly lexeme: string) {}
  /** Ruby reads a number with a '.', 'e' or 'E' as a Float; anything else is an Integer. */
  get isFloat(): boolean {
    return /[.eE]/.test(this.lexeme);
  }
  valueOf(): number {
    return Number(this.lexeme);
  }
}

/** The deepest nesting of arrays and objects in a JSON text (strings are skipped). */
export function jsonDepth(text: string, stopAbove = Infinity): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
      continue;
    }
    if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      depth++;
      if (depth > max) {
        max = depth;
        if (max > stopAbove) return max;
      }
    } else if (c === 125 || c === 93) depth--;
  }
  return max;
}

/** Escapes one reference token of a JSON pointer. */
export function pointerToken(token: string | number): string {
  return String(token).replace(/~/g, '~0').replace(/\//g, '~1');
}

export function pointer(...tokens: (string | number)[]): string {
  return tokens.map((t) => '/' + pointerToken(t)).join('');
}

/** Sets an own data property, even for keys such as `__proto__`. */
export function defineKey(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * Parses JSON text keeping every number as a {@link JsonNumber}. Keys such as
 * `__proto__` become plain own properties. Throws SyntaxError on invalid text.
 */
export function parseLossless(text: string): unknown {
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
      for (;;) {
        ws();
        if (text[i] !== '"') fail('expected a string key');
        const key = str();
        ws();
        if (text[i++] !== ':') fail("expected ':'");
        defineKey(obj, key, value());
        ws();
        const d = text[i++];
        if (d === '}') return obj;
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
    const m = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
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
