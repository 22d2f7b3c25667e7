import type { IncomingMessage, ServerResponse } from "node:http";

const MAX_BODY = 64 * 1024;

/** A JSON response that no cache keeps and no browser sniffs as something else. */
export function sendJson(response: ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value, (_key, v) => (typeof v === "bigint" ? v.toString() : v));
  response.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "cache-control": "no-store",
    "x-content-type-options": "nosniff",
  });
  response.end(body);
}

/** A request error that is the client's fault (sent back as 400). */
class BadRequest extends Error {
  readonly status = 400;
}

/**
 * The request's JSON body: `application/json` only (a cross-site form cannot send that without a
 * preflight), at most 64 KiB.
 */
export async function readJsonBody(request: IncomingMessage): Promise<unknown> {
  if (!/^application\/json\b/i.test(request.headers["content-type"] ?? "")) throw new BadRequest("send the body as application/json");
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new BadRequest("request body too large");
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    throw new BadRequest("the body is not JSON");
  }
}
