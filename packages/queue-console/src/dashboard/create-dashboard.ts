import { readFile } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { QueueOptions } from "@tempest-db-js/queue-recipes";
import { cancelQueued, listMessages, retryFailed, showMessage } from "@tempest-db-js/queue-recipes";
import type { Executor, ModelClass } from "tempest-db-js";
import { TempestError, ValidationError } from "tempest-db-js";
import { queueSnapshot } from "../queue-snapshot.js";
import type { QueueTarget } from "../queue-target.js";
import type { Authorize } from "./check-access.js";
import { bearerToken } from "./check-access.js";
import { DepthHistory } from "./depth-history.js";
import { readJsonBody, sendJson } from "./http-json.js";

export interface DashboardOptions {
  readonly db: Executor;
  readonly model: ModelClass<any>;
  /** The recipes' options for this model (fields, statuses), when it differs from the guide's. */
  readonly queueOptions?: QueueOptions;
  /** The token every data request must carry as `Authorization: Bearer <token>`. */
  readonly token?: string;
  /** Your own check instead of (or besides) the token: your session, your SSO. Both must pass when both are given. */
  readonly authorize?: Authorize;
  /** Let the page retry and cancel messages (default false: read-only). */
  readonly allowWrites?: boolean;
  /** Where the dashboard is mounted in a larger server (default ""): `/admin/queue`. */
  readonly basePath?: string;
  /** How often the depth chart gets a point (default 5,000 ms), and how many it keeps (default 360). */
  readonly sampleIntervalMs?: number;
  readonly historySize?: number;
}

/** A request handler for Node's http server (or Express, Fastify's raw mode, ...), plus its clean-up. */
export interface Dashboard {
  (request: IncomingMessage, response: ServerResponse): Promise<void>;
  /** Stops the depth sampler. The engine is the caller's to close. */
  close(): Promise<void>;
}

const ASSETS: Readonly<Record<string, string>> = {
  "/": "index.html",
  "/assets/app.js": "app.js",
  "/assets/app.css": "app.css",
};
const TYPES: Readonly<Record<string, string>> = {
  html: "text/html; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
};
const PAGE_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
const assetDir = new URL("../../assets/", import.meta.url);

/**
 * The dashboard: a page (HTML, one script, one style sheet, all served from this package — no CDN)
 * and a small JSON API the page reads every few seconds. Never open by default: without a `token`
 * or an `authorize` hook it refuses to be created; every API request is checked, and the write
 * actions exist only with `allowWrites: true`. Values from requests reach the recipes as values
 * (ids, a consumer name), never as SQL.
 */
export function createDashboard(options: DashboardOptions): Dashboard {
  const checks: Authorize[] = [];
  if (options.token !== undefined) {
    if (typeof options.token !== "string" || options.token.length < 16)
      throw new ValidationError("createDashboard: token must be a string of at least 16 characters");
    checks.push(bearerToken(options.token));
  }
  if (options.authorize !== undefined) checks.push(options.authorize);
  if (checks.length === 0)
    throw new ValidationError("createDashboard: pass a token or an authorize hook; the dashboard is never open to everyone");
  const base = (options.basePath ?? "").replace(/\/+$/, "");
  const target: QueueTarget = { db: options.db, model: options.model, options: options.queueOptions };
  const recipes = options.queueOptions ?? {};
  const writable = options.allowWrites === true;
  const history = new DepthHistory(target, options.sampleIntervalMs ?? 5000, options.historySize ?? 360);
  history.start();

  const allowed = async (request: IncomingMessage) => {
    for (const check of checks) if (!(await check(request))) return false;
    return true;
  };

  const handler = async (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? "/", "http://dashboard");
    if (!url.pathname.startsWith(base)) return sendJson(response, 404, { error: "not found" });
    const path = url.pathname.slice(base.length) || "/";
    try {
      const asset = ASSETS[path];
      if (asset !== undefined && request.method === "GET") {
        // The page and its script hold no data: served to anyone, they ask for the token themselves.
        const body = await readFile(new URL(asset, assetDir));
        response.writeHead(200, {
          "content-type": TYPES[asset.split(".").pop() as string] as string,
          "content-security-policy": PAGE_POLICY,
          "x-content-type-options": "nosniff",
          "referrer-policy": "no-referrer",
          "cache-control": "no-cache",
        });
        response.end(body);
        return;
      }
      if (!path.startsWith("/api/")) return sendJson(response, 404, { error: "not found" });
      if (!(await allowed(request))) return sendJson(response, 401, { error: "unauthorized: send Authorization: Bearer <token>" });
      const route = `${request.method} ${path}`;
      switch (route) {
        case "GET /api/snapshot": {
          const snapshot = await queueSnapshot(target, { limit: 20, minutes: 30 });
          return sendJson(response, 200, {
            table: options.model.tablename,
            writable,
            ...snapshot,
            history: history.list(),
            historyError: history.lastError ?? null,
          });
        }
        case "GET /api/messages": {
          const status = url.searchParams.get("status") ?? "failed";
          if (status !== "queued" && status !== "sending" && status !== "sent" && status !== "failed")
            return sendJson(response, 400, { error: "status must be queued, sending, sent or failed" });
          const consumer = url.searchParams.get("consumer") ?? undefined;
          const messages = await listMessages(target.db, target.model, { ...recipes, status, consumer, limit: 100 });
          return sendJson(response, 200, { messages });
        }
        case "GET /api/message": {
          const message = await showMessage(target.db, target.model, url.searchParams.get("id") ?? "", recipes);
          return message === null ? sendJson(response, 404, { error: "no such message" }) : sendJson(response, 200, { message });
        }
        case "POST /api/retry":
        case "POST /api/cancel": {
          if (!writable) return sendJson(response, 403, { error: "read-only dashboard: start it with allowWrites to retry or cancel" });
          const body = await readJsonBody(request);
          const ids = (body as { ids?: unknown }).ids;
          if (
            !Array.isArray(ids) ||
            ids.length === 0 ||
            ids.length > 1000 ||
            ids.some((id) => typeof id !== "string" && typeof id !== "number")
          ) {
            return sendJson(response, 400, { error: "ids must be a list of 1 to 1000 message ids" });
          }
          const result =
            route === "POST /api/retry"
              ? await retryFailed(target.db, target.model, { ...recipes, ids })
              : await cancelQueued(target.db, target.model, { ...recipes, ids, reason: "cancelled from the dashboard" });
          await history.sample();
          return sendJson(response, 200, result);
        }
        default:
          return sendJson(response, 404, { error: "not found" });
      }
    } catch (error) {
      // The library's errors name the statement, never a bound value; anything else is a bug of ours.
      const status = ValidationError.isInstance(error) || (error as { status?: number }).status === 400 ? 400 : 500;
      const message = TempestError.isInstance(error) || status === 400 ? (error as Error).message : "internal error";
      if (!response.headersSent) sendJson(response, status, { error: message });
      else response.destroy();
    }
  };
  return Object.assign(handler, { close: () => history.stop() });
}
