/**
 * RFC 6901 JSON pointers: the one builder every error path, lock violation
 * and compose conflict uses. A token escapes `~` as `~0` and `/` as `~1`
 * (in that order), so a key such as `a/b` or `~x` names exactly one member.
 * The empty pointer `""` names the whole document.
 */

export type PointerSegment = string | number;

/** One reference token, escaped (`~` → `~0`, then `/` → `~1`). */
export function escapePointerToken(segment: PointerSegment): string {
  return String(segment).replace(/~/g, '~0').replace(/\//g, '~1');
}

/** The inverse of `escapePointerToken` (`~1` → `/`, then `~0` → `~`). */
export function unescapePointerToken(token: string): string {
  return token.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** The pointer to a value reached through `segments` from the document root: `jsonPointer(['a/b', 0])` → `/a~1b/0`. */
export function jsonPointer(segments: readonly PointerSegment[]): string {
  let out = '';
  for (const s of segments) out += '/' + escapePointerToken(s);
  return out;
}

/** A pointer one level below `base` (itself a pointer): `childPointer('/cookbook_locks', 'a/b')` → `/cookbook_locks/a~1b`. */
export function childPointer(base: string, ...segments: readonly PointerSegment[]): string {
  return base + jsonPointer(segments);
}

/** The segments of a pointer (all strings, unescaped); throws on a non-empty pointer that does not start with `/`. */
export function parseJsonPointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw new Error(`A JSON pointer starts with '/': ${JSON.stringify(pointer)}`);
  return pointer.slice(1).split('/').map(unescapePointerToken);
}
