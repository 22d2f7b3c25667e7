/** Which server answers, and its version: the capability table differs between the two lines. */
export interface MysqlServerVersion {
  readonly flavor: "mysql" | "mariadb";
  readonly major: number;
  readonly minor: number;
  readonly patch: number;
}

/** Assumed for `mariadb://` URLs until the server has told its version. */
export const MARIADB_10_11: MysqlServerVersion = Object.freeze({ flavor: "mariadb", major: 10, minor: 11, patch: 0 });

/** Assumed for `mysql://` URLs until the server has told its version. */
export const MYSQL_8_0: MysqlServerVersion = Object.freeze({ flavor: "mysql", major: 8, minor: 0, patch: 0 });

/** The assumption for a URL, before connecting: the scheme is the only hint there is. */
export function assumedServer(url: string): MysqlServerVersion {
  return /^mariadb:/i.test(url) ? MARIADB_10_11 : MYSQL_8_0;
}

/**
 * Reads `SELECT VERSION()`. MariaDB may carry a `5.5.5-` prefix (kept for old replication clients),
 * so its own number is the one right before `-MariaDB`. Returns undefined for text it cannot read.
 */
export function parseServerVersion(text: string): MysqlServerVersion | undefined {
  const maria = /(\d+)\.(\d+)\.(\d+)-MariaDB/i.exec(text);
  if (maria) return version("mariadb", maria);
  if (/mariadb/i.test(text)) {
    const loose = /(\d+)\.(\d+)(?:\.(\d+))?/.exec(text);
    return loose ? version("mariadb", loose) : undefined;
  }
  const mysql = /^(\d+)\.(\d+)(?:\.(\d+))?/.exec(text.trim());
  return mysql ? version("mysql", mysql) : undefined;
}

export function atLeast(server: MysqlServerVersion, major: number, minor = 0, patch = 0): boolean {
  if (server.major !== major) return server.major > major;
  if (server.minor !== minor) return server.minor > minor;
  return server.patch >= patch;
}

/** "MariaDB 10.11", "MySQL 8.0": the line a capability depends on, without the patch level. */
export function describeServer(server: MysqlServerVersion): string {
  return `${server.flavor === "mariadb" ? "MariaDB" : "MySQL"} ${server.major}.${server.minor}`;
}

function version(flavor: MysqlServerVersion["flavor"], match: RegExpExecArray): MysqlServerVersion {
  return Object.freeze({ flavor, major: Number(match[1]), minor: Number(match[2]), patch: Number(match[3] ?? 0) });
}
