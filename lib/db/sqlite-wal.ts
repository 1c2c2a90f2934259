/** A better-sqlite3 connection, as far as setting its mode goes. */
export type SqlitePragma = { pragma: (source: string, opts?: { simple?: boolean }) => unknown };

/**
 * SQLite runs in write-ahead-log mode with synchronous=NORMAL (issue 22, wire
 * speed): a commit appends to the log without waiting for the disk (the log is
 * synced at checkpoints), readers never wait for a writer and a writer never
 * waits for readers. In the default rollback-journal mode every commit syncs
 * the disk two or three times, ~4 ms here, and better-sqlite3 holds the event
 * loop meanwhile: a chef-client run (one node write) could never pass ~170
 * runs/s. The trade-off is SQLite's documented one: committed transactions
 * survive a crash of the console, and a crash of the machine (power loss) can
 * lose the last moments of commits but never corrupts the database. The mode
 * is stored in the file; synchronous is per connection. A database another
 * connection holds busy keeps its mode until the next connection sets it.
 */
export function writeAheadLog(conn: SqlitePragma): void {
  try {
    conn.pragma('journal_mode = WAL');
  } catch {
    /* busy or read-only: the journal mode stays as it is */
  }
  conn.pragma('synchronous = NORMAL');
}
