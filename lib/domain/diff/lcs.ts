/**
 * Matches two sequences by a longest common subsequence and classifies the
 * rest: items only in `from` are removed, only in `to` added, and items in
 * both but outside the LCS moved.
 */
export interface SequenceChange {
  kind: 'added' | 'removed' | 'moved';
  item: string;
  /** Position in `from` (removed, moved). */
  from?: number;
  /** Position in `to` (added, moved). */
  to?: number;
}

/** Index pairs [i, j] of an LCS of a and b, in order. */
export function lcsPairs(a: readonly string[], b: readonly string[]): [number, number][] {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const pairs: [number, number][] = [];
  for (let i = 0; i < start; i++) pairs.push([i, i]);
  const mid = lcsMiddle(a, b, start, endA, endB);
  pairs.push(...mid);
  for (let k = 0; endA + k < a.length; k++) pairs.push([endA + k, endB + k]);
  return pairs;
}

function lcsMiddle(a: readonly string[], b: readonly string[], start: number, endA: number, endB: number): [number, number][] {
  const n = endA - start;
  const m = endB - start;
  if (n === 0 || m === 0) return [];
  const posInB = new Map<string, number>();
  let unique = true;
  for (let j = start; j < endB; j++) {
    if (posInB.has(b[j])) unique = false;
    posInB.set(b[j], j);
  }
  const seenA = new Set<string>();
  for (let i = start; i < endA && unique; i++) {
    if (seenA.has(a[i])) unique = false;
    seenA.add(a[i]);
  }
  if (unique) {
    // Unique items (the usual run list): LCS = longest increasing subsequence of positions, O(n log n).
    const seq: [number, number][] = [];
    for (let i = start; i < endA; i++) {
      const j = posInB.get(a[i]);
      if (j !== undefined) seq.push([i, j]);
    }
    const tails: number[] = [];
    const prev = new Int32Array(seq.length).fill(-1);
    for (let k = 0; k < seq.length; k++) {
      let lo = 0;
      let hi = tails.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (seq[tails[mid]][1] < seq[k][1]) lo = mid + 1;
        else hi = mid;
      }
      if (lo > 0) prev[k] = tails[lo - 1];
      tails[lo] = k;
    }
    const out: [number, number][] = [];
    for (let k = tails.length ? tails[tails.length - 1] : -1; k >= 0; k = prev[k]) out.push(seq[k]);
    return out.reverse();
  }
  // Repeated items: classic dynamic programming on the trimmed middle.
  const w = m + 1;
  const dp = new Uint32Array((n + 1) * w);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      dp[i * w + j] = a[start + i] === b[start + j] ? dp[(i + 1) * w + j + 1] + 1 : Math.max(dp[(i + 1) * w + j], dp[i * w + j + 1]);
    }
  }
  const out: [number, number][] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[start + i] === b[start + j]) {
      out.push([start + i, start + j]);
      i++;
      j++;
    } else if (dp[(i + 1) * w + j] >= dp[i * w + j + 1]) i++;
    else j++;
  }
  return out;
}

export function diffSequence(from: readonly string[], to: readonly string[]): SequenceChange[] {
  const pairs = lcsPairs(from, to);
  const keptA = new Uint8Array(from.length);
  const keptB = new Uint8Array(to.length);
  for (const [i, j] of pairs) {
    keptA[i] = 1;
    keptB[j] = 1;
  }
  // Unmatched occurrences in `to`, by item, to pair removed-looking items into moves.
  const pendingTo = new Map<string, number[]>();
  for (let j = 0; j < to.length; j++) {
    if (keptB[j]) continue;
    const list = pendingTo.get(to[j]);
    if (list) list.push(j);
    else pendingTo.set(to[j], [j]);
  }
  const changes: SequenceChange[] = [];
  for (let i = 0; i < from.length; i++) {
    if (keptA[i]) continue;
    const list = pendingTo.get(from[i]);
    if (list && list.length) {
      const j = list.shift()!;
      keptB[j] = 2;
      changes.push({ kind: 'moved', item: from[i], from: i, to: j });
    } else changes.push({ kind: 'removed', item: from[i], from: i });
  }
  for (let j = 0; j < to.length; j++) if (!keptB[j]) changes.push({ kind: 'added', item: to[j], to: j });
  return changes;
}
