/**
 * The invariants of a chaos run, checked from what was recorded:
 *
 * - claims and settlements: rows of log tables written in the transaction of the claim / settlement
 *   itself, so a record exists exactly when the claim or settlement committed;
 * - deliveries: lines of each worker's append-only journal, written synchronously before the
 *   delivery counts as done;
 * - lifetimes: the supervisor's own clock of when it started, SIGKILLed or saw each worker exit.
 *
 * Definitions:
 * - a claim *holds* its row from `claimedAt` until its worker settles it (or tries to, and finds
 *   it taken: a stale settlement, itself a violation), gives up on it (journal), or stops being
 *   alive (SIGKILL sent, or exit) — whichever is first;
 * - a **duplicate claim** is a claim of a row made while another claim of that row still held it
 *   (two live workers holding one row at once), or two claims with the same attempts token;
 * - a **duplicate completion** is a second applied `sent` settlement of one job;
 * - a **redelivery** is a delivery of a job beyond the one its completing claim made. It is
 *   explained (at-least-once) when its claim was never settled because its worker was killed or
 *   gave up; otherwise it is an **unexplained duplicate delivery**;
 * - a **lost** job is one missing from the table, not `sent`/`failed` at the end, `sent` without
 *   a delivery by the claim that completed it, or `failed` without a settlement that failed it.
 */

export interface JobRecord {
  readonly id: string;
  readonly consumer: string;
  readonly status: string;
  readonly attempts: number;
}

export interface ClaimRecord {
  readonly jobId: string;
  readonly attempt: number;
  readonly worker: string;
  readonly batchId: string;
  readonly batchSize: number;
  readonly claimedAt: Date;
  readonly leaseUntil: Date;
}

export interface SettlementRecord {
  readonly jobId: string;
  readonly attempt: number;
  readonly worker: string;
  readonly outcome: "sent" | "requeued" | "failed";
  readonly applied: boolean;
  readonly settledAt: Date;
}

export interface DeliveryRecord {
  readonly worker: string;
  readonly jobId: string;
  readonly attempt: number;
  readonly at: number;
}

export interface AbandonRecord {
  readonly worker: string;
  readonly jobId: string;
  readonly attempt: number;
  readonly at: number;
}

export interface WorkerLife {
  readonly id: string;
  readonly pid: number | undefined;
  readonly startedAt: number;
  /** When the supervisor sent SIGKILL (taken right after kill() returned). */
  readonly killedAt: number | undefined;
  readonly exitedAt: number | undefined;
  readonly exitCode: number | null | undefined;
  readonly signal: string | null | undefined;
  /** Asked to stop gracefully. */
  readonly stopped: boolean;
  /** Last lines of stderr, for diagnostics. */
  readonly stderr: string;
}

export interface ChaosData {
  readonly expectedJobs: number;
  readonly maxAttempts: number;
  readonly batchSize: number;
  readonly poisonConsumer: string;
  readonly jobs: readonly JobRecord[];
  readonly claims: readonly ClaimRecord[];
  readonly settlements: readonly SettlementRecord[];
  readonly reclaimedRows: number;
  readonly anomalies: readonly { worker: string; kind: string; detail: string }[];
  readonly deliveries: readonly DeliveryRecord[];
  readonly abandoned: readonly AbandonRecord[];
  readonly workerErrors: readonly { worker: string; message: string }[];
  /** Journal lines that did not parse, other than a cut-off last line. */
  readonly corruptJournalLines: number;
  readonly workers: readonly WorkerLife[];
}

export interface ChaosFindings {
  readonly jobs: number;
  readonly sent: number;
  readonly failed: number;
  readonly failedPoison: number;
  readonly kills: number;
  /** Kills of a worker that held claims it had not settled (its rows had to be reclaimed). */
  readonly killsHoldingClaims: number;
  readonly workersStarted: number;
  readonly claims: number;
  readonly reclaims: number;
  readonly deliveries: number;
  /** Sent jobs by number of deliveries. */
  readonly deliveriesPerSentJob: Readonly<Record<number, number>>;
  readonly redeliveries: number;
  readonly duplicateClaims: number;
  readonly duplicateCompletions: number;
  readonly unexplainedDuplicateDeliveries: number;
  readonly lost: number;
  readonly largestClaim: number;
  readonly batchSize: number;
  /** Longest time a claim was held before its applied settlement. */
  readonly maxHoldMs: number;
  readonly workerErrors: number;
  /** Every broken invariant, with examples. Empty means the run passed. */
  readonly violations: readonly string[];
}

const EXAMPLES = 5;

class Violations {
  readonly #byKind = new Map<string, { count: number; examples: string[] }>();

  add(kind: string, example: string): void {
    let entry = this.#byKind.get(kind);
    if (!entry) {
      entry = { count: 0, examples: [] };
      this.#byKind.set(kind, entry);
    }
    entry.count++;
    if (entry.examples.length < EXAMPLES) entry.examples.push(example);
  }

  count(kind: string): number {
    return this.#byKind.get(kind)?.count ?? 0;
  }

  list(): string[] {
    return [...this.#byKind].map(([kind, { count, examples }]) => `${kind}: ${count} (e.g. ${examples.join(" | ")})`);
  }
}

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const list = out.get(k);
    if (list) list.push(item);
    else out.set(k, [item]);
  }
  return out;
}

const claimKey = (jobId: string, attempt: number) => `${jobId}#${attempt}`;

export function analyze(data: ChaosData): ChaosFindings {
  const v = new Violations();
  const workers = new Map(data.workers.map((w) => [w.id, w]));
  const claimsByJob = groupBy(data.claims, (c) => c.jobId);
  const settlementsByClaim = groupBy(data.settlements, (s) => claimKey(s.jobId, s.attempt));
  const deliveriesByJob = groupBy(data.deliveries, (d) => d.jobId);
  const abandonedByClaim = new Map(data.abandoned.map((a) => [claimKey(a.jobId, a.attempt), a]));

  // Worker processes: every exit is either our SIGKILL or a clean stop.
  for (const w of data.workers) {
    if (w.killedAt === undefined && !(w.stopped && w.exitCode === 0)) {
      v.add(
        "worker crashed or did not stop cleanly",
        `${w.id} exit=${w.exitCode} signal=${w.signal} ${w.stderr.trim().split("\n").slice(-3).join(" / ")}`,
      );
    }
  }
  for (const a of data.anomalies) v.add(`worker anomaly ${a.kind}`, `${a.worker}: ${a.detail.slice(0, 300)}`);
  if (data.corruptJournalLines > 0) v.add("corrupt journal lines", String(data.corruptJournalLines));

  // No claim larger than its batch size; one worker per batch.
  let largestClaim = 0;
  for (const [batchId, batch] of groupBy(data.claims, (c) => c.batchId)) {
    largestClaim = Math.max(largestClaim, batch.length);
    const size = batch[0]?.batchSize ?? 0;
    if (batch.length > size) v.add("claim larger than its batch size", `batch ${batchId}: ${batch.length} rows > ${size}`);
    if (new Set(batch.map((c) => c.worker)).size > 1) v.add("batch logged by several workers", batchId);
  }

  const aliveUntil = (workerId: string): number => {
    const w = workers.get(workerId);
    if (!w) return Number.POSITIVE_INFINITY;
    return w.killedAt ?? w.exitedAt ?? Number.POSITIVE_INFINITY;
  };
  const appliedOf = (key: string) => (settlementsByClaim.get(key) ?? []).filter((s) => s.applied);

  let sent = 0;
  let failed = 0;
  let failedPoison = 0;
  let lost = 0;
  let maxHoldMs = 0;
  let redeliveries = 0;
  const deliveriesPerSentJob: Record<number, number> = {};

  if (data.jobs.length !== data.expectedJobs) {
    v.add("jobs missing from the table", `${data.expectedJobs - data.jobs.length} of ${data.expectedJobs}`);
    lost += Math.max(0, data.expectedJobs - data.jobs.length);
  }

  for (const job of data.jobs) {
    const claims = [...(claimsByJob.get(job.id) ?? [])].sort((a, b) => a.attempt - b.attempt);

    // attempts equals the claims recorded, and each claim has its own token 1..attempts.
    if (claims.length !== job.attempts)
      v.add("attempts differs from claims recorded", `${job.id}: attempts=${job.attempts}, claims=${claims.length}`);
    const tokens = new Set<number>();
    for (const c of claims) {
      if (tokens.has(c.attempt)) v.add("duplicate claim (same attempts token twice)", `${job.id} attempt ${c.attempt}`);
      tokens.add(c.attempt);
      if (c.attempt < 1 || c.attempt > job.attempts) v.add("claim token out of range", `${job.id} attempt ${c.attempt} of ${job.attempts}`);
    }

    // No two live holders at once: each claim starts only after the previous one stopped holding.
    for (let i = 0; i + 1 < claims.length; i++) {
      const held = claims[i] as ClaimRecord;
      const next = claims[i + 1] as ClaimRecord;
      const key = claimKey(job.id, held.attempt);
      // Its worker stops holding it when it settles it — or tries to and finds it taken (stale).
      const settledAt = Math.min(...(settlementsByClaim.get(key) ?? []).map((s) => s.settledAt.getTime()), Number.POSITIVE_INFINITY);
      const gaveUpAt =
        abandonedByClaim.get(key)?.worker === held.worker
          ? (abandonedByClaim.get(key)?.at ?? Number.POSITIVE_INFINITY)
          : Number.POSITIVE_INFINITY;
      const heldUntil = Math.min(settledAt, gaveUpAt, aliveUntil(held.worker));
      if (next.claimedAt.getTime() < heldUntil) {
        v.add(
          "duplicate claim (two live workers held one row)",
          `${job.id}: attempt ${held.attempt} by ${held.worker} claimed ${held.claimedAt.toISOString()} held until ${Number.isFinite(heldUntil) ? new Date(heldUntil).toISOString() : "the end"}, attempt ${next.attempt} by ${next.worker} claimed ${next.claimedAt.toISOString()}`,
        );
      }
    }

    // Every settlement belongs to a recorded claim of the same worker; a claim settles at most once.
    for (const c of claims) {
      const key = claimKey(job.id, c.attempt);
      const settlements = settlementsByClaim.get(key) ?? [];
      for (const s of settlements)
        if (s.worker !== c.worker)
          v.add("settlement by a worker that did not hold the claim", `${key} claimed by ${c.worker}, settled by ${s.worker}`);
      const applied = settlements.filter((s) => s.applied);
      if (applied.length > 1) v.add("claim settled twice", `${key}: ${applied.map((s) => s.outcome).join(", ")}`);
      const stale = settlements.filter((s) => !s.applied);
      for (const s of stale)
        v.add(
          "settlement found its claim taken while its worker was alive (lease lost)",
          `${key} by ${s.worker} at ${s.settledAt.toISOString()}`,
        );
      const first = applied[0];
      if (first) maxHoldMs = Math.max(maxHoldMs, first.settledAt.getTime() - c.claimedAt.getTime());
    }

    const lastClaimKey = claimKey(job.id, job.attempts);
    const finalSettlement = appliedOf(lastClaimKey)[0];
    const sentSettlements = claims.flatMap((c) => appliedOf(claimKey(job.id, c.attempt))).filter((s) => s.outcome === "sent");
    if (sentSettlements.length > 1)
      v.add(
        "duplicate completion (two applied sent settlements)",
        `${job.id}: ${sentSettlements.map((s) => `${s.worker}#${s.attempt}`).join(", ")}`,
      );

    const deliveries = deliveriesByJob.get(job.id) ?? [];
    for (const d of deliveries) {
      const claim = claims.find((c) => c.attempt === d.attempt);
      if (!claim || claim.worker !== d.worker) v.add("delivery without a claim", `${job.id} attempt ${d.attempt} by ${d.worker}`);
    }
    if (job.consumer === data.poisonConsumer && deliveries.length > 0) v.add("poison job delivered", job.id);

    if (job.status === "sent") {
      sent++;
      const completing = finalSettlement?.outcome === "sent" ? finalSettlement : undefined;
      const completingDelivery = completing && deliveries.find((d) => d.attempt === completing.attempt && d.worker === completing.worker);
      if (!completing || !completingDelivery) {
        lost++;
        v.add(
          "lost: sent without a delivery by the completing claim",
          `${job.id} attempts=${job.attempts} settlement=${finalSettlement?.outcome ?? "none"}`,
        );
      }
      deliveriesPerSentJob[deliveries.length] = (deliveriesPerSentJob[deliveries.length] ?? 0) + 1;
    } else if (job.status === "failed") {
      failed++;
      if (job.consumer === data.poisonConsumer) failedPoison++;
      if (finalSettlement?.outcome !== "failed") {
        lost++;
        v.add("lost: failed without a settlement that failed it", `${job.id} attempts=${job.attempts}`);
      }
      if (job.attempts < data.maxAttempts) v.add("failed before maxAttempts", `${job.id} attempts=${job.attempts}`);
    } else {
      lost++;
      v.add(`lost: left ${job.status}`, `${job.id} attempts=${job.attempts}`);
    }

    // Deliveries other than the completing one: each must come from a claim that was never settled
    // because its worker was killed or gave up on it (at least once); anything else is a duplicate.
    for (const d of deliveries) {
      const key = claimKey(job.id, d.attempt);
      const completingThis =
        job.status === "sent" && finalSettlement?.outcome === "sent" && d.attempt === job.attempts && d.worker === finalSettlement.worker;
      if (completingThis) continue;
      redeliveries++;
      const settledApplied = appliedOf(key).length > 0;
      const holder = workers.get(d.worker);
      const explained = !settledApplied && (holder?.killedAt !== undefined || abandonedByClaim.get(key)?.worker === d.worker);
      if (!explained) {
        v.add(
          "unexplained duplicate delivery",
          `${job.id} attempt ${d.attempt} by ${d.worker} (killed=${holder?.killedAt !== undefined}, settled=${settledApplied}, final ${job.status}/${job.attempts})`,
        );
      }
    }
  }

  // Every claim that was never settled was reclaimed exactly once (every job finished).
  const unsettled = data.claims.filter((c) => appliedOf(claimKey(c.jobId, c.attempt)).length === 0).length;
  if (lost === 0 && unsettled !== data.reclaimedRows) {
    v.add(
      "reclaimed rows differ from unsettled claims",
      `reclaimExpired moved ${data.reclaimedRows} rows, ${unsettled} claims were never settled`,
    );
  }

  const holders = new Set(data.claims.filter((c) => appliedOf(claimKey(c.jobId, c.attempt)).length === 0).map((c) => c.worker));
  const killsHoldingClaims = data.workers.filter((w) => w.killedAt !== undefined && holders.has(w.id)).length;

  const duplicateClaims =
    v.count("duplicate claim (same attempts token twice)") + v.count("duplicate claim (two live workers held one row)");
  return {
    jobs: data.jobs.length,
    sent,
    failed,
    failedPoison,
    kills: data.workers.filter((w) => w.killedAt !== undefined).length,
    killsHoldingClaims,
    workersStarted: data.workers.length,
    claims: data.claims.length,
    reclaims: data.reclaimedRows,
    deliveries: data.deliveries.length,
    deliveriesPerSentJob,
    redeliveries,
    duplicateClaims,
    duplicateCompletions: v.count("duplicate completion (two applied sent settlements)"),
    unexplainedDuplicateDeliveries: v.count("unexplained duplicate delivery"),
    lost,
    largestClaim,
    batchSize: data.batchSize,
    maxHoldMs,
    workerErrors: data.workerErrors.length,
    violations: v.list(),
  };
}
