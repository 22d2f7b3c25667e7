import { createServer } from "node:net";

/** The first port from `preferred` on (200 tried) that 127.0.0.1 can listen on right now. */
export async function freePort(preferred: number): Promise<number> {
  for (let port = preferred; port < preferred + 200; port++) {
    const free = await new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once("error", () => resolve(false));
      server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
    });
    if (free) return port;
  }
  throw new Error(`no free port in ${preferred}..${preferred + 199}`);
}
