// The order service as a process of its own (the load driver forks it, so autocannon does not share
// its event loop). Config as JSON in ORDER_SERVICE; tells its port over IPC ({ port }), answers
// "stats" with { stats: { counts, bugs, unavailable } }, closes on "stop" or SIGTERM and exits 0.

import type { OrderServiceOptions } from "./order-service.js";
import { startOrderService } from "./order-service.js";

const options = JSON.parse(process.env.ORDER_SERVICE ?? "null") as OrderServiceOptions | null;
if (!options) throw new Error("ORDER_SERVICE is not set: this script is started by the load driver");
await import("@tempest-db-js/dialect-postgres");

const service = await startOrderService(options);
let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await service.close();
  process.send?.({ stopped: true, stats: { counts: service.counts, bugs: service.bugs, unavailable: service.unavailable } });
  process.disconnect?.();
  process.exit(0);
};
process.on("SIGTERM", () => void stop());
process.on("message", (m) => {
  if (m === "stop") void stop();
  if (m === "stats") process.send?.({ stats: { counts: service.counts, bugs: service.bugs, unavailable: service.unavailable } });
});
process.send?.({ port: service.port });
