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
  /**
   * For `JSON.stringify` views only (API responses, previews): the nearest JS number.
   * Anything that writes a lock or hashes one must use {@link serializeJson} / the canonical writer.
   */
  toJSON(): number {
    return Number(this.lexeme);
  }
  toString(): string {
    return this.lexeme;
  }
}
