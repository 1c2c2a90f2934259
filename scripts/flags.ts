/** Command-line flags of the measuring scripts (`--nodes 1000`): a number, or the default when the flag is absent. */
export function numberFlag(args: readonly string[], flag: string, dflt: number): number {
  const i = args.indexOf(flag);
  if (i < 0) return dflt;
  const n = Number(args[i + 1]);
  if (args[i + 1] === undefined || !Number.isFinite(n) || n < 0) {
    console.error(`${flag} needs a number of 0 or more (got ${args[i + 1] === undefined ? 'nothing' : JSON.stringify(args[i + 1])})`);
    process.exit(2);
  }
  return n;
}
