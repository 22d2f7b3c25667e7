import { isAbsolute, resolve } from "node:path";
import { ValidationError } from "tempest-db-js/dialect";

/** Where an SQLite URL points: a file path for better-sqlite3, or a private in-memory database. */
export interface SqliteTarget {
  readonly filename: string;
  readonly memory: boolean;
}

const FORMS = "sqlite:///absolute/path.db, sqlite://relative/path.db or sqlite::memory:";

/**
 * `sqlite:///abs/path.db` (absolute), `sqlite://relative.db` (against `cwd`), `sqlite::memory:`.
 * Everything after `//` is a path, never a host, so `sqlite://data/app.db` is the file
 * `./data/app.db`. Percent-escapes are decoded, so a file name holding `?` or `#` can be written.
 * A query string is refused rather than read as part of the file name: options go through
 * `createEngine(url, { driver: { busyTimeoutMs } })`.
 */
export function parseSqliteUrl(url: string, cwd: string = process.cwd()): SqliteTarget {
  if (typeof url !== "string") throw new ValidationError(`An SQLite URL must be a string (${FORMS})`);
  const match = /^sqlite:(.*)$/is.exec(url);
  if (!match) throw new ValidationError(`Not an SQLite URL: ${JSON.stringify(url)}. Use ${FORMS}`);
  const rest = match[1] ?? "";
  if (rest === ":memory:" || rest === "//:memory:") return Object.freeze({ filename: ":memory:", memory: true });
  if (!rest.startsWith("//")) throw new ValidationError(`Not an SQLite URL: ${JSON.stringify(url)}. Use ${FORMS}`);
  const encoded = rest.slice(2);
  if (/[?#]/.test(encoded)) {
    throw new ValidationError(
      `SQLite URLs take no query string or fragment (${JSON.stringify(url)}). Pass options with createEngine(url, { driver: { busyTimeoutMs } }); percent-encode ? and # in file names.`,
    );
  }
  let path: string;
  try {
    path = decodeURIComponent(encoded);
  } catch (error) {
    throw new ValidationError(`SQLite URL ${JSON.stringify(url)} has a malformed percent-escape`, { cause: error });
  }
  if (path === "" || path === "/") throw new ValidationError(`SQLite URL ${JSON.stringify(url)} names no file. Use ${FORMS}`);
  if (path.includes("\0")) throw new ValidationError("An SQLite file name cannot contain NUL");
  if (path.endsWith("/")) throw new ValidationError(`SQLite URL ${JSON.stringify(url)} names a directory, not a database file`);
  // `sqlite:///C:/data/app.db` is the Windows path C:/data/app.db.
  const drive = /^\/([A-Za-z]:[/\\].*)$/s.exec(path)?.[1];
  const filename = drive ?? (isAbsolute(path) ? path : resolve(cwd, path));
  return Object.freeze({ filename, memory: false });
}
