/**
 * The lossless JSON parser (issue 31): `JSON.parse` builds the document, and one scan of the text
 * finds the few places where its result is not what the console needs:
 * - every number, kept as a {@link JsonNumber} with its lexeme (`1.0`, `1e2`, `-0`, 31-digit
 *   integers), which `JSON.parse` would round to a JS number;
 * - objects with integer-like keys (`"1"`, `"10"`), whose document order is recorded
 *   ({@link setKeyOrder}) because JS moves those keys to the front.
 * The scan notes them in a sparse skeleton (only the containers on the way to them), then patches
 * the parsed tree along it. Allocation is per special place, not per token.
 *
 * The result is exactly {@link parseLosslessReference}'s (lossless-reference.ts; property tests
 * compare the two on generated JSON). Where a path through the skeleton crosses an object with a
 * repeated key (the parsed object then has fewer keys than the text), that object is re-read by the
 * reference parser, which keeps each key's first position and last value as JSON.parse does.
 */
import { defineKey, isIndexLikeKey, JsonNumber, setKeyOrder } from './json';
import { parseLosslessReference } from './lossless-reference';

/** A container on the way to a special place: what to patch in it once `JSON.parse` has built it. */
interface Skeleton {
  object: boolean;
  /** Offsets of the container's first and last character in the text. */
  start: number;
  end: number;
  /** Keys seen in the text (repeats included): more than the parsed object has means a repeated key. */
  keyCount: number;
  /** Has an integer-like key: its keys in document order are recorded. */
  indexLike: boolean;
  order: string[] | null;
  /** Members to patch: a segment (key or index) and a lexeme or a nested skeleton. */
  segments: (string | number)[];
  values: (JsonNumber | Skeleton)[];
}

const newSkeleton = (object: boolean, start: number): Skeleton => ({ object, start, end: -1, keyCount: 0, indexLike: false, order: null, segments: [], values: [] });

/**
 * Parses JSON text keeping every number as a {@link JsonNumber} and the document order of objects
 * whose keys JS would reorder. Keys such as `__proto__` become plain own properties. Throws
 * SyntaxError on invalid text (with the reference parser's message).
 */
export function parseLossless(text: string): unknown {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    // The reference parser's message (position and what it expected); it refuses what JSON.parse refuses.
    parseLosslessReference(text);
    throw e;
  }
  if (parsed === null || typeof parsed !== 'object') {
    // A bare scalar document: a number keeps its lexeme.
    return typeof parsed === 'number' ? new JsonNumber(text.trim()) : parsed;
  }
  const root = scan(text);
  return root ? patch(text, root, parsed) : parsed;
}

/** The scanner's stacks, one entry per open container (kept between calls: a parse allocates none). */
interface Stacks {
  /** 1: object, 0: array. */
  kind: Uint8Array;
  /** Object: keys so far; array: index of the current element. */
  count: Int32Array;
  /** Offset of the container's first character. */
  opened: Int32Array;
  /** Where the container's keys start in `keys`. */
  keyBase: Int32Array;
  /** [start, end) of every key of the open objects, innermost last. */
  keys: Int32Array;
  skeletons: (Skeleton | null)[];
  root: Skeleton | null;
}

const stacks: Stacks = { kind: new Uint8Array(64), count: new Int32Array(64), opened: new Int32Array(64), keyBase: new Int32Array(64), keys: new Int32Array(1024), skeletons: new Array(64).fill(null), root: null };

function growDepth(st: Stacks) {
  const n = st.kind.length * 2;
  const grow = <T extends Uint8Array | Int32Array>(a: T, b: T): T => (b.set(a), b);
  st.kind = grow(st.kind, new Uint8Array(n));
  st.count = grow(st.count, new Int32Array(n));
  st.opened = grow(st.opened, new Int32Array(n));
  st.keyBase = grow(st.keyBase, new Int32Array(n));
  st.skeletons = st.skeletons.concat(new Array(n - st.skeletons.length).fill(null));
}

function growKeys(st: Stacks) {
  const k = new Int32Array(st.keys.length * 2);
  k.set(st.keys);
  st.keys = k;
}

/** The decoded key at keys[at] (a rare path: keys on the way to a special place, or integer-like). */
function keyAt(text: string, st: Stacks, at: number): string {
  const raw = text.slice(st.keys[at], st.keys[at + 1]);
  return raw.includes('\\') ? (JSON.parse('"' + raw + '"') as string) : raw;
}

/** The segment (key or index) of the current member of container `d`; `depth` and `keyTop` are the scanner's. */
function segmentAt(text: string, st: Stacks, d: number, depth: number, keyTop: number): string | number {
  return st.kind[d] === 1 ? keyAt(text, st, d === depth ? keyTop - 2 : st.keyBase[d + 1] - 2) : st.count[d];
}

/** The skeleton of container `d`, made (with those of its ancestors) on first need. */
function skeletonAt(text: string, st: Stacks, d: number, depth: number, keyTop: number): Skeleton {
  let s = st.skeletons[d];
  if (s) return s;
  s = newSkeleton(st.kind[d] === 1, st.opened[d]);
  st.skeletons[d] = s;
  if (d === 0) st.root = s;
  else {
    const parent = skeletonAt(text, st, d - 1, depth, keyTop);
    parent.segments.push(segmentAt(text, st, d - 1, depth, keyTop));
    parent.values.push(s);
  }
  return s;
}

/** At the close of container `depth` with a skeleton: its key count, and its document order if it has integer-like keys. */
function closeSkeleton(text: string, st: Stacks, s: Skeleton, depth: number, keyTop: number, end: number) {
  s.end = end;
  s.keyCount = st.count[depth];
  if (!s.indexLike) return;
  const order: string[] = [];
  const seen = new Set<string>();
  for (let k = st.keyBase[depth]; k < keyTop; k += 2) {
    const key = keyAt(text, st, k);
    if (!seen.has(key)) {
      seen.add(key);
      order.push(key);
    }
  }
  s.order = order;
}

/**
 * One pass over valid JSON text (JSON.parse accepted it): returns the skeleton of the special places,
 * or null when `JSON.parse`'s result is already exact. The loop keeps its state in locals (no
 * closures over it: V8 would keep captured variables in memory, not registers).
 */
function scan(text: string): Skeleton | null {
  const st = stacks;
  st.root = null;
  let kind = st.kind;
  let count = st.count;
  let opened = st.opened;
  let keyBase = st.keyBase;
  let skeletons = st.skeletons;
  let keys = st.keys;
  const len = text.length;
  let depth = -1;
  let keyTop = 0;
  let expectKey = false;
  let backslash = text.indexOf('\\');
  if (backslash < 0) backslash = len;
  let i = 0;
  while (i < len) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      // The closing quote: the next '"' not escaped (skipping each backslash and the character it escapes).
      const s = i + 1;
      let q = text.indexOf('"', s);
      while (backslash < q) {
        if (backslash >= s) {
          const p = backslash + 2;
          if (p > q) q = text.indexOf('"', p);
          backslash = text.indexOf('\\', p);
        } else backslash = text.indexOf('\\', s);
        if (backslash < 0) backslash = len;
      }
      if (expectKey) {
        expectKey = false;
        if (keyTop + 2 > keys.length) {
          growKeys(st);
          keys = st.keys;
        }
        keys[keyTop++] = s;
        keys[keyTop++] = q;
        count[depth]++;
        const first = text.charCodeAt(s);
        if ((first >= 48 && first <= 57) || first === 92) {
          if (isIndexLikeKey(keyAt(text, st, keyTop - 2))) skeletonAt(text, st, depth, depth, keyTop).indexLike = true;
        }
        i = q + 1;
        if (text.charCodeAt(i) === 58 /* : */) i++;
      } else {
        i = q + 1;
        // A member's or an element's end, in compact JSON.
        if (text.charCodeAt(i) === 44 /* , */) {
          if (kind[depth] === 1) expectKey = true;
          else count[depth]++;
          i++;
        }
      }
    } else if (c === 44 /* , */) {
      if (kind[depth] === 1) expectKey = true;
      else count[depth]++;
      i++;
    } else if (c === 123 /* { */ || c === 91 /* [ */) {
      if (++depth === kind.length) {
        growDepth(st);
        kind = st.kind;
        count = st.count;
        opened = st.opened;
        keyBase = st.keyBase;
        skeletons = st.skeletons;
      }
      kind[depth] = c === 123 ? 1 : 0;
      count[depth] = 0;
      opened[depth] = i;
      keyBase[depth] = keyTop;
      skeletons[depth] = null;
      expectKey = c === 123;
      i++;
    } else if (c === 125 /* } */ || c === 93 /* ] */) {
      const s = skeletons[depth];
      if (s) {
        closeSkeleton(text, st, s, depth, keyTop, i);
        skeletons[depth] = null;
      }
      keyTop = keyBase[depth];
      depth--;
      expectKey = false;
      i++;
    } else if (c === 45 /* - */ || (c >= 48 && c <= 57)) {
      let j = i + 1;
      for (; j < len; j++) {
        const d = text.charCodeAt(j);
        // digits . e E + -
        if (!((d >= 48 && d <= 57) || d === 46 || d === 101 || d === 69 || d === 43 || d === 45)) break;
      }
      const s = skeletonAt(text, st, depth, depth, keyTop);
      s.segments.push(segmentAt(text, st, depth, depth, keyTop));
      s.values.push(new JsonNumber(text.slice(i, j)));
      i = j;
    } else if (c === 116 /* t */ || c === 110 /* n */) i += 4;
    else if (c === 102 /* f */) i += 5;
    else i++; // ':', whitespace
  }
  const root = st.root;
  st.root = null;
  return root;
}

/** Applies the skeleton to what JSON.parse built; returns the value to use in its place. */
function patch(text: string, s: Skeleton, value: unknown): unknown {
  const target = value as Record<string | number, unknown>;
  if (s.object && Object.keys(target).length !== s.keyCount) {
    // A repeated key: which occurrence the patches meant is ambiguous here; the reference parser decides.
    return parseLosslessReference(text.slice(s.start, s.end + 1));
  }
  for (let k = 0; k < s.segments.length; k++) {
    const seg = s.segments[k];
    const v = s.values[k];
    const next = v instanceof JsonNumber ? v : patch(text, v, target[seg]);
    if (next === target[seg]) continue;
    if (seg === '__proto__') defineKey(target as Record<string, unknown>, seg, next);
    else target[seg] = next;
  }
  if (s.order) setKeyOrder(target, s.order);
  return value;
}
