import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";

/** Decides whether a request may read the dashboard's data (and, with writes on, act). */
export type Authorize = (request: IncomingMessage) => boolean | Promise<boolean>;

/**
 * The bearer-token check: `Authorization: Bearer <token>`, compared in constant time (as hashes, so
 * the length of the token leaks nothing either). A header, never a cookie: a page of another site
 * cannot make the browser send it, so the write actions need no CSRF token of their own.
 */
export function bearerToken(token: string): Authorize {
  const expected = digest(token);
  return (request) => {
    const header = request.headers.authorization;
    if (typeof header !== "string" || !header.startsWith("Bearer ")) return false;
    return timingSafeEqual(digest(header.slice(7).trim()), expected);
  };
}

function digest(text: string): Buffer {
  return createHash("sha256").update(text, "utf8").digest();
}
