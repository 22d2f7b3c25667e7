import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { DashboardOptions } from "./create-dashboard.js";
import { createDashboard } from "./create-dashboard.js";

export interface ServeDashboardOptions extends DashboardOptions {
  /** Default 4600; 0 picks a free port. */
  readonly port?: number;
  /** Default 127.0.0.1: reachable from this machine only, unless you say otherwise. */
  readonly host?: string;
}

export interface ServedDashboard {
  /** The dashboard's address, e.g. http://127.0.0.1:4600/. */
  readonly url: string;
  close(): Promise<void>;
}

/** The dashboard on a small HTTP server of its own. */
export async function serveDashboard(options: ServeDashboardOptions): Promise<ServedDashboard> {
  const dashboard = createDashboard(options);
  const server = createServer((request, response) => void dashboard(request, response));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 4600, options.host ?? "127.0.0.1", () => resolve());
  });
  const { address, port } = server.address() as AddressInfo;
  const host = address.includes(":") ? `[${address}]` : address;
  return {
    url: `http://${host}:${port}${options.basePath ?? ""}/`,
    close: async () => {
      await dashboard.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
    },
  };
}
