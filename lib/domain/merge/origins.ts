/**
 * Which source set each attribute node of a merge (the attribute part of `Provenance`), kept as the
 * merge decides it: one node, or a whole subtree that one source brought alone (every node in it is
 * that source's). Listed node by node only when read: the same [path, source] pairs, in the same
 * order, that recording every node as the merge went gave, without paying for tens of thousands of
 * paths on every merge. The subtrees are the merge's inputs, shared with its result: both are
 * immutable (see `mergePolicy`).
 */
import { isObject } from './ruby-values';

const NODE = Symbol('one node');

export class OriginLog {
  private readonly paths: string[] = [];
  private readonly sources: string[] = [];
  /** The subtree a record stands for, or NODE for a single node. */
  private readonly subtrees: unknown[] = [];
  /** Whether a record lists its own root node (false once that entry is dropped). */
  private readonly own: boolean[] = [];

  /** One node. */
  node(path: string, source: string): void {
    this.paths.push(path);
    this.sources.push(source);
    this.subtrees.push(NODE);
    this.own.push(true);
  }

  /** A node and, for an object, every node under it (chef-cli style paths `[a][b]`). */
  subtree(value: unknown, path: string, source: string): void {
    if (!isObject(value)) return this.node(path, source);
    this.paths.push(path);
    this.sources.push(source);
    this.subtrees.push(value);
    this.own.push(true);
  }

  /** Drops the first listed entry whose path is `path` (the root, which has no path of its own). */
  dropFirst(path: string): void {
    for (let i = 0; i < this.paths.length; i++) {
      if (this.paths[i] !== path || !this.own[i]) continue;
      if (this.subtrees[i] === NODE) {
        this.paths.splice(i, 1);
        this.sources.splice(i, 1);
        this.subtrees.splice(i, 1);
        this.own.splice(i, 1);
      } else this.own[i] = false;
      return;
    }
  }

  /** Every entry, in merge order (a path may come more than once: the last source to set it wins). */
  forEach(fn: (path: string, source: string) => void): void {
    for (let i = 0; i < this.paths.length; i++) {
      const t = this.subtrees[i];
      if (t === NODE) fn(this.paths[i], this.sources[i]);
      else walk(t, this.paths[i], this.sources[i], this.own[i], fn);
    }
  }

  toArray(): [string, string][] {
    const out: [string, string][] = [];
    this.forEach((p, s) => out.push([p, s]));
    return out;
  }
}

function walk(value: unknown, path: string, source: string, own: boolean, fn: (path: string, source: string) => void): void {
  if (own) fn(path, source);
  if (!isObject(value)) return;
  const keys = Object.keys(value);
  for (let i = 0; i < keys.length; i++) walk(value[keys[i]], path + '[' + keys[i] + ']', source, true, fn);
}
